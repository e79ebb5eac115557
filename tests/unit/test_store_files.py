"""The store's shared pieces: writing every byte, claimed file names, receipts per mailbox."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from hail.store import fs
from hail.store.maildir import HOWS, Mailbox, parse_claimed
from hail.store.store import receipt_in


def test_write_all_writes_every_byte_when_the_kernel_takes_a_few_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write
    calls: list[int] = []

    def short_write(fd: int, data: bytes | memoryview) -> int:
        calls.append(len(data))
        return real_write(fd, bytes(data[:3]))

    monkeypatch.setattr(os, "write", short_write)
    path = tmp_path / "out"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        fs.write_all(fd, b"0123456789")
    finally:
        os.close(fd)
    assert path.read_bytes() == b"0123456789"
    assert calls == [10, 7, 4, 1]


@pytest.mark.parametrize("how", HOWS)
def test_a_claimed_name_gives_its_id_and_how(how: str) -> None:
    assert parse_claimed(f"0101T000000-abcd.{how}.md") == ("0101T000000-abcd", how)


@pytest.mark.parametrize(
    "name",
    [
        "0101T000000-abcd.md",  # unread
        "0101T000000-abcd.seen.md",  # no such how
        "0101T000000-abcd.read.txt",
        ".read.md",  # no id
        "read.md",
        "",
    ],
)
def test_any_other_name_is_not_a_claim(name: str) -> None:
    assert parse_claimed(name) is None


def test_a_receipt_in_one_mailbox_is_the_claim_then_unread_then_nothing(tmp_path: Path) -> None:
    box = Mailbox(str(tmp_path / "worker"))
    msg_id = "0101T000000-abcd"
    assert receipt_in(box, msg_id) is None
    box.post(msg_id, "kind: fyi\n\nbody\n", inline=False)
    unread = receipt_in(box, msg_id)
    assert unread is not None and (unread.how, unread.received) == ("delivered", False)
    claimed = box.claim(msg_id, "read")
    found = receipt_in(box, msg_id)
    assert found is not None
    assert (found.how, found.path, found.mailbox, found.received) == (
        "read",
        claimed,
        "worker",
        True,
    )


def test_a_write_that_fails_leaves_no_file_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(fd: int, data: bytes | memoryview) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    path = tmp_path / "message.md"
    with pytest.raises(OSError, match="No space left"):
        fs.write_new(str(path), b"body", sync=True)
    assert not path.exists()


def test_a_file_that_exists_is_neither_overwritten_nor_removed(tmp_path: Path) -> None:
    path = tmp_path / "message.md"
    path.write_bytes(b"first")
    with pytest.raises(FileExistsError):
        fs.write_new(str(path), b"second", sync=False)
    assert path.read_bytes() == b"first"


# --- the atomic writer ---------------------------------------------------------------------------


def _fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(device, inode) of every file and directory fsynced from now on."""
    real_fsync = os.fsync
    synced: list[tuple[int, int]] = []

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        synced.append((st.st_dev, st.st_ino))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced


def _identity(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


def test_an_atomic_write_is_private_and_unsynced_unless_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = _fsyncs(monkeypatch)
    (tmp_path / "dir").mkdir()
    target = tmp_path / "dir" / "record"
    assert fs.write_atomic(str(target), "one\n") is True
    assert target.read_text() == "one\n"
    assert (target.stat().st_mode & 0o777) == 0o600
    assert synced == []
    assert os.listdir(target.parent) == ["record"]


def test_a_synced_atomic_write_syncs_the_file_before_the_rename_and_its_directory_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = _fsyncs(monkeypatch)
    target = tmp_path / "config"
    target.write_text("old\n")
    seen: list[list[tuple[int, int]]] = []

    def still_current() -> bool:
        seen.append(list(synced))
        return True

    assert fs.write_atomic(str(target), "new\n", sync=True, before_rename=still_current) is True
    assert target.read_text() == "new\n"
    assert seen == [[_identity(target)]], "the file was synced before the last look"
    assert synced == [_identity(target), _identity(tmp_path)]


def test_an_atomic_write_keeps_the_mode_it_is_given_whatever_the_umask(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    old = os.umask(0o077)
    try:
        fs.write_atomic(str(target), "{}\n", mode=0o644)
    finally:
        os.umask(old)
    assert (target.stat().st_mode & 0o777) == 0o644


def test_an_atomic_write_refused_just_before_the_rename_leaves_the_target_as_it_was(
    tmp_path: Path,
) -> None:
    (tmp_path / "dir").mkdir()
    target = tmp_path / "dir" / "config"
    target.write_text("someone else's save\n")
    assert fs.write_atomic(str(target), "ours\n", sync=True, before_rename=lambda: False) is False
    assert target.read_text() == "someone else's save\n"
    assert os.listdir(target.parent) == ["config"], "no temporary file left"


def test_an_atomic_write_replaces_a_link_and_never_writes_through_it(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.write_text("keep\n")
    target = tmp_path / "backup"
    target.symlink_to(precious)
    fs.write_atomic(str(target), "copy\n")
    assert precious.read_text() == "keep\n"
    assert not target.is_symlink() and target.read_text() == "copy\n"


def test_an_atomic_write_whose_last_look_fails_leaves_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    target = tmp_path / "dir" / "config"
    target.write_text("old\n")

    def unreadable() -> bool:
        raise PermissionError(13, "Permission denied", str(target))

    with pytest.raises(PermissionError):
        fs.write_atomic(str(target), "new\n", sync=True, before_rename=unreadable)
    assert target.read_text() == "old\n"
    assert os.listdir(target.parent) == ["config"]
