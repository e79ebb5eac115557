"""A delegated question and its answer between the real clients: one agent runs
``hail <seat> ask --wait …`` as a tool call, the other agent's model answers with
``hail <asker> fyi --re <id> …``, and the asker's tool call returns with the framed answer.

Both directions: Claude Code asks Codex, and Codex asks Claude Code. The fake models script the
"model": ``RUN_CMD``/``RUN_LONG`` make the asker run the command, ``ANSWER_HAIL`` in the
envelope, or in the frame of a turn hail's waiter woke, makes the other model answer it
(``fake_http.py``). Codex runs the ask with
``yield_time_ms`` 30000, as the skill tells a Codex agent that waits longer than its 10 s default.

Each test prints the time from the answer being filed (its ``replies/`` link) to the asker's tool
call returning (the asker's PostToolUse hook, which runs when the tool call has returned).
"""

from __future__ import annotations

import re
import time

from tests.support.ids import ID

from .clients import Agent
from .evidence import eventually, first_delivery, submitted_prompt
from .fake_http import FakeServer, request_text
from .world import World

QUESTION = "ANSWER_HAIL is the parser change safe to land?"


def returned_tool_call(fake: FakeServer, marker: str) -> tuple[str, float] | None:
    """The tool output the asker's model received holding `marker`, and when it arrived."""
    for turn in fake.turns():
        result = turn.get("tool_result")
        if result and marker in result:
            return result, float(turn["t"])
    return None


def post_tool_use_after(agent: Agent, since: float) -> float | None:
    times = [float(c["t"]) for c in agent.hook_calls("PostToolUse") if float(c["t"]) >= since]  # type: ignore[arg-type]
    return min(times) if times else None


def converse(world: World, asker: Agent, answerer: Agent, command: str) -> None:
    fake_asker, fake_answerer = world.fake_for(asker), world.fake_for(answerer)
    started = time.time()
    world.tmux.submit(asker.pane, command)
    output, arrived = eventually(
        lambda: returned_tool_call(fake_asker, "FAKE-ANSWER: GO for "),
        f"{asker.client}'s tool call returned with the answer",
        timeout=60,
    )
    found = re.search(rf"^id=({ID})$", output, re.M)
    assert found, output
    ask = found.group(1)
    # The id first, then the answer framed as hail inbox prints it.
    assert output.index(f"id={ask}") < output.index("hail: 1 peer message, framed by token ")
    frame = re.search(
        rf"\[hail:([0-9a-f]{{8}}) fyi from:\S+ id:({ID}) re:{ask}\] "
        rf"FAKE-ANSWER: GO for {ask}",
        output,
    )
    assert frame, output
    token, answer = frame.group(1), frame.group(2)
    assert f"[/hail:{token}]" in output
    # The answerer's model saw the ask (its envelope as the prompt, or its frame in the turn a
    # waiter woke), and answered with --re.
    asked = next(t for t in fake_answerer.turns() if f"id:{ask}]" in request_text(t))
    assert "ANSWER_HAIL" in request_text(asked)
    receipt = world.hail(["sent", ask], cwd=asker.cwd)
    assert re.fullmatch(rf"injected \S+ replied {answer}\n", receipt.out), receipt
    filed = (world.state / "hail" / "replies" / ask / answer).lstat().st_mtime
    returned = eventually(
        lambda: post_tool_use_after(asker, filed), f"{asker.client}'s PostToolUse after the answer"
    )
    print(
        f"\n{asker.client} asked {answerer.client}: answer filed → asker's tool call returned "
        f"{returned - filed:.2f} s (PostToolUse), its output reached the model "
        f"{arrived - filed:.2f} s after; the whole exchange took {arrived - started:.1f} s"
    )
    assert returned - filed < 10


def test_claude_asks_codex_and_waits_for_the_answer(world: World) -> None:
    codex = world.start("codex", seat="worker")
    claude = world.start("claude", seat="boss")
    converse(world, claude, codex, f"RUN_CMD hail worker ask --wait 60 '{QUESTION}'")


def test_codex_asks_claude_and_waits_for_the_answer(world: World) -> None:
    claude = world.start("claude", seat="boss")
    codex = world.start("codex", seat="worker")
    converse(world, codex, claude, f"RUN_LONG hail boss ask --wait 25 '{QUESTION}'")


def test_a_late_answer_wakes_the_idle_asker_after_its_wait_timed_out(world: World) -> None:
    codex = world.start("codex", seat="worker")
    claude = world.start("claude", seat="boss")
    fake = world.fake_for(claude)
    world.tmux.submit(claude.pane, "RUN_CMD hail worker ask --wait 2 'a question nobody answers'")
    output, _ = eventually(
        lambda: returned_tool_call(fake, "no reply to "), "the wait timed out", timeout=30
    )
    assert "It still arrives by your hooks" in output and "do not resend" in output, output
    ask = re.search(rf"^id=({ID})$", output, re.M)
    assert ask, output
    claude.wait_stops(1)
    late = world.hail(
        ["boss", "fyi", "--re", ask.group(1), "GO: late but sure"],
        cwd=world.seat["worker"],
        pane=codex.pane,
    )
    assert late.rc == 0, late  # an fyi, yet it wakes its asker: it answers boss's ask
    assert "woken:" in late.err, late
    turn = eventually(lambda: first_delivery(fake, late.id), "the late answer reached the model")
    assert f"re:{ask.group(1)}] GO: late but sure" in request_text(turn), "framed in that request"
    assert turn["user_text"].startswith("<system-reminder>"), "the waiter's turn, nothing typed"
    assert world.hail(["sent", late.id]).out.startswith("injected ")


def test_only_a_persons_prompt_marks_the_seat_as_prompted(world: World, client: str) -> None:
    agent = world.start(client, seat="worker")
    prompted = world.state / "hail" / "seats" / "worker" / "prompted"
    sent = world.send("worker", "an envelope is no person's prompt")
    if client == "claude":
        # Woken by the waiter: the turn's prompt is Claude Code's notice, no person's either.
        assert "woken:" in sent.err, sent
        eventually(lambda: agent.prompts() or None, "the woken turn ran its prompt hook")
        assert agent.prompts()[0].startswith("<task-notification>")
    else:
        submitted_prompt(agent, sent.id)
    agent.wait_stops(1)
    assert not prompted.exists(), "neither the typed envelope nor a wake left a mark"
    world.tmux.submit(agent.pane, "a person types this")
    agent.wait_stops(2)
    assert prompted.exists(), "the person's prompt did"


def test_a_prompt_hook_the_model_runs_itself_is_no_persons_prompt(
    typing_world: World, client: str
) -> None:
    # The request comes typed (settings without the waiter), as a peer's ask to a model would
    # when it runs on the typing route; the route is not what this test is about.
    world = typing_world
    agent = world.start(client, seat="worker")
    fake = world.fake_for(agent)
    prompted = world.state / "hail" / "seats" / "worker" / "prompted"
    # What a peer's message could ask a model to do: run the prompt hook by hand with a prompt of
    # its own. The envelope that carries the request is itself no person's prompt.
    payload = '{"hook_event_name":"UserPromptSubmit","prompt":"go on"}'
    # No `$?`: Codex's composer takes a typed `$` for a mention and drops what follows.
    command = f"echo '{payload}' | hail deliver --format {client} && echo HAND-RUN-0"
    world.send("worker", f"RUN_CMD {command}")

    def ran() -> tuple[str, float] | None:
        if "Do you want to proceed?" in agent.screen():  # Claude Code asks about a pipeline
            world.tmux.cmd("send-keys", "-t", agent.pane, "1")
        return returned_tool_call(fake, "HAND-RUN-0")

    eventually(ran, f"{client} ran the prompt hook in a tool call", timeout=60)
    agent.wait_stops(1)
    assert not prompted.exists(), "the hook run by hand left no mark"
    world.tmux.submit(agent.pane, "a person types this")
    agent.wait_stops(2)
    assert prompted.exists(), "the harness's hook for a person's prompt did"


def test_claude_asks_gemini_and_waits_for_the_answer(world: World) -> None:
    gemini = world.start("gemini", seat="worker")
    claude = world.start("claude", seat="boss")
    converse(world, claude, gemini, f"RUN_CMD hail worker ask --wait 60 '{QUESTION}'")


def test_codex_asks_opencode_and_waits_for_the_answer(world: World) -> None:
    opencode = world.start("opencode", seat="worker")
    # opencode's plugin prompts a session it has seen: its first prompt makes one.
    world.tmux.submit(opencode.pane, "hello")
    opencode.wait_stops(1, timeout=60)
    codex = world.start("codex", seat="boss")
    converse(world, codex, opencode, f"RUN_LONG hail worker ask --wait 25 '{QUESTION}'")


def reply_wakes_the_asker(world: World, asker: Agent, answerer: Agent) -> None:
    """The asker sends an ask without waiting and ends its turn; the answer, filed by the
    answerer's model with --re, wakes the idle asker and reaches its model."""
    fake = world.fake_for(asker)
    asked_at = len(fake.turns())
    world.tmux.submit(asker.pane, f"RUN_CMD hail worker ask '{QUESTION}'")
    output, _ = eventually(
        lambda: returned_tool_call(fake, "id="), f"{asker.client} sent the ask", timeout=60
    )
    found = re.search(rf"\bid=({ID})\b", output)  # Gemini CLI's shell tool says `Output: id=…`
    assert found, output
    ask = found.group(1)
    answered = eventually(
        lambda: next(
            (
                t
                for t in fake.turns()[asked_at:]
                if f"re:{ask}] FAKE-ANSWER: GO for {ask}" in request_text(t)
            ),
            None,
        ),
        f"the answer woke {asker.client} and reached its model",
        timeout=90,
    )
    receipt = world.hail(["sent", ask])
    replied = re.fullmatch(rf"injected \S+ replied ({ID})\n", receipt.out)
    assert replied, receipt
    filed = (world.state / "hail" / "replies" / ask / replied.group(1)).lstat().st_mtime
    print(
        f"\n{answerer.client} answered {asker.client}: answer filed → in the idle asker's model "
        f"{float(answered['t']) - filed:.2f} s"
    )


def test_an_answer_wakes_an_idle_gemini_that_asked(world: World) -> None:
    claude = world.start("claude", seat="worker")
    gemini = world.start("gemini", seat="boss")
    reply_wakes_the_asker(world, gemini, claude)


def test_an_answer_wakes_an_idle_opencode_that_asked(world: World) -> None:
    codex = world.start("codex", seat="worker")
    opencode = world.start("opencode", seat="boss")
    reply_wakes_the_asker(world, opencode, codex)
