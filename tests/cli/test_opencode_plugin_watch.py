"""hail's opencode plugin as setup renders it, run by node with a stand-in opencode client and the
installed `hail` [docs/hooks.md "opencode"]: it reads hail's state from `hail whoami --json` (a
state path holding a space works) and watches every mailbox its pane's hooks read, so mail for
its pane's sub-seat, made after the plugin started, prompts the idle session."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from hail.install.formats import opencode_plugin
from hail.message import render
from tests.support.entry import hail_bin
from tests.support.world import World

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

#: A stand-in for opencode: it loads the plugin, ends a session's turn (so the plugin knows the
#: session a wake prompts), and prints each prompt the plugin gives it as one JSON line.
DRIVER = """
import { Hail } from "./hail.mjs"
const client = {
  session: {
    get: async () => ({ data: {} }),
    promptAsync: async (req) => console.log(JSON.stringify({ prompt: req.body.parts[0].text })),
  },
}
const hooks = await Hail({ client, directory: process.env.SEAT_DIR })
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } })
console.log(JSON.stringify({ ready: true }))
setTimeout(() => process.exit(0), 30000)
"""


class Lines:
    """The driver's stdout, line by line, read by a thread of its own."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.seen: list[str] = []
        assert proc.stdout is not None
        out = proc.stdout
        self.thread = threading.Thread(target=lambda: self.seen.extend(out), daemon=True)
        self.thread.start()

    def until(self, want: str, within: float) -> list[str]:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if any(want in line for line in self.seen):
                return list(self.seen)
            time.sleep(0.05)
        raise AssertionError(f"within {within} s no {want!r} in {self.seen}")


def test_the_plugin_watches_a_sub_seat_made_later_under_a_state_path_with_a_space(
    world: World, tmp_path: Path
) -> None:
    state = world.root / "state with space"
    env = {**world.env, "XDG_STATE_HOME": str(state), "TMUX_PANE": "%9"}
    seat = world.root / "worker"
    plugin_dir = tmp_path / "plugin"
    plugin_dir.mkdir()
    (plugin_dir / "hail.mjs").write_text(opencode_plugin.render(hail_bin()))
    (plugin_dir / "driver.mjs").write_text(DRIVER)
    assert NODE is not None
    driver = subprocess.Popen(
        [NODE, str(plugin_dir / "driver.mjs")],
        cwd=plugin_dir,
        env={**env, "SEAT_DIR": str(seat)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        lines = Lines(driver)
        lines.until('"ready"', 20)
        time.sleep(1.5)  # the plugin's `whoami --json` and its watches, run beside its start
        sub = state / "hail" / "seats" / "worker@%9"
        assert not sub.exists(), "no sub-seat when the plugin started"
        for part in ("tmp", "new", "cur"):
            (sub / part).mkdir(parents=True)
        text = render({"from": "boss", "reply": "boss", "kind": "ask", "id": "1201T120000-abcd",
                       "time": "2026-12-01T12:00:00Z", "ask": "for this pane"}, "BODY-SUB")  # fmt: skip
        (sub / "new" / "1201T120000-abcd.md").write_text(text)
        (sub / ".wake.1.tmp").write_text("1201T120000-abcd")
        os.rename(sub / ".wake.1.tmp", sub / "wake")  # as a send leaves its mark
        seen = lines.until("BODY-SUB", 15)
        prompt = json.loads(next(line for line in seen if "BODY-SUB" in line))["prompt"]
        assert prompt.startswith("hail: 1 peer message, framed by token ")
        assert (sub / "cur" / "1201T120000-abcd.injected.md").exists(), "claimed by its hook"
    finally:
        driver.kill()
        driver.wait(10)
