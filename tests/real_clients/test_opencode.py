"""opencode 1.18 with hail's plugin installed by ``hail setup``, against a fake OpenAI-compatible
Chat Completions server.

opencode wakes itself: hail's plugin prompts its idle session with the frames
(``client.session.promptAsync``) when a send renames its ``wake`` mark into the mailbox, so nothing
is typed. A busy session gets its mail appended to a tool's output (``tool.execute.after``) or as a
new prompt when the session goes idle (``session.idle``, the Stop-continue), at most three times in
a row. The brief goes into the session's first prompt.
"""

from __future__ import annotations

import time

from hail.install.formats import opencode_plugin

from .clients import Agent
from .evidence import delivery_tokens, eventually, first_delivery
from .fake_http import request_text
from .test_busy import assert_nothing_typed, hold_a_turn
from .test_turn_end import test_stop_never_loops_while_a_peer_sends_all_the_time as stop_loop_case
from .world import World

WOKEN = "hail: woken by its plugin: opencode in {pane} takes it when its session is idle\n"


def started(world: World) -> Agent:
    """opencode with a session: a first prompt, answered (before it, there is none to wake)."""
    agent = world.start("opencode")
    asked = time.time()
    world.tmux.submit(agent.pane, "hello")
    agent.wait_stops(1, timeout=60)
    eventually(lambda: agent.is_ready() or None, "the first turn ended")
    # hail's plugin looks for mail when opencode reports the session idle, which can come a moment
    # after the probe's Stop: mail filed before that look rides the turn's end, not the next prompt.
    stopping = world.state / "hail" / "seats" / "worker" / "stopping"
    eventually(
        lambda: (stopping.exists() and stopping.stat().st_mtime >= asked - 1) or None,
        "hail's plugin looked for mail as the first turn ended",
    )
    return agent


def test_setup_installs_the_plugin_beside_the_users(world: World) -> None:
    plugins = world.home / ".config" / "opencode" / "plugins"
    assert (plugins / "probe.js").exists(), "the user's plugin stays"
    text = (plugins / "hail.js").read_text()
    assert opencode_plugin.program_in(text) is not None, "hail's current plugin"
    assert '"chat.message":["deliver","--format","opencode"]' in text
    check = world.hail(["setup", "--check"], cwd=world.root)
    assert check.rc == 0, check
    assert f"ok    opencode: hail's plugin current in {plugins / 'hail.js'}" in check.out


def test_an_idle_opencode_wakes_itself_and_the_body_reaches_the_model(world: World) -> None:
    agent = started(world)
    fake = world.chat
    before = len(fake.turns())
    sent_at = time.time()
    sent = world.send("worker", "please review the parser change", "BODY-OC-1 src/parse.py")
    sent_done = time.time()

    assert sent.rc == 0, sent
    assert sent.err == WOKEN.format(pane=agent.pane), sent
    turn = eventually(lambda: first_delivery(fake, sent.id), "the framed body reached the model")
    print(
        f"FIGURE idle opencode: {turn['t'] - sent_at:.2f} s from send to model (the send "
        f"{sent_done - sent_at:.2f} s, then {turn['t'] - sent_done:.2f} s to the request)"
    )
    assert fake.turns().index(turn) == before, "a new turn, started by the plugin"
    assert turn["user_text"].startswith("hail: 1 peer message, framed by token ")
    assert "BODY-OC-1 src/parse.py" in turn["user_text"]
    assert "please review the parser change" in turn["user_text"], "the frame keeps the headline"
    agent.wait_stops(2)
    assert not any(f"[hail kind:ask from:boss/{world.boss_pane}" in p for p in agent.prompts())
    assert len(delivery_tokens(fake, sent.id)) == 1, "delivered exactly once"
    assert world.hail(["sent", sent.id]).out.startswith("injected ")


def test_a_quiet_fyi_wakes_nobody_and_arrives_with_the_next_prompt(world: World) -> None:
    agent = started(world)
    fake = world.chat
    before = len(fake.turns())
    sent = world.send("worker", "fyi: the build is green", kind="fyi")
    assert sent.rc == 0, sent
    assert "quiet:" in sent.err
    time.sleep(4)
    # opencode may make requests of its own after a turn (a summary); none may carry the fyi
    later = fake.turns()[before:]
    assert first_delivery(fake, sent.id) is None, ("a turn took the fyi unprompted", later)
    assert not any("hail" in str(t["user_text"]) for t in later), ("a turn was started", later)
    world.tmux.submit(agent.pane, "what is new?")
    turn = eventually(lambda: first_delivery(fake, sent.id), "the fyi came with the prompt")
    assert "what is new?" in turn["user_text"]
    assert world.hail(["sent", sent.id]).out.startswith("injected ")


def test_mail_reaches_a_busy_opencode_with_its_tools_output(world: World) -> None:
    agent = started(world)
    fake = world.chat
    release = world.root / "release"
    world.tmux.submit(agent.pane, f"RUN_CMD {world.wait_tool} {release}")
    eventually(lambda: agent.is_busy() or None, "opencode is busy")
    eventually(lambda: "wait-release" in agent.screen() or None, "the tool runs")
    sent_at = time.time()
    sent = world.send("worker", "a question during your tool", "BODY-OC-TOOL")
    assert sent.rc == 0, sent
    assert sent.err == WOKEN.format(pane=agent.pane), sent
    time.sleep(1)
    assert_nothing_typed(agent, sent.id)
    release.touch()
    turn = eventually(lambda: first_delivery(fake, sent.id), "the body reached the model")
    print(f"FIGURE tool opencode: {turn['t'] - sent_at:.2f} s from send to model (1 s held)")
    assert turn["tool_result"] is not None and "BODY-OC-TOOL" in turn["tool_result"]
    eventually(lambda: agent.is_ready() or None, "the turn ended", timeout=30)
    assert len(delivery_tokens(fake, sent.id)) == 1
    assert world.hail(["sent", sent.id]).out.startswith("injected ")


def test_mail_at_turn_end_arrives_as_a_new_prompt(world: World) -> None:
    agent = started(world)
    fake = world.chat
    hold_a_turn(world, agent, "HOLD_TEXT then answer")
    sent_at = time.time()
    sent = world.send("worker", "a question while you answer", "BODY-OC-STOP", kind="fyi")
    assert sent.rc == 0, sent
    fake.release()
    turn = eventually(lambda: first_delivery(fake, sent.id), "the body reached the model")
    print(f"FIGURE turn-end opencode: {turn['t'] - sent_at:.2f} s from send to model")
    assert turn["user_text"].startswith("hail: 1 peer message"), "session.idle prompted it"
    eventually(
        lambda: "FAKE-ANSWER to the held prompt" in agent.screen() or None,
        "the answer to the user's prompt reached the screen",
    )
    assert len(delivery_tokens(fake, sent.id)) == 1
    assert world.hail(["sent", sent.id]).out.startswith("injected ")


def test_mail_at_turn_end_continues_at_most_three_times(world: World) -> None:
    stop_loop_case(world, "opencode")


def test_the_brief_reaches_the_first_prompt(world: World) -> None:
    assert world.hail(["whoami"], cwd=world.seat["worker"]).rc == 0  # the seat is known
    held = world.hail(["worker", "hold", "--scope", "src/auth", "--for", "2h", "HOLD: auth"])
    assert held.rc == 5, held  # no agent runs there yet: nothing to wake
    agent = world.start("opencode")
    world.tmux.submit(agent.pane, "hello")
    first = eventually(lambda: next(iter(world.chat.turns()), None), "the first turn", 60)
    text = request_text(first)
    assert "src/auth" in text, "the brief's hold is in the first request"
    assert "hello" in first["user_text"]


def wakes_and_delivers(world: World, agent: Agent, target: str, body: str) -> None:
    """A send to `target` says the plugin wakes it, and the plugin does: a new turn with the body,
    delivered once."""
    before = len(world.chat.turns())
    sent = world.send(target, "a question for this pane", body)
    assert sent.rc == 0, sent
    assert sent.err == WOKEN.format(pane=agent.pane), sent
    turn = eventually(lambda: first_delivery(world.chat, sent.id), "the plugin woke the session")
    assert world.chat.turns().index(turn) == before, "a new turn, started by the plugin"
    assert body in turn["user_text"]
    assert len(delivery_tokens(world.chat, sent.id)) == 1, "delivered exactly once"


def test_a_sub_seat_made_after_the_start_is_watched_too(world: World) -> None:
    agent = started(world)
    sub = f"worker@{agent.pane}"
    assert not (world.state / "hail" / "seats" / sub).exists(), "no sub-seat when opencode started"
    wakes_and_delivers(world, agent, sub, "BODY-OC-SUB")
    assert world.hail(["inbox"], cwd=world.seat["worker"], pane=agent.pane).out == "(inbox empty)\n"


def test_a_state_path_holding_a_space_is_watched(spaced_world: World) -> None:
    assert " " in str(spaced_world.state)
    agent = started(spaced_world)
    wakes_and_delivers(spaced_world, agent, "worker", "BODY-OC-SPACE")
