"""Mail reaches an agent in the middle of a turn.

Two ways of being busy, both held open by the test rather than by a timer:

- in a tool: the model calls ``wait-release <file>``, which runs until the test creates the
  file;
- waiting for the model: the fake starts a tool call and holds the rest of its reply until
  the test releases it.

What the pinned clients really do with an envelope typed meanwhile (each is asserted below):

- Claude Code 2.1.332 queues it ("Press up to edit queued messages"), yet runs
  UserPromptSubmit for it at once, so ``hail deliver`` injects the body then; the queued text
  and the body reach the model with the tool's result ("The user sent a new message while you
  were working"), in the same turn. The send is submitted: exit 0.
- Codex 0.171 in a tool holds it ("Messages to be submitted after next tool call"): exit 5.
  The body arrives through PostToolUse with the tool's result; the held text follows in the
  same request.
- Codex 0.171 waiting for the model takes it at once: it drops the reply in progress and asks
  again with the envelope as the newest user message: exit 0, the tool call never runs.

In every case the message is delivered exactly once. A quiet ``fyi`` (nothing typed) to an
agent in a tool arrives through PostToolUse on both clients.
"""

from __future__ import annotations

from collections.abc import Callable

from .clients import Agent
from .evidence import delivery_tokens, eventually, first_delivery, frame_start, submitted_prompt
from .fake_http import JSON, FakeServer, request_text
from .world import World

QUEUED = {
    "claude": "Press up to edit queued messages",
    "codex": "Messages to be submitted after next tool call",
}
CODEX_HOLDS = "Codex in {pane} is busy and holds the envelope in its composer"


def busy_in_tool(world: World, agent: Agent) -> Callable[[], None]:
    """Start a turn whose tool runs until the returned release is called."""
    release = world.root / "release"
    world.tmux.submit(agent.pane, f"RUN_CMD {world.wait_tool} {release}")
    eventually(lambda: "esc to interrupt" in agent.screen() or None, f"{agent.client} is busy")
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


def test_ask_to_an_agent_busy_in_a_tool(world: World, client: str) -> None:
    agent = world.start(client)
    fake = world.fake_for(agent)
    release = busy_in_tool(world, agent)

    sent = world.send("worker", "a question while you work", "BODY-BUSY-1 mid-turn body")

    if client == "claude":
        assert sent.rc == 0, sent
    else:
        assert sent.rc == 5, sent
        assert CODEX_HOLDS.format(pane=agent.pane) in sent.err, sent
    message_id = sent.id
    eventually(lambda: QUEUED[client] in agent.screen() or None, f"{client} queued the envelope")
    if client == "claude":
        # Claude runs UserPromptSubmit for the queued text while the tool still runs.
        submitted_prompt(agent, message_id, timeout=10)
        assert not agent.hook_calls("PostToolUse")
    else:
        assert not any(message_id in p for p in agent.prompts()), "Codex holds it: no prompt yet"

    release()
    turn = eventually(lambda: first_delivery(fake, message_id), "the body reached the model")
    assert turn["tool_result"] is not None, "the body came with the tool's result"
    assert "BODY-BUSY-1 mid-turn body" in request_text(turn)
    assert f"id:{message_id}]" in turn["user_text"], "the envelope came in the same request"
    if client == "claude":
        assert "UserPromptSubmit hook additional context: hail: 1 peer message" in request_text(
            turn
        )
    else:
        assert post_tool_use_context(turn, message_id), "PostToolUse carried the body"
    submitted_prompt(agent, message_id)
    agent.wait_stops(1)
    assert_delivered_once(world, fake, message_id)


def test_ask_to_an_agent_waiting_for_the_model(world: World, client: str) -> None:
    agent = world.start(client)
    fake = world.fake_for(agent)
    world.tmux.submit(agent.pane, "HOLD_TOOL then answer")
    eventually(lambda: fake.turns() or None, "the held turn reached the fake")
    eventually(lambda: "esc to interrupt" in agent.screen() or None, f"{client} is busy")

    sent = world.send("worker", "a question while you think", "BODY-BUSY-2 mid-turn body")

    assert sent.rc == 0, sent
    message_id = sent.id
    submitted_prompt(agent, message_id, timeout=10)
    fake.release()
    turn = eventually(lambda: first_delivery(fake, message_id), "the body reached the model")
    assert "BODY-BUSY-2 mid-turn body" in request_text(turn)
    assert f"id:{message_id}]" in turn["user_text"]
    if client == "claude":
        assert turn["tool_result"] is not None, "Claude finished the tool call first"
    else:
        assert turn["tool_result"] is None, "Codex dropped the reply in progress"
        assert not agent.hook_calls("PostToolUse"), "so the tool never ran"
    agent.wait_stops(1)
    assert_delivered_once(world, fake, message_id)


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
