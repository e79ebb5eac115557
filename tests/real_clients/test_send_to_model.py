"""Send to model, five sends into one idle session of each client (docs/performance.md "Send to
model, per client"): the seconds from a send's start to the model request that carried its body,
and the send's own time, printed as FIGURE lines with their median.

Each session has had a prompt first, as a session a peer writes to has: a client's first turn
does work of its own once (Claude Code gathers its context for the first request: about 0.13 s
more). Claude Code's UserPromptSubmit runs only hail's hook here: the suite's probe hook, a second
interpreter start that Claude Code waits for, is left off that event (the other tests keep it, to
read the prompts). Every send must still arrive once, framed, with nothing typed on the native
routes and its receipt `injected`."""

from __future__ import annotations

import json
import statistics
import time

from .clients import Agent
from .evidence import delivery_tokens, eventually, first_delivery
from .test_native_wake import thread_record, waiter_record
from .test_opencode import started as opencode_started
from .world import World

SENDS = 5
HEADLINE = "please look at the parser change"


def without_the_prompt_probe(world: World) -> None:
    """Claude Code's settings with the probe hook left off UserPromptSubmit."""
    path = world.home / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    settings["hooks"]["UserPromptSubmit"] = [
        g
        for g in settings["hooks"]["UserPromptSubmit"]
        if not any("probe_hook" in h["command"] for h in g["hooks"])
    ]
    path.write_text(json.dumps(settings, indent=2) + "\n")


def session(world: World, kind: str) -> Agent:
    """The client, idle after one turn of its own."""
    if kind == "opencode":
        return opencode_started(world)
    if kind == "claude":
        without_the_prompt_probe(world)
    agent = world.start(
        "codex" if kind.startswith("codex") else kind, daemon=kind == "codex-daemon"
    )
    world.tmux.submit(agent.pane, "hello before the asks")
    agent.wait_stops(1, timeout=60)
    if kind == "claude":
        eventually(lambda: waiter_record(world, agent) or None, "the waiter listens")
    else:
        eventually(lambda: thread_record(world) or None, "hail recorded the Codex thread")
    eventually(lambda: agent.is_ready() or None, "the first turn ended")
    return agent


ROUTE = {
    "claude": "hail: woken:",
    "codex-daemon": "hail: queued:",
    "codex": "hail: typed:",  # without its daemon an empty composer is typed into
    "opencode": "hail: woken by its plugin:",
}


def one_send(world: World, agent: Agent, kind: str, n: int) -> tuple[float, float]:
    """The n-th send (from 0) into the idle session: seconds to the model, and the send's own."""
    fake = world.fake_for(agent)
    time.sleep(1.0)  # idle a moment, as between a peer's sends
    if kind == "claude":
        eventually(lambda: waiter_record(world, agent) or None, "the waiter listens")
    started = time.time()
    sent = world.send("worker", f"{HEADLINE} ({n + 1})", f"BODY-S2M-{n + 1} src/parse.py")
    done = time.time()
    assert sent.rc == 0 and sent.err.startswith(ROUTE[kind]), sent
    turn = eventually(lambda: first_delivery(fake, sent.id), "the framed body reached the model")
    agent.wait_stops(2 + n, timeout=30)
    eventually(lambda: agent.is_ready() or None, "the woken turn ended")
    assert len(delivery_tokens(fake, sent.id)) == 1, "delivered exactly once"
    assert world.hail(["sent", sent.id]).out.startswith("injected ")
    return turn["t"] - started, done - started


def test_five_sends_into_one_idle_session(world: World, send_to_model_kind: str) -> None:
    kind = send_to_model_kind
    agent = session(world, kind)
    totals, sends = zip(*(one_send(world, agent, kind, n) for n in range(SENDS)), strict=True)
    print(
        f"FIGURE send-to-model {kind}: median {statistics.median(totals):.2f} s of {SENDS} "
        f"(each {', '.join(f'{t:.2f}' for t in totals)}); the send's own: median "
        f"{statistics.median(sends) * 1000:.0f} ms (each {', '.join(f'{s * 1000:.0f}' for s in sends)})"
    )
