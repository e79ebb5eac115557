"""A private tmux server for one test, and the one reaper that ends it.

Like libtmux's pytest plugin (a server on a socket of its own, killed at teardown, its socket file
removed), and stricter, because hail's tests start agents in their panes:

- `tmux -u -L <unique> -f /dev/null`: no user configuration;
- `TMUX_TMPDIR` is a fresh short directory (a socket path must fit in 108 bytes), so even tmux's
  fallback to a default server could only reach a scratch one, never the user's;
- the server starts with the environment the test built, so its panes inherit nothing of the
  process running pytest (no `TMUX`, `TMUX_PANE` or `HAIL_SOCKET`);
- `kill` ends the server and every process that ever ran in its panes, by pid, removes the socket
  file and the directory, and never raises (a failing finalizer would hide the test's failure).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.support.procs import alive, descendants, wait_until


class TmuxCommandError(RuntimeError):
    """A tmux command of the test's own exited non-zero."""


class ScratchTmux:
    """A scratch server: set `env` as the panes should see it, then `new_session`."""

    def __init__(self, env: Mapping[str, str], prefix: str = "hailtest") -> None:
        self.name = f"{prefix}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.tmpdir = Path(tempfile.mkdtemp(prefix="ht"))
        self.env = {**env, "TMUX_TMPDIR": str(self.tmpdir)}
        self.socket = ""
        self.first_pane = ""
        self._pids: set[int] = set()

    def new_session(
        self, cwd: Path, argv: Sequence[str], *, width: int = 200, height: int = 50
    ) -> str:
        """Start the server with one session running `argv` in `cwd`; returns its pane id."""
        size = ("-x", str(width), "-y", str(height))
        self.cmd("new-session", "-d", "-s", "t", *size, "-c", str(cwd), "--", *argv)
        self.cmd("set-option", "-g", "history-limit", "5000")
        self.socket = self.cmd("display-message", "-p", "#{socket_path}").strip()
        self._pids.add(int(self.cmd("display-message", "-p", "#{pid}").strip()))
        self.first_pane = self.cmd("display-message", "-p", "#{pane_id}").strip()
        self._remember()
        return self.first_pane

    def cmd(self, *args: str, check: bool = True) -> str:
        """Run a tmux command against this server only; its stdout."""
        proc = subprocess.run(
            ["tmux", "-u", "-L", self.name, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        if check and proc.returncode != 0:
            raise TmuxCommandError(f"tmux {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def new_window(
        self, cwd: Path, argv: Sequence[str], env: Mapping[str, str] | None = None
    ) -> str:
        """Start argv in a new window (with `env` added to the server's); returns its pane id."""
        env_args = [a for k, v in (env or {}).items() for a in ("-e", f"{k}={v}")]
        pane = self.cmd(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(cwd), *env_args, "--", *argv
        ).strip()
        self._remember()
        return pane

    def respawn(self, pane: str, cwd: Path, argv: Sequence[str]) -> None:
        """Restart the pane (same id) with a fresh screen running argv."""
        self.cmd("respawn-pane", "-k", "-t", pane, "-c", str(cwd), "--", *argv)
        self.cmd("clear-history", "-t", pane)
        self._remember()

    def display(self, pane: str, fmt: str) -> str:
        """A format (`#{pane_current_command}` …) as tmux expands it for the pane."""
        return self.cmd("display-message", "-t", pane, "-p", fmt).strip()

    def command(self, pane: str) -> str:
        return self.display(pane, "#{pane_current_command}")

    def capture(self, pane: str) -> str:
        """The visible screen, wrapped lines joined (what hail's guard reads)."""
        return self.cmd("capture-pane", "-p", "-J", "-t", pane)

    def kill_window(self, pane: str) -> None:
        """Close the window of `pane` (SIGHUP, as when a user closes it) and wait until every
        process that ran in it has exited."""
        pids = descendants([int(self.display(pane, "#{pane_pid}"))])
        self.cmd("kill-window", "-t", pane)
        if not wait_until(lambda: not any(alive(p) for p in pids), 15):
            raise AssertionError(f"processes of {pane} still alive 15 s after kill-window")

    def _remember(self) -> None:
        out = self.cmd("list-panes", "-a", "-F", "#{pane_pid}", check=False)
        self._pids.update(int(p) for p in out.split() if p.isdigit())

    def kill(self) -> None:
        """The reaper: end the server and everything its panes started, by pid; remove the socket
        file and the directory. Never raises."""
        with contextlib.suppress(Exception):
            self._remember()
        pids = descendants(sorted(self._pids))
        with contextlib.suppress(Exception):
            self.cmd("kill-server", check=False)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
            if wait_until(lambda: not any(alive(p) for p in pids), 3):
                break
        shutil.rmtree(self.tmpdir, ignore_errors=True)  # the socket file lies inside
