"""A private tmux server for one test: ``tmux -L <unique> -f /dev/null``, never the user's.

The server is started with the clean environment the test built, so its panes inherit nothing
from the process running pytest (no ``TMUX``, ``TMUX_PANE`` or ``HAIL_SOCKET``); tmux itself sets
``TMUX`` and ``TMUX_PANE`` in each pane, pointing at this server. ``kill`` ends the server and
every process that ever ran in its panes, by pid.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.support.procs import alive, descendants, wait_until

__all__ = ["ScratchTmux", "alive", "descendants", "wait_until"]

WIDTH, HEIGHT = 200, 50


class ScratchTmux:
    def __init__(self, env: Mapping[str, str], first_cwd: Path, first_cmd: Sequence[str]) -> None:
        self.name = f"hail-rc-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.env = dict(env)
        self.cmd(
            "new-session",
            "-d",
            "-s",
            "rc",
            "-x",
            str(WIDTH),
            "-y",
            str(HEIGHT),
            "-c",
            str(first_cwd),
            "--",
            *first_cmd,
        )
        self.socket = self.cmd("display-message", "-p", "#{socket_path}").strip()
        self.server_pid = int(self.cmd("display-message", "-p", "#{pid}").strip())
        # A client that exits leaves its last screen for the failure report.
        self.cmd("set-option", "-g", "remain-on-exit", "on")
        self.cmd("set-option", "-g", "history-limit", "5000")
        self.first_pane = self.cmd("display-message", "-p", "#{pane_id}").strip()
        self._pids: set[int] = {self.server_pid}

    def cmd(self, *args: str) -> str:
        proc = subprocess.run(
            ["tmux", "-L", self.name, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def new_window(self, cwd: Path, argv: Sequence[str], env: Mapping[str, str]) -> str:
        """Start argv in a new window; returns its pane id (``%N``)."""
        env_args = [a for k, v in env.items() for a in ("-e", f"{k}={v}")]
        pane = self.cmd(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(cwd), *env_args, "--", *argv
        ).strip()
        self._pids.update(self.pane_pids())
        return pane

    def pane_pids(self) -> list[int]:
        out = self.cmd("list-panes", "-a", "-F", "#{pane_pid}")
        return [int(p) for p in out.split()]

    def kill_window(self, pane: str) -> None:
        """Close the window of ``pane`` (SIGHUP, as when a user closes it) and wait until every
        process that ran in it has exited."""
        root = int(self.cmd("display-message", "-p", "-t", pane, "#{pane_pid}").strip())
        pids = descendants([root])
        self.cmd("kill-window", "-t", pane)
        if not wait_until(lambda: not any(alive(p) for p in pids), 15):
            raise AssertionError(f"processes of {pane} still alive 15 s after kill-window")

    def capture(self, pane: str) -> str:
        """The visible screen, wrapped lines joined (what hail's guard reads)."""
        return self.cmd("capture-pane", "-p", "-J", "-t", pane)

    def submit(self, pane: str, text: str) -> None:
        """Type one line the way hail does (text, wait until drawn, pause, Enter)."""
        self.cmd("send-keys", "-t", pane, "-l", "--", text)
        probe = "".join(text.split())[:40]
        if not wait_until(lambda: probe in "".join(self.capture(pane).split()), 10):
            raise AssertionError(f"typed text never showed in {pane}:\n{self.capture(pane)}")
        # Codex reads text and an Enter that arrive together as a paste (docs/real-clients.md
        # "Typing and Enter").
        time.sleep(max(0.3, 0.0007 * len(text)))
        self.cmd("send-keys", "-t", pane, "Enter")

    def kill(self) -> None:
        """End the server and everything its panes started, by pid."""
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self._pids.update(self.pane_pids())
        pids = descendants(sorted(self._pids))
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self.cmd("kill-server")
        with contextlib.suppress(OSError):
            os.unlink(self.socket)  # tmux leaves its socket file behind
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in pids:
                if alive(pid):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, sig)
            if wait_until(lambda: not any(alive(p) for p in pids), 3):
                return
