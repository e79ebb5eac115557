"""Qwen Code 0.24.4 with hail's hooks installed by ``hail setup``, against the fake Chat Completions
server (``fake_chat.py``), woken through its own cross-session socket (docs/transport.md "Qwen
Code's door").

One world for the module: two Qwen Code sessions started once (``boss`` asks, ``worker`` answers)
and shared by every check, each leaving both idle for the next. Qwen runs in its default Auto mode:
hail's rule ``Bash(hail *)`` (setup's) and the world's ``Bash(wait-release *)`` let the two commands
the checks run pass without the classifier, whose call the fake answers with text, which Qwen takes
as a refusal.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hail.install.formats.qwen_settings import ALLOW_RULE

from .clients import Agent
from .evidence import delivery_tokens, eventually, first_delivery
from .test_busy import BUSY_NOTE, assert_nothing_typed, hold_a_turn
from .world import WAIT_TOOL, World

WOKEN = "hail: woken: Qwen Code in {pane} takes it in a turn of its own; nothing typed\n"


class Qwen:
    """The module's world and its two sessions."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.worker = self.idle(world.start("qwen"))
        self.boss = self.idle(world.start("qwen", seat="boss"))

    def idle(self, agent: Agent) -> Agent:
        eventually(lambda: agent.is_ready() or None, f"qwen in {agent.pane} is idle", timeout=60)
        return agent


@pytest.fixture(scope="module")
def qwen(tmp_path_factory: pytest.TempPathFactory, client_bin: Path) -> Iterator[Qwen]:
    world = World(tmp_path_factory.mktemp("qwen") / "rc", client_bin)
    try:
        yield Qwen(world)
    finally:
        print("\n" + world.report())
        leftovers = world.close()
    assert not leftovers, f"processes outlived the tests (killed): {leftovers}"


def test_setup_writes_the_hooks_and_hails_permission_rule(qwen: Qwen) -> None:
    world = qwen.world
    settings = json.loads((world.home / ".qwen" / "settings.json").read_text())
    commands = [
        h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]
    ]
    for args in ("deliver --format qwen", "brief --hook --format qwen"):
        assert any(c.endswith(f"/hail {args}") for c in commands), commands
    assert any("probe_hook.py" in c for c in commands), "the user's own hooks stay"
    assert ALLOW_RULE in settings["permissions"]["allow"]
    assert "Bash(wait-release *)" in settings["permissions"]["allow"], "the user's rule stays"
    doctor = world.hail(["doctor"], cwd=world.root)
    assert f"ok   Qwen Code hooks and {ALLOW_RULE} current" in doctor.out, doctor


def test_seats_and_watch_name_qwen_and_its_door(qwen: Qwen) -> None:
    seats = qwen.world.hail(["seats"])
    assert seats.rc == 0, seats
    row = next(line for line in seats.out.splitlines() if qwen.worker.pane in line)
    assert f"{qwen.worker.pane}:qwen " in row and " door " in row, seats.out
    watch = qwen.world.hail(["watch", "--once"])
    assert watch.rc == 0, watch
    assert f"{qwen.worker.pane}:qwen" in watch.out and "door" in watch.out, watch.out


def wake_idle(qwen: Qwen, n: int) -> tuple[float, float]:
    """The n-th send into the idle worker: seconds from its start to the model request that
    carried the body, and the send's own; delivered once, nothing typed, its receipt `injected`."""
    world, agent = qwen.world, qwen.worker
    before = len(world.chat.turns())
    started = time.time()
    sent = world.send("worker", f"please review the parser change ({n})", f"BODY-QW-{n} src/p.py")
    done = time.time()
    assert sent.rc == 0, sent
    assert sent.err == WOKEN.format(pane=agent.pane), sent
    turn = eventually(lambda: first_delivery(world.chat, sent.id), "the body reached the model")
    assert world.chat.turns().index(turn) == before, "a new turn, started by the socket"
    assert f"BODY-QW-{n} src/p.py" in turn["user_text"]
    assert 'origin="own-process"' in turn["user_text"], "the hooks' own token opened the socket"
    assert_nothing_typed(agent, sent.id)
    qwen.idle(agent)
    time.sleep(1.0)  # idle a moment, as between a peer's sends
    assert len(delivery_tokens(world.chat, sent.id)) == 1, "delivered exactly once"
    assert world.hail(["sent", sent.id]).out.startswith("injected ")
    return turn["t"] - started, done - started


def test_an_idle_qwen_gets_the_body_with_nothing_typed(qwen: Qwen) -> None:
    """The first send reaches a session that has had no prompt; three more the same session, idle
    after a turn, as docs/performance.md "Send to model, per client" measures the others."""
    first, first_send = wake_idle(qwen, 0)
    totals, sends = zip(*(wake_idle(qwen, n) for n in range(1, 4)), strict=True)
    print(
        f"FIGURE send-to-model qwen: first (no prompt yet) {first:.2f} s (the send {first_send:.2f}"
        f" s); then median {statistics.median(totals):.2f} s of 3 (each "
        f"{', '.join(f'{t:.2f}' for t in totals)}); the send's own: median "
        f"{statistics.median(sends) * 1000:.0f} ms"
    )


def test_a_sub_seat_of_its_pane_is_woken_through_its_door(qwen: Qwen) -> None:
    world, agent = qwen.world, qwen.worker
    sub = f"worker@{agent.pane}"
    sent = world.send(sub, "a question for this pane", "BODY-QW-SUB")
    assert sent.rc == 0, sent
    assert sent.err == WOKEN.format(pane=agent.pane), sent
    turn = eventually(lambda: first_delivery(world.chat, sent.id), "the body reached the model")
    assert "BODY-QW-SUB" in turn["user_text"]
    qwen.idle(agent)
    assert len(delivery_tokens(world.chat, sent.id)) == 1, "delivered exactly once"


def test_a_busy_qwen_gets_the_body_once_at_its_next_tool_call(qwen: Qwen) -> None:
    world, agent = qwen.world, qwen.worker
    release = world.root / "release-qw"
    world.tmux.submit(agent.pane, f"RUN_CMD {WAIT_TOOL} {release}")
    eventually(lambda: agent.is_busy() or None, "qwen is busy")
    eventually(lambda: "wait-release" in agent.screen() or None, "the tool runs")
    sent_at = time.time()
    sent = world.send("worker", "a question during your tool", "BODY-QW-TOOL")
    assert sent.rc == 0, sent
    assert sent.err == BUSY_NOTE, sent
    time.sleep(1)
    assert_nothing_typed(agent, sent.id)
    release.touch()
    turn = eventually(lambda: first_delivery(world.chat, sent.id), "the body reached the model")
    print(f"FIGURE tool qwen: {turn['t'] - sent_at:.2f} s from send to model (1 s held)")
    assert turn["tool_result"] is not None and "BODY-QW-TOOL" in turn["tool_result"]
    qwen.idle(agent)
    assert len(delivery_tokens(world.chat, sent.id)) == 1, "delivered exactly once"


def test_a_busy_qwen_gets_the_body_once_when_its_turn_ends(qwen: Qwen) -> None:
    world, agent = qwen.world, qwen.worker
    hold_a_turn(world, agent, "HOLD_TEXT then answer")
    sent_at = time.time()
    sent = world.send("worker", "a question while you answer", "BODY-QW-STOP")
    assert sent.rc == 0, sent
    assert sent.err == BUSY_NOTE, sent
    world.chat.release()
    turn = eventually(lambda: first_delivery(world.chat, sent.id), "the body reached the model")
    print(f"FIGURE turn-end qwen: {turn['t'] - sent_at:.2f} s from send to model")
    assert turn["user_text"].startswith("hail: 1 peer message"), "Stop's reason, as a user message"
    qwen.idle(agent)
    assert len(delivery_tokens(world.chat, sent.id)) == 1, "delivered exactly once"
    # Its typed prompts recorded the agent: its gauge reads the transcript's usage and window.
    seats = world.hail(["seats"])
    row = next(line for line in seats.out.splitlines() if f"{agent.pane}:qwen" in line)
    assert re.search(r" \d+k \d+% ", row), seats.out


def test_a_reply_from_qwen_wakes_its_asker_and_hail_runs_unasked(qwen: Qwen) -> None:
    """The worker's model answers with `hail boss fyi --re …` in its shell tool: Qwen's classifier
    and dialog never stop it (setup's rule), and the answer wakes the boss's Qwen."""
    world = qwen.world
    sent = world.send("worker", "ANSWER_HAIL is the parser change safe to land?")
    assert sent.rc == 0, sent
    answer = eventually(
        lambda: next(
            (
                t
                for t in world.chat.turns()
                if f"FAKE-ANSWER: GO for {sent.id}" in str(t["user_text"])
            ),
            None,
        ),
        "the answer woke the boss's session",
        timeout=60,
    )
    assert 'origin="own-process"' in answer["user_text"]
    assert "Allow execution of" not in qwen.worker.screen()
    qwen.idle(qwen.worker)
    qwen.idle(qwen.boss)
    receipt = world.hail(["sent", sent.id])
    assert receipt.out.startswith("injected ") and " replied " in receipt.out, receipt


def test_a_dialog_holds_the_send_and_nothing_is_typed(qwen: Qwen) -> None:
    """A command Qwen was not allowed goes to its classifier, whose call the fake answers with
    text: Qwen asks the person instead. A send then types nothing and says so (exit 5); the tool's
    PostToolUse brings the body once the person allows it."""
    world, agent = qwen.world, qwen.worker
    world.tmux.submit(agent.pane, "RUN_CMD touch qwen-dialog-file")
    eventually(lambda: "Allow execution of" in agent.screen() or None, "Qwen asks the person")
    sent = world.send("worker", "a question during a dialog", "BODY-QW-DIALOG")
    assert sent.rc == 5, sent
    assert f"a dialog in {agent.pane} holds its turn" in sent.err, sent
    assert_nothing_typed(agent, sent.id)
    world.tmux.cmd("send-keys", "-t", agent.pane, "Enter")  # 1. Yes, allow once
    turn = eventually(lambda: first_delivery(world.chat, sent.id), "the body came with the tool")
    assert turn["tool_result"] is not None and "BODY-QW-DIALOG" in turn["tool_result"]
    qwen.idle(agent)
    assert len(delivery_tokens(world.chat, sent.id)) == 1


def test_a_persons_draft_is_kept_and_the_body_arrives(qwen: Qwen) -> None:
    world, agent = qwen.world, qwen.worker
    draft = "HALFDRAFT please refactor the"
    world.tmux.cmd("send-keys", "-t", agent.pane, "-l", "--", draft)
    eventually(lambda: draft in agent.screen() or None, "the draft is drawn")
    sent = world.send("worker", "a question over a draft", "BODY-QW-DRAFT")
    assert sent.rc == 0, sent
    assert sent.err == WOKEN.format(pane=agent.pane), sent
    eventually(lambda: first_delivery(world.chat, sent.id), "the body reached the model")
    eventually(lambda: len(agent.hook_calls("Stop")) and agent.screen(), "the turn ended")
    time.sleep(1)
    composer = [line for line in agent.screen().splitlines() if line.startswith("> ")]
    assert composer and draft in composer[-1], agent.screen()
    assert not any(draft in p for p in agent.prompts()), "the draft was never submitted"
    assert len(delivery_tokens(world.chat, sent.id)) == 1


def test_a_message_qwen_holds_is_typed_instead_and_never_said_woken(qwen: Qwen) -> None:
    """With `agents.crossSessionInbound` `hold` (read again by the running session), Qwen holds
    even its own processes' messages for /peers: the send gives the body back and types the
    envelope into the idle, empty composer, whose prompt hook delivers it once."""
    world, agent = qwen.world, qwen.boss
    path = world.home / ".qwen" / "settings.json"
    settings = json.loads(path.read_text())
    settings["agents"] = {"crossSessionInbound": "hold"}
    path.write_text(json.dumps(settings, indent=2) + "\n")
    time.sleep(2)  # Qwen notices the change to its settings
    sent = world.hail(
        ["boss", "ask", "a question Qwen holds"], cwd=world.seat["worker"], pane=qwen.worker.pane
    )
    assert sent.rc == 0, sent
    assert "Qwen Code holds it for a person to review in /peers; typing instead" in sent.err
    assert "woken" not in sent.err and f"typed: into {agent.pane}" in sent.err, sent
    turn = eventually(lambda: first_delivery(world.chat, sent.id), "the typed envelope's hook")
    assert "a question Qwen holds" in turn["user_text"]
    qwen.idle(agent)
