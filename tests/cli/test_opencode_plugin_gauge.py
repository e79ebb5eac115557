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
from hail.install.formats import opencode_plugin
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

#: A stand-in opencode: keeps every message it hands the plugin and lists a session's (one from
#: before this process among them: a resumed session), failing the first listing when FAIL_LIST
#: says so; says which session is a sub-agent's; plays STEPS to the plugin's hooks.
DRIVER = """
import { Hail } from "./hail.mjs"
const steps = JSON.parse(process.env.STEPS)
const stored = new Map([["msg_0", JSON.parse(process.env.EARLIER)]])
let failures = Number(process.env.FAIL_LIST || 0)
const client = {
  session: {
    get: async ({ path }) => ({ data: path.id === "ses_child" ? { parentID: "ses_1" } : {} }),
    messages: async ({ path }) => {
      if (failures-- > 0) throw new Error("the server is busy")
      const infos = [{ role: "user", id: "msg_u", sessionID: "ses_1" }, ...stored.values()]
      return { data: infos.filter((info) => info.sessionID === path.id).map((info) => ({ info, parts: [] })) }
    },
    promptAsync: async () => {},
  },
}
const hooks = await Hail({ client, directory: process.env.SEAT_DIR })
for (const step of steps) {
  if (step.params) await hooks["chat.params"](step.params, {})
  else if (step.chat) {
    const parts = [{ type: "text", text: step.chat, id: "prt_1" }]
    await hooks["chat.message"]({ sessionID: "ses_1" }, { parts, message: { id: "msg_p" } })
  } else {
    stored.set(step.event.properties.info.id, step.event.properties.info)
    await hooks.event(step)
  }
  await new Promise((resolve) => setTimeout(resolve, 100))
}
console.log(JSON.stringify({ pid: process.pid }))
setTimeout(() => process.exit(0), 30000)
"""


class Driver:
    """The stand-in run by node, with the plugin as setup renders it; `record` once every step's
    hooks have returned."""

    def __init__(self, world: World, tmp_path: Path, steps: list[dict[str, object]], fail_list: int = 0) -> None:  # fmt: skip
        plugin_dir = tmp_path / "plugin"
        plugin_dir.mkdir()
        (plugin_dir / "hail.mjs").write_text(opencode_plugin.render(hail_bin()))
        (plugin_dir / "driver.mjs").write_text(DRIVER)
        assert NODE is not None
        env = {**world.env, "SEAT_DIR": str(world.root / "worker"), "STEPS": json.dumps(steps),
               "EARLIER": json.dumps(EARLIER), "FAIL_LIST": str(fail_list)}  # fmt: skip
        self.proc = subprocess.Popen(
            [NODE, str(plugin_dir / "driver.mjs")],
            cwd=plugin_dir,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def record(self, mailbox: Path) -> Path:
        assert self.proc.stdout is not None
        pid = json.loads(self.proc.stdout.readline())["pid"]  # every step's hooks have returned
        path = Path(record_path(str(mailbox), pid))
        assert path.exists(), sorted(os.listdir(mailbox))
        return path

    def end(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


def test_the_plugin_records_the_newest_reply_the_window_and_the_sessions_totals(
    world: World, tmp_path: Path
) -> None:
    assert world.run("whoami", cwd="worker").returncode == 0  # the mailbox hail's hooks made
    mailbox = world.state / "seats" / "worker"
    (mailbox / "gauge-opencode-999999999").write_text("input: 1\n")  # an ended process's
    (mailbox / "gauge-opencode-1").write_text("input: 1\n")  # a running one's (init's pid)
    driver = Driver(world, tmp_path, STEPS)
    try:
        path = driver.record(mailbox)
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
        driver.end()


def test_totals_opencode_could_not_list_are_left_out_and_listed_at_the_next_reply(
    world: World, tmp_path: Path
) -> None:
    assert world.run("whoami", cwd="worker").returncode == 0
    mailbox = world.state / "seats" / "worker"
    driver = Driver(world, tmp_path, [updated(FIRST)], fail_list=1)
    try:
        text = driver.record(mailbox).read_text()
        assert "input: 3201\n" in text and "session-" not in text, "no partial totals"
    finally:
        driver.end()
    gauge_dir = tmp_path / "again"
    gauge_dir.mkdir()
    driver = Driver(world, gauge_dir, [updated(FIRST), updated(SECOND)], fail_list=1)
    try:
        text = driver.record(mailbox).read_text()
        assert "input: 3301\n" in text and "replies: 3\n" in text, text
    finally:
        driver.end()


def test_the_prompt_hook_records_the_task_line_and_the_plugins_record_as_its_file(
    world: World, tmp_path: Path
) -> None:
    """docs/gauge.md "The agent record": the plugin names its gauge record in every payload."""
    assert world.run("whoami", cwd="worker").returncode == 0
    mailbox = world.state / "seats" / "worker"
    driver = Driver(world, tmp_path, [STEPS[0], updated(FIRST), {"chat": "tidy the docs\nall"}])
    try:
        path = driver.record(mailbox)
        agent = (world.state / "presence" / "agent-ses_1").read_text()
        assert f"file: {path}\n" in agent and "task: tidy the docs\n" in agent, agent
        assert "agent: opencode\n" in agent and "mailbox: worker\n" in agent
    finally:
        driver.end()
