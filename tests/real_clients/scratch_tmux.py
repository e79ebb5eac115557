"""The scratch tmux server of tests/support, with what the real clients need besides: a pane
that stays after its client exits (its last screen is the failure report), and typing a line the
way hail does."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.support.procs import wait_until
from tests.support.tmux import ScratchTmux

WIDTH, HEIGHT = 200, 50


class ClientTmux(ScratchTmux):
    def __init__(self, env: Mapping[str, str], first_cwd: Path, first_cmd: Sequence[str]) -> None:
        super().__init__(env, prefix="hail-rc")
        try:
            self.new_session(first_cwd, first_cmd, width=WIDTH, height=HEIGHT)
            self.cmd("set-option", "-g", "remain-on-exit", "on")
        except BaseException:
            self.kill()
            raise

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
