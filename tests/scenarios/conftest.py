"""The scenario harness on a scratch tmux server: pane SENDER (`bash --norc` in `boss`) and pane
RECV (`cat` in `worker`), the installed `hail` run as a real subprocess from a pane's directory.

The server is `tmux -L hailtest-<pid>-<n> -f /dev/null` with TMUX_TMPDIR pointing at a private
directory, so even tmux's default-server fallback could only reach a scratch server, never the
user's. It is killed, with everything its panes started, in a finalizer that never raises.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.entry import run_hail
from tests.support.ids import id_of
from tests.support.procs import alive, descendants, wait_until
from tests.support.world import Seats, clean_env

HERE = Path(__file__).resolve().parent
_SERVERS = itertools.count(1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.tmux)


@dataclass
class Result:
    rc: int
    out: str
    err: str

    @property
    def id(self) -> str:
        return id_of(self.out)


@dataclass
class Scene(Seats):
    """The scratch world: seat directories, a state root and a private tmux server."""

    name: str
    env: dict[str, str]
    socket: str = ""
    sender: str = ""
    recv: str = ""
    _pids: set[int] = field(default_factory=set)

    # --- tmux -----------------------------------------------------------------------------------

    def tmux(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(
            ["tmux", "-u", "-L", self.name, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def new_pane(self, cwd: Path, *argv: str, env: Mapping[str, str] | None = None) -> str:
        """Start argv in a new window; its pane id."""
        env_args = [a for k, v in (env or {}).items() for a in ("-e", f"{k}={v}")]
        pane = self.tmux(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(cwd), *env_args, "--", *argv
        ).strip()
        self._remember()
        return pane

    def respawn(self, pane: str, cwd: Path, script: str) -> None:
        """Restart the pane (same id) with a fresh screen running `sh -c script`."""
        self.tmux("respawn-pane", "-k", "-t", pane, "-c", str(cwd), "--", "sh", "-c", script)
        self.tmux("clear-history", "-t", pane)
        self._remember()

    def show_then_cat(self, pane: str, cwd: Path, lines: list[str]) -> None:
        """Make the pane show `lines`, then run `cat` (still an agent under bash,cat)."""
        text_file = self.root / f"screen-{pane[1:]}-{time.monotonic_ns()}.txt"
        text_file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        self.respawn(pane, cwd, f"cat '{text_file}'; exec cat")
        assert wait_until(
            lambda: lines[-1].strip() in self.screen(pane) and self.command(pane) == "cat"
        )

    def command(self, pane: str) -> str:
        return self.tmux("display-message", "-t", pane, "-p", "#{pane_current_command}").strip()

    def screen(self, pane: str) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", pane)

    def count(self, pane: str, text: str) -> int:
        return sum(1 for line in self.screen(pane).split("\n") if text in line)

    def wait_count(self, pane: str, text: str, n: int, timeout: float = 10.0) -> bool:
        return wait_until(lambda: self.count(pane, text) == n, timeout)

    def in_mode(self, pane: str) -> bool:
        return self.tmux("display-message", "-t", pane, "-p", "#{pane_in_mode}").strip() == "1"

    def pane_path(self, pane: str) -> Path:
        return Path(self.tmux("display-message", "-t", pane, "-p", "#{pane_current_path}").strip())

    def _remember(self) -> None:
        out = self.tmux("list-panes", "-a", "-F", "#{pane_pid}", check=False)
        self._pids.update(int(p) for p in out.split() if p.isdigit())

    # --- hail -----------------------------------------------------------------------------------

    def as_pane(
        self,
        pane: str,
        *args: str,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 60,
    ) -> Result:
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
    ) -> Result:
        env = env if env is not None else {**self.env, "HAIL_SOCKET": self.socket}
        proc = run_hail(*args, cwd=cwd, env=env, stdin=stdin, timeout=timeout)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    # --- state ----------------------------------------------------------------------------------

    def new_files(self, mailbox: str) -> list[str]:
        d = self.state / "seats" / mailbox / "new"
        return sorted(os.listdir(d)) if d.is_dir() else []

    def all_files(self) -> list[str]:
        if not self.state.exists():
            return []
        return sorted(str(p.relative_to(self.state)) for p in self.state.rglob("*"))

    # --- teardown -------------------------------------------------------------------------------

    def kill(self) -> None:
        """End the server and every process its panes started, by pid. Never raises."""
        with contextlib.suppress(Exception):
            self._remember()
        pids = descendants(sorted(self._pids))
        with contextlib.suppress(Exception):
            self.tmux("kill-server", check=False)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
            if wait_until(lambda: not any(alive(p) for p in pids), 3):
                return


def base_env(root: Path) -> dict[str, str]:
    return {
        **clean_env(root),
        "TMUX_TMPDIR": str(root / "tmux"),
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
    }


@pytest.fixture
def scene() -> Iterator[Scene]:
    """SENDER (`bash --norc` in boss) and RECV (`cat` in worker) on a private 300x50 server."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    # A short root: a tmux socket path must fit in 108 bytes.
    root = Path(tempfile.mkdtemp(prefix="ht"))
    (root / "home").mkdir()
    (root / "tmux").mkdir(mode=0o700)
    s = Scene(root, f"hailtest-{os.getpid()}-{next(_SERVERS)}", base_env(root))
    try:
        s.make_seat("boss")
        s.make_seat("worker")
        s.tmux(
            "new-session", "-d", "-s", "t", "-x", "300", "-y", "50",
            "-c", str(s.seat_dir("boss")), "--", "bash", "--norc",
        )  # fmt: skip
        s.tmux("set-option", "-g", "history-limit", "5000")
        s.socket = s.tmux("display-message", "-p", "#{socket_path}").strip()
        s.sender = s.tmux("display-message", "-p", "#{pane_id}").strip()
        s.recv = s.new_pane(s.seat_dir("worker"), "cat")
        assert wait_until(lambda: s.command(s.recv) == "cat" and "bash" in s.screen(s.sender))
        yield s
    finally:
        s.kill()
        shutil.rmtree(root, ignore_errors=True)


def script_command(root: Path, name: str, script: Path, *args: str) -> Path:
    """An executable named `name` that runs `script` with this interpreter: its process name (ps
    comm) is `name`, as a real agent binary's would be."""
    bindir = root / "bin"
    bindir.mkdir(exist_ok=True)
    impl = bindir / f"{name}-impl"
    argv = ", ".join(repr(a) for a in args)
    impl.write_text(
        f"#!{sys.executable}\n"
        "import runpy, sys\n"
        f"sys.argv = [{str(script)!r}, {argv}]\n"
        f"runpy.run_path({str(script)!r}, run_name='__main__')\n"
    )
    impl.chmod(0o755)
    link = bindir / name
    link.symlink_to(impl.name)
    return link
