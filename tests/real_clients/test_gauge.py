"""The context gauge against the real clients [docs/gauge.md]: each pinned client writes, after a
prompt whose answer takes two model calls (a tool call, then the answer), the figures hail's
reader reads back: the *last* call's tokens in context, the window and its share, and opencode's
cost. The fakes report distinct usage for every call (`fake_http.usage_for`), so an earlier
call's figure, or the session's, cannot pass for the last one's. `hail seats --json` and `hail
watch --json` then show those figures for the agent's pane, found through the agent record its
hooks wrote, with the person's prompt as its task line; after a send wakes it, the waking
message's headline.

Where to look is found as the integration will find it: Claude Code, Codex and Gemini CLI name
their file in every hook payload (`transcript_path`, read here from the probe hook's log, with the
model SessionStart names); opencode's is the record hail's plugin writes in the pane's mailbox.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hail.config import Config
from hail.gauge.base import Gauge, Where
from hail.gauge.choose import reader
from hail.gauge.opencode import RECORD_PREFIX

from .clients import FAKE_OPENCODE_MODEL, Agent
from .evidence import eventually
from .fake_http import JSON
from .world import World

#: The window each client's figures are read against, and where it comes from.
WINDOWS = {
    "claude": (1_000_000, "hail-table"),  # claude-opus-5-5 in Claude Code 2.1.332's registry
    "codex": (258_400, "rollout"),
    "gemini": (1_048_576, "gemini-cli-table"),
    "opencode": (200_000, "plugin-record"),  # the fake model's limit.context
}


def two_calls(world: World, client: str) -> str:
    """A prompt the fake answers with a tool call, then with text once the tool's output is in:
    `echo hi`, which each client runs unasked but Gemini CLI, whose settings allow the wait tool
    (a short line: opencode's composer wraps a long one, and the typing check misses it)."""
    return f"RUN_CMD {world.wait_tool} ." if client == "gemini" else "RUN_BASH please"


def where_of(world: World, agent: Agent) -> Where:
    """Where the agent's figures are, from what its hooks were given (or its plugin wrote)."""
    if agent.client == "opencode":
        mailbox = world.state / "hail" / "seats" / "worker"
        records = sorted(mailbox.glob(f"{RECORD_PREFIX}*"))
        assert len(records) == 1, records
        pid = int(records[0].name.removeprefix(RECORD_PREFIX))
        assert any(p == pid for p, _ in world.processes()), "the record names this opencode"
        return Where(str(records[0]))
    calls = agent.hook_calls()
    payloads = [c["payload"] for c in calls if isinstance(c["payload"], dict)]
    paths = {str(p["transcript_path"]) for p in payloads if p.get("transcript_path")}
    assert len(paths) == 1, paths
    started = [p for p in payloads if p.get("hook_event_name") == "SessionStart"]
    model = str(started[-1].get("model") or "") if started else ""
    return Where(paths.pop(), model)


def opencode_cost(turns: list[JSON]) -> float:
    """What opencode charges for the session's calls at the fake model's prices (per million)."""
    cost = FAKE_OPENCODE_MODEL["cost"]
    assert isinstance(cost, dict)
    rates = {"fresh": "input", "cache_read": "cache_read", "cache_write": "cache_write"}
    total = 0.0
    for turn in turns:
        usage = turn["usage"]
        total += sum(usage[kind] * float(cost[rate]) for kind, rate in rates.items())
        total += usage["output"] * float(cost["output"])
    return total / 1e6


@pytest.mark.parametrize("kind", ["claude", "codex-daemon", "gemini", "opencode"])
def test_the_last_calls_context_and_the_window_and_the_task_line_in_seats_and_watch(
    world: World, kind: str
) -> None:
    client = kind.removesuffix("-daemon")
    agent = world.start(client, daemon=kind == "codex-daemon")
    fake = world.fake_for(agent)
    world.tmux.submit(agent.pane, two_calls(world, client))
    agent.wait_stops(1, timeout=90)
    turns = fake.turns()
    assert [t["reply"] for t in turns[-2:]] == ["tool", "text"], "a tool call, then the answer"
    last, before = turns[-1]["usage"], turns[-2]["usage"]
    assert last["context"] != before["context"]
    where = where_of(world, agent)
    gauge_of = reader(client).gauge

    def settled() -> Gauge | None:
        gauge = gauge_of(where, Config())
        return gauge if gauge.context.value == last["context"] else None

    try:
        gauge = eventually(settled, "the gauge read the last call's context", timeout=15)
    except AssertionError:
        raise AssertionError(f"{gauge_of(where, Config()).as_json()} at {where.path}") from None
    window, source = WINDOWS[client]
    print(f"FIGURE {kind}: {gauge.as_json()} ({gauge.bytes_read} bytes read)")
    assert (gauge.window.value, gauge.window.source) == (window, source)
    assert gauge.percent() == pytest.approx(100 * last["context"] / window)
    spent = sum(t["usage"]["context"] + t["usage"]["output"] for t in turns)
    if client == "opencode":
        assert gauge.cost.value == pytest.approx(opencode_cost(turns), rel=1e-6)
        assert gauge.cost.source == "plugin-record"
        assert gauge.spent.value == spent
    else:
        assert gauge.cost.value is None, "no price was given: hail invents none"
        assert gauge.spent.value == spent, "the session's calls, each once"
    assert Path(where.path).exists()
    shown = shown_agent(world, agent, last["context"])
    assert shown["task"] == two_calls(world, client), "the person's prompt"
    figures = shown["gauge"]
    assert figures["context"] == {"value": last["context"], "source": reader(client).source}
    assert figures["window"] == {"value": window, "source": source}
    assert figures["percent"] == round(100 * last["context"] / window, 1)
    if client == "opencode":
        assert figures["cost"]["value"] == pytest.approx(opencode_cost(turns), rel=1e-6)
    headline = "GAUGE: the woken turn's task"
    assert world.send("worker", headline).rc in (0, 5)
    agent.wait_stops(2, timeout=90)
    eventually(lambda: task_of(world, agent, headline), "the waking message's headline", 15)


Shown = dict[str, Any]


def agents_of(world: World, verb: str) -> list[Shown]:
    """The agents `hail <verb> --json` shows in the worker's rows."""
    run = world.hail([verb, "--json"])
    assert run.rc == 0, run.err
    rows = json.loads(run.out)["seats"]
    return [a for r in rows if r["mailbox"] == "worker" for a in r["agents"]]


def shown_agent(world: World, agent: Agent, context: int) -> Shown:
    """The agent as `hail seats --json` and `hail watch --json` both show it, once they show the
    last call's context and agree on every field (one row builder)."""

    def both() -> Shown | None:
        seen = [
            next((a for a in agents_of(world, verb) if a["pane"] == agent.pane), None)
            for verb in ("seats", "watch")
        ]
        shows = [a is not None and a["gauge"] and a["gauge"]["context"]["value"] for a in seen]
        if shows != [context, context]:
            return None
        # The two reads are moments apart: an agent finishing its turn in between shows busy in
        # one and idle in the other. Read again until both agree; never agreeing fails below.
        return seen[0] if seen[0] == seen[1] else None

    try:
        return eventually(both, "seats and watch show the last call's context", timeout=15)
    except AssertionError:
        raise AssertionError(f"{agents_of(world, 'seats')}\n{world.report()}") from None


def task_of(world: World, agent: Agent, task: str) -> Shown | None:
    found = [a for a in agents_of(world, "seats") if a["pane"] == agent.pane]
    return found[0] if found and found[0]["task"] == task else None
