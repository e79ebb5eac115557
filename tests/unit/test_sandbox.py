"""Telling a sandbox from a broken install: a refused state write, a refused tmux socket."""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from hail.sandbox import denied_write, socket_refused
from hail.transport.tmux import unreachable_reason


def test_a_refused_write_names_the_path_the_sandbox_and_the_codex_fix() -> None:
    exc = OSError(errno.EROFS, "Read-only file system", "/home/u/.local/state/hail/ids")
    text = denied_write(exc)
    assert text is not None
    assert text.startswith(
        "cannot write /home/u/.local/state/hail/ids (Read-only file system): this command may run"
        " in a sandbox"
    )
    assert "install hail's rule (hail setup)" in text
    assert "not in a pipeline, an && chain, a heredoc or bash -lc" in text


@pytest.mark.parametrize(
    "exc", [OSError(errno.ENOSPC, "No space left on device", "/x"), ValueError("x"), OSError()]
)
def test_other_failures_are_not_taken_for_a_sandbox(exc: BaseException) -> None:
    assert denied_write(exc) is None


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A directory whose socket paths fit AF_UNIX's limit (pytest's tmp_path may not)."""
    path = Path(f"/tmp/hail-sbx-{os.getpid()}")
    path.mkdir(mode=0o700)
    try:
        yield path
    finally:
        for p in path.iterdir():
            p.unlink()
        path.rmdir()


def test_a_live_or_a_stale_socket_is_no_sandbox(short_dir: Path) -> None:
    live = short_dir / "live"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(live))
        server.listen(1)
        assert socket_refused(str(live)) is None
    stale = short_dir / "stale"  # bound, never listened on: connecting is refused
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(stale))
    assert socket_refused(str(stale)) is None


def test_a_socket_this_process_may_not_connect_to_reads_as_a_sandbox(
    short_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = short_dir / "default"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen(1)

        def forbidden(self: socket.socket, address: object) -> None:
            raise PermissionError(errno.EPERM, "Operation not permitted")

        monkeypatch.setattr(socket.socket, "connect", forbidden)
        text = socket_refused(str(path))
        assert text is not None
        assert text.startswith(
            f"tmux socket {path} exists but this process may not connect to it"
            " (Operation not permitted): a sandbox?"
        )
        assert unreachable_reason({"TMUX": f"{path},123,0"}) == text
    assert unreachable_reason({"TMUX_TMPDIR": str(short_dir / "none")}) == "no tmux server"
