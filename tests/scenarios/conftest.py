"""The scenario harness on a scratch tmux server: pane SENDER (`bash --norc` in `boss`) and pane
RECV (`cat` in `worker`), the installed `hail` run as a real subprocess from a pane's directory.

The server is the `scratch_tmux` fixture's (tests/support/tmux.py): its own socket, its own
TMUX_TMPDIR, killed with everything its panes started in a finalizer that never raises.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.entry import HailRun, run_hail
from tests.support.procs import wait_until
from tests.support.tmux import ScratchTmux
from tests.support.world import Seats, clean_env

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.tmux)


@dataclass
class Scene(Seats):
    """The scratch world: seat directories, a state root and a private tmux server."""

    server: ScratchTmux
    env: dict[str, str]
    recv: str = ""

    # --- tmux -----------------------------------------------------------------------------------

    @property
    def socket(self) -> str:
        return self.server.socket

    @property
    def sender(self) -> str:
        return self.server.first_pane

    def tmux(self, *args: str, check: bool = True) -> str:
        return self.server.cmd(*args, check=check)

    def new_pane(self, cwd: Path, *argv: str, env: Mapping[str, str] | None = None) -> str:
        """Start argv in a new window; its pane id."""
        return self.server.new_window(cwd, argv, env)

    def respawn(self, pane: str, cwd: Path, script: str) -> None:
        """Restart the pane (same id) with a fresh screen running `sh -c script`."""
        self.server.respawn(pane, cwd, ["sh", "-c", script])

    def show_then_cat(self, pane: str, cwd: Path, lines: list[str]) -> None:
        """Make the pane show `lines`, then run `cat` (still an agent under bash,cat)."""
        text_file = self.root / f"screen-{pane[1:]}-{time.monotonic_ns()}.txt"
        text_file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        self.respawn(pane, cwd, f"cat '{text_file}'; exec cat")
        assert wait_until(
            lambda: lines[-1].strip() in self.screen(pane) and self.command(pane) == "cat"
        )

    def command(self, pane: str) -> str:
        return self.server.command(pane)

    def screen(self, pane: str) -> str:
        return self.server.capture(pane)

    def count(self, pane: str, text: str) -> int:
        return sum(1 for line in self.screen(pane).split("\n") if text in line)

    def wait_count(self, pane: str, text: str, n: int, timeout: float = 10.0) -> bool:
        return wait_until(lambda: self.count(pane, text) == n, timeout)

    def in_mode(self, pane: str) -> bool:
        return self.server.display(pane, "#{pane_in_mode}") == "1"

    def pane_path(self, pane: str) -> Path:
        return Path(self.server.display(pane, "#{pane_current_path}"))

    # --- hail -----------------------------------------------------------------------------------

    def as_pane(
        self,
        pane: str,
        *args: str,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 60,
    ) -> HailRun:
        """Run the installed hail from the pane's directory with TMUX_PANE=pane; stdin /dev/null."""
        full = {**self.env, "HAIL_SOCKET": self.socket, "TMUX_PANE": pane, **(env or {})}
        full = {k: v for k, v in full.items() if v is not None}
        return self.run(
            *args, cwd=cwd or self.pane_path(pane), env=full, stdin=stdin, timeout=timeout
        )

    def run(
        self,
        *args: str,
        cwd: Path,
        env: Mapping[str, str] | None = None,
        stdin: str | bytes | None = None,
        timeout: float = 60,
    ) -> HailRun:
        env = env if env is not None else {**self.env, "HAIL_SOCKET": self.socket}
        proc = run_hail(*args, cwd=cwd, env=env, stdin=stdin, timeout=timeout)
        return HailRun(list(args), proc.returncode, proc.stdout, proc.stderr)

    # --- state ----------------------------------------------------------------------------------

    def new_files(self, mailbox: str) -> list[str]:
        d = self.state / "seats" / mailbox / "new"
        return sorted(os.listdir(d)) if d.is_dir() else []

    def all_files(self) -> list[str]:
        if not self.state.exists():
            return []
        return sorted(str(p.relative_to(self.state)) for p in self.state.rglob("*"))


def base_env(root: Path) -> dict[str, str]:
    return {**clean_env(root), "LANG": "C.UTF-8", "TERM": "xterm-256color"}


@pytest.fixture
def scene(scratch_tmux: ScratchTmux) -> Iterator[Scene]:
    """SENDER (`bash --norc` in boss) and RECV (`cat` in worker) on a private 300x50 server."""
    # A short root: `hail demo` starts its own tmux servers under it, and a socket path must fit
    # in 108 bytes.
    root = Path(tempfile.mkdtemp(prefix="ht"))
    (root / "home").mkdir()
    scratch_tmux.env.update(base_env(root))
    s = Scene(root, scratch_tmux, dict(scratch_tmux.env))
    try:
        s.make_seat("boss")
        s.make_seat("worker")
        scratch_tmux.new_session(s.seat_dir("boss"), ["bash", "--norc"], width=300, height=50)
        s.recv = s.new_pane(s.seat_dir("worker"), "cat")
        assert wait_until(lambda: s.command(s.recv) == "cat" and "bash" in s.screen(s.sender))
        yield s
    finally:
        scratch_tmux.kill()
        shutil.rmtree(root, ignore_errors=True)


def script_command(root: Path, name: str, script: Path, *args: str) -> Path:
    """An executable named `name` that runs `script` with this interpreter: its process name (ps
    comm) is `name`, as a real agent binary's would be."""
    bindir = root / "bin"
    bindir.mkdir(exist_ok=True)
    impl = bindir / f"{name}-impl"
    argv = "".join(f"{a!r}, " for a in args)
    impl.write_text(
        f"#!{sys.executable}\n"
        "import runpy, sys\n"
        f"sys.argv = [{str(script)!r}, {argv}*sys.argv[1:]]\n"
        f"runpy.run_path({str(script)!r}, run_name='__main__')\n"
    )
    impl.chmod(0o755)
    link = bindir / name
    link.symlink_to(impl.name)
    return link
