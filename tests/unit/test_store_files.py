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
