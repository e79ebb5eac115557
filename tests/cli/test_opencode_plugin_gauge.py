"""hail's opencode plugin records the gauge's figures [docs/gauge.md "opencode"]: run by node as
setup renders it, with a stand-in opencode client that replays the events opencode 1.18.33 sent
(measured: `message.updated` with a reply's tokens and cost, `chat.params` with its model's
window), beside the installed `hail`. The record lands in the pane's mailbox directory, whole and
0600, and hail's reader reads it back."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from hail.config import Config
from hail.gauge.base import Where
from hail.gauge.choose import reader
from hail.gauge.opencode import record_path
from hail.install import opencode_plugin
from tests.support.entry import hail_bin
from tests.support.world import World

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def reply(msg_id: str, session: str, tokens: tuple[int, int, int, int, int], cost: float,
          completed: int | None, model: str = "fake-model") -> dict[str, object]:  # fmt: skip
    """An assistant message as opencode's `message.updated` carries it: input (fresh), output,
    reasoning, cache read, cache write."""
    fresh, output, reasoning, read, write = tokens
    time: dict[str, int] = {"created": 1796401624823}
    if completed is not None:
        time["completed"] = completed
    return {
        "id": msg_id, "sessionID": session, "role": "assistant", "providerID": "fake",
        "modelID": model, "cost": cost, "time": time,
        "tokens": {"input": fresh, "output": output, "reasoning": reasoning,
                   "cache": {"read": read, "write": write}},
    }  # fmt: skip


EARLIER = reply("msg_0", "ses_1", (1000, 10, 0, 9000, 100), 0.01, 1796401600000)
FIRST = reply("msg_1", "ses_1", (3201, 42, 0, 22003, 0), 0.0168339, 1796401627098)
SECOND = reply("msg_2", "ses_1", (3301, 43, 5, 23003, 7), 0.0174489, 1796401627192)
CHILD = reply("msg_c", "ses_child", (1, 1, 1, 1, 1), 9.0, 1796401627300)


def updated(info: dict[str, object]) -> dict[str, object]:
    return {"event": {"type": "message.updated", "properties": {"sessionID": info["sessionID"], "info": info}}}  # fmt: skip


def params(agent: str, model: str, window: int) -> dict[str, object]:
    model_info = {"id": model, "providerID": "fake", "limit": {"context": window, "output": 8000}}
    return {"params": {"sessionID": "ses_1", "agent": agent, "model": model_info}}


STEPS = [
    params("build", "fake-model", 200000),
    updated({**FIRST, "time": {"created": 1796401624823}}),  # streaming: not complete yet
    updated(FIRST),
    params("title", "small-model", 1000),  # the title agent's model: not the replies' window
    updated(SECOND),
    updated(FIRST),  # an older reply again: the newest stays the newest
    updated(CHILD),  # last, a sub-agent's session: its context is not this one's
]

#: A stand-in opencode: lists the session's replies (one from before this process: a resumed
#: session), says which session is a sub-agent's, and plays STEPS to the plugin's hooks.
DRIVER = """
import { Hail } from "./hail.mjs"
const steps = JSON.parse(process.env.STEPS)
const earlier = JSON.parse(process.env.EARLIER)
const client = {
  session: {
    get: async ({ path }) => ({ data: path.id === "ses_child" ? { parentID: "ses_1" } : {} }),
    messages: async ({ path }) => ({
      data: path.id === "ses_1" ? [{ info: { role: "user", id: "msg_u" }, parts: [] }, { info: earlier, parts: [] }] : [],
    }),
    promptAsync: async () => {},
  },
}
const hooks = await Hail({ client, directory: process.env.SEAT_DIR })
for (const step of steps) {
  if (step.params) await hooks["chat.params"](step.params, {})
  else await hooks.event(step)
  await new Promise((resolve) => setTimeout(resolve, 100))
}
console.log(JSON.stringify({ pid: process.pid }))
setTimeout(() => process.exit(0), 30000)
"""


def test_the_plugin_records_the_newest_reply_the_window_and_the_sessions_totals(
    world: World, tmp_path: Path
) -> None:
    assert world.run("whoami", cwd="worker").returncode == 0  # the mailbox hail's hooks made
    mailbox = world.state / "seats" / "worker"
    (mailbox / "gauge-opencode-999999999").write_text("input: 1\n")  # an ended process's
    (mailbox / "gauge-opencode-1").write_text("input: 1\n")  # a running one's (init's pid)
    plugin_dir = tmp_path / "plugin"
    plugin_dir.mkdir()
    (plugin_dir / "hail.mjs").write_text(opencode_plugin.render(hail_bin()))
    (plugin_dir / "driver.mjs").write_text(DRIVER)
    assert NODE is not None
    env = {**world.env, "SEAT_DIR": str(world.root / "worker"), "STEPS": json.dumps(STEPS),
           "EARLIER": json.dumps(EARLIER)}  # fmt: skip
    driver = subprocess.Popen(
        [NODE, str(plugin_dir / "driver.mjs")],
        cwd=plugin_dir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert driver.stdout is not None
        pid = json.loads(driver.stdout.readline())["pid"]  # every step's hooks have returned
        path = Path(record_path(str(mailbox), pid))
        assert path.exists(), sorted(os.listdir(mailbox))
        text = path.read_text()
        assert "session: ses_1\n" in text and "replies: 3\n" in text, text
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert not [n for n in os.listdir(mailbox) if n.endswith(".tmp")], "renamed into place"
        assert not (mailbox / "gauge-opencode-999999999").exists(), "an ended process's record goes"
        assert (mailbox / "gauge-opencode-1").exists(), "a running process's record stays"
        gauge = reader("opencode").gauge(Where(str(path), session="ses_1"), Config())
        assert gauge.context.value == 3301 + 23003 + 7, text
        assert (gauge.window.value, gauge.model) == (200000, "fake/fake-model"), text
        assert (
            gauge.spent.value
            == 1000 + 10 + 9000 + 100 + 3201 + 42 + 22003 + 3301 + 43 + 5 + 23003 + 7
        )
        assert gauge.cost.value == pytest.approx(0.01 + 0.0168339 + 0.0174489)
    finally:
        driver.kill()
        driver.wait(10)
