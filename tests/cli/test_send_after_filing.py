"""Once a message is filed, nothing is an error [docs/commands.md "Exit codes"]: a record the send
leaves after it (the pending record, the reply index, a release's removal) that cannot be written
is a note after `id=`, and the exit code is that of what did happen. A hold's record is written
before its message is visible, so a hold is never filed without one.

Each failure is a real OSError: the record's directory is occupied by a file, or (as root) is a
4 KiB tmpfs already full, so the write fails with ENOSPC as on a full disk.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.ids import id_of
from tests.support.world import World


def know(world: World, *seats: str) -> None:
    for seat in seats:
        assert world.run("whoami", cwd=seat).returncode == 0


def occupy(path: Path) -> None:
    """A file where hail expects a directory: every write into it fails (ENOTDIR)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("not a directory\n")


@contextmanager
def full_disk(path: Path) -> Iterator[None]:
    """`path` a 4 KiB tmpfs with every byte taken: a write into it fails with ENOSPC."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4k,mode=0700", "tmpfs", str(path)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"no tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        fd = os.open(path / ".fill", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass  # full: what the test needs
        finally:
            os.close(fd)
        yield
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def unread(world: World, mailbox: str) -> list[str]:
    new = world.state / "seats" / mailbox / "new"
    return sorted(p.stem for p in new.iterdir()) if new.is_dir() else []


def test_a_pending_record_that_cannot_be_written_is_a_note_after_the_id(world: World) -> None:
    know(world, "boss", "worker")
    occupy(world.state / "seats" / "boss" / "pending")
    proc = world.run("worker", "ask", "is the gate green?")
    assert proc.returncode == 5, proc.stderr  # not typed: no tmux server, as without the failure
    msg_id = id_of(proc.stdout)
    assert unread(world, "worker") == [msg_id], "filed once"
    first, second = proc.stderr.splitlines()
    assert first.startswith("hail: filed, but the pending record could not be written (")
    assert "do not resend" in first
    assert second.startswith("hail: delivered to worker's inbox; not typed (no tmux server)")
    assert "internal error" not in proc.stderr


def test_a_reply_index_that_cannot_be_written_is_a_note(world: World) -> None:
    know(world, "boss", "worker")
    ask = id_of(world.run("worker", "ask", "ready?").stdout)
    occupy(world.state / "replies")
    proc = world.run("boss", "fyi", "--re", ask, "yes", cwd="worker")
    assert proc.returncode in (0, 5), proc.stderr
    assert id_of(proc.stdout) in unread(world, "boss")
    assert "hail: filed, but the reply index could not be written (" in proc.stderr
    assert "internal error" not in proc.stderr


def test_a_hold_whose_record_cannot_be_written_files_nothing(world: World) -> None:
    know(world, "boss", "worker")
    occupy(world.state / "holds")
    proc = world.run("worker", "hold", "--scope", "src/auth", "HOLD: auth")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"error: could not write the hold record {world.state}/holds/")
    assert "nothing was sent" in proc.stderr
    assert unread(world, "worker") == [], "no hold filed without its record"
    assert list((world.state / "ids").iterdir()) == [], "the id was given back"


def test_a_hold_whose_message_cannot_be_written_leaves_no_record(world: World) -> None:
    know(world, "boss", "worker")
    occupy(world.state / "seats" / "worker" / "new")
    proc = world.run("worker", "hold", "--scope", "src/auth", "HOLD: auth")
    assert proc.returncode == 1, proc.stderr
    assert "nothing was sent" in proc.stderr
    holds = world.state / "holds"
    assert not holds.exists() or list(holds.iterdir()) == [], "the hold's record rolled back"


def test_a_full_disk_after_filing_is_a_note_not_an_internal_error(world: World) -> None:
    know(world, "boss", "worker")
    with full_disk(world.state / "seats" / "boss" / "pending"):
        proc = world.run("worker", "ask", "is the gate green?")
    assert proc.returncode == 5, proc.stderr
    msg_id = id_of(proc.stdout)
    assert unread(world, "worker") == [msg_id]
    assert proc.stderr.startswith(
        "hail: filed, but the pending record could not be written (No space left on device)"
    ), proc.stderr


def test_a_hold_on_a_full_disk_files_nothing(world: World) -> None:
    know(world, "boss", "worker")
    with full_disk(world.state / "holds"):
        proc = world.run("worker", "hold", "--scope", "src/auth", "HOLD: auth")
    assert proc.returncode == 1, proc.stderr
    assert "(No space left on device); nothing was sent" in proc.stderr
    assert unread(world, "worker") == []
