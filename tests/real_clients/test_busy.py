"""Mail reaches an agent in the middle of a turn, and nothing is typed into it.

Two ways of being busy, both held open by the test rather than by a timer:

- in a tool: the model calls ``wait-release <file>``, which runs until the test creates the
  file;
- waiting for the model: the fake starts a tool call and holds the rest of its reply until
  the test releases it.

hail types nothing into a busy pane (exit 0, ``busy: arrives at worker's next tool call or when
its turn ends``): before, Claude Code queued a typed envelope and Codex either held it or, while
waiting on its model, dropped the reply in progress. Now the body reaches the model through the
hooks — PostToolUse with the tool's result — with no prompt from anyone, the answer reaches the
screen intact, and the message is delivered exactly once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .clients import Agent
from .evidence import delivery_tokens, eventually, first_delivery, frame_start
from .fake_http import JSON, FakeServer, request_text
from .world import World

BUSY_NOTE = "hail: busy: arrives at worker's next tool call or when its turn ends\n"


def busy_in_tool(world: World, agent: Agent) -> Callable[[], None]:
    """Start a turn whose tool runs until the returned release is called."""
    release = world.root / "release"
    world.tmux.submit(agent.pane, f"RUN_CMD {world.wait_tool} {release}")
    eventually(lambda: agent.is_busy() or None, f"{agent.client} is busy")
    eventually(lambda: world.fake_for(agent).turns() or None, "the turn reached the fake")
    return lambda: release.touch()


def post_tool_use_context(turn: JSON, message_id: str) -> bool:
    """Whether the frame sits where PostToolUse context goes: in Codex, a developer message
    before the function_call_output (docs/real-clients.md "Codex hooks")."""
    items = turn["body"].get("input") or []
    kinds = [
        "frame"
        if frame_start(message_id).search(request_text({"body": item}))
        else item.get("type")
        for item in items
        if isinstance(item, dict)
    ]
    return "frame" in kinds and "function_call_output" in kinds[kinds.index("frame") :]


def assert_delivered_once(world: World, fake: FakeServer, message_id: str) -> None:
    assert len(delivery_tokens(fake, message_id)) == 1, "delivered exactly once"
    receipt = world.hail(["sent", message_id])
    assert receipt.out.startswith("injected "), receipt


def assert_nothing_typed(agent: Agent, message_id: str) -> None:
    assert message_id not in agent.screen(), "no envelope on the screen"
    assert not any(message_id in p for p in agent.prompts()), "no prompt carried it"


def send_while_busy(world: World, agent: Agent, headline: str, body: str) -> tuple[str, float]:
    """Send an ask to the busy agent: exit 0, the busy note, and a second later still nothing typed.
    The message id and when the send started."""
    sent_at = time.time()
    sent = world.send("worker", headline, body)
    assert sent.rc == 0, sent
    assert sent.err == BUSY_NOTE, sent
    time.sleep(1)
    assert_nothing_typed(agent, sent.id)
    return sent.id, sent_at


def hold_a_turn(world: World, agent: Agent, prompt: str) -> None:
    """Submit a prompt whose reply the fake holds: the agent waits on its model until released."""
    world.tmux.submit(agent.pane, prompt)
    eventually(lambda: world.fake_for(agent).turns() or None, "the held turn reached the fake")
    eventually(lambda: agent.is_busy() or None, f"{agent.client} is busy")


def figure(what: str, client: str, sent_at: float, turn: JSON) -> None:
    """Seconds from the send to the request that carried the body (printed for the report)."""
    print(f"FIGURE {what} {client}: {turn['t'] - sent_at:.2f} s from send to model")


def start_kind(world: World, kind: str) -> Agent:
    """Claude Code, Codex without its daemon, or Codex with it (conftest's `kind`)."""
    return world.start("claude" if kind == "claude" else "codex", daemon=kind == "codex-daemon")


def assert_no_wake_after(world: World, agent: Agent, stops: int) -> None:
    """Once the turn has ended, nothing starts another: no waiter fired and nothing was queued
    (docs/transport.md "Routes": mid-turn, the hooks carry the mail)."""
    fake = world.fake_for(agent)
    calls = len(fake.turns())
    time.sleep(3)
    assert len(agent.hook_calls("Stop")) == stops, "no other turn ran"
    assert len(fake.turns()) == calls, "no other model call"
    assert not any(p.startswith("<task-notification>") for p in agent.prompts()), "no wake"
    assert "hail: new mail" not in agent.screen()


def test_ask_to_an_agent_busy_in_a_tool(world: World, kind: str) -> None:
    agent = start_kind(world, kind)
    client = agent.client
    fake = world.fake_for(agent)
    release = busy_in_tool(world, agent)

    message_id, sent_at = send_while_busy(
        world, agent, "a question while you work", "BODY-BUSY-1 mid-turn body"
    )
    assert not agent.hook_calls("PostToolUse")

    release()
    turn = eventually(lambda: first_delivery(fake, message_id), "the body reached the model")
    figure("busy-in-tool", kind, sent_at, turn)
    assert turn["tool_result"] is not None, "the body came with the tool's result"
    assert "BODY-BUSY-1 mid-turn body" in request_text(turn)
    if client == "claude":
        assert "PostToolUse:Bash hook additional context: hail: 1 peer message" in request_text(
            turn
        )
    else:
        assert post_tool_use_context(turn, message_id), "PostToolUse carried the body"
    agent.wait_stops(1)
    eventually(lambda: "FAKE-DONE" in agent.screen() or None, "the answer reached the screen")
    assert_nothing_typed(agent, message_id)
    assert_delivered_once(world, fake, message_id)
    assert_no_wake_after(world, agent, 1)


def test_ask_to_an_agent_waiting_for_the_model(world: World, kind: str) -> None:
    agent = start_kind(world, kind)
    fake = world.fake_for(agent)
    hold_a_turn(world, agent, "HOLD_TOOL then answer")

    message_id, sent_at = send_while_busy(
        world, agent, "a question while you think", "BODY-BUSY-2 mid-turn body"
    )
    fake.release()
    turn = eventually(lambda: first_delivery(fake, message_id), "the body reached the model")
    figure("busy-on-model", kind, sent_at, turn)
    assert "BODY-BUSY-2 mid-turn body" in request_text(turn)
    assert turn["tool_result"] is not None, "the reply in progress was kept: its tool ran"
    agent.wait_stops(1)
    eventually(lambda: "FAKE-DONE" in agent.screen() or None, "the answer reached the screen")
    assert_nothing_typed(agent, message_id)
    assert_delivered_once(world, fake, message_id)
    assert_no_wake_after(world, agent, 1)


def test_quiet_fyi_to_an_agent_busy_in_a_tool_arrives_with_the_tool_result(
    world: World, client: str
) -> None:
    agent = world.start(client)
    fake = world.fake_for(agent)
    release = busy_in_tool(world, agent)  # its prompt ran hail's hook: the seat is hooked

    sent = world.send("worker", "the build is green", "BODY-BUSY-3 quiet body", kind="fyi")

    assert sent.rc == 0, sent
    assert "quiet: arrives with worker's next prompt or tool call" in sent.err, sent
    message_id = sent.id
    release()
    turn = eventually(lambda: first_delivery(fake, message_id), "the body reached the model")
    assert turn["tool_result"] is not None, "PostToolUse carried it with the tool's result"
    assert "BODY-BUSY-3 quiet body" in request_text(turn)
    if client == "claude":
        assert "PostToolUse:Bash hook additional context: hail: 1 peer message" in request_text(
            turn
        )
    else:
        assert post_tool_use_context(turn, message_id)
    agent.wait_stops(1)
    assert not any(message_id in p for p in agent.prompts()), "nothing was typed"
    assert_delivered_once(world, fake, message_id)
