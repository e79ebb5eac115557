"""Gemini CLI 0.61 with hail's hooks installed by ``hail setup``, against the fake Gemini API.

Gemini CLI has no wake of its own: an idle agent is woken by typing its envelope into the idle,
empty composer, and its BeforeAgent hook puts the body in that turn. A busy one gets its mail from
AfterTool (appended to the tool's result) or AfterAgent (the Stop-continue: the reason becomes the
next prompt), at most three times in a row. SessionStart puts the brief into the first request.
"""

from __future__ import annotations

import json
import time

from .evidence import delivery_tokens, eventually, first_delivery, typed_wake
from .fake_http import request_text
from .test_busy import BUSY_NOTE, assert_nothing_typed, hold_a_turn, send_while_busy
from .test_dialog import test_send_into_an_open_dialog_is_refused as dialog_case
from .test_turn_end import test_stop_never_loops_while_a_peer_sends_all_the_time as stop_loop_case
from .world import World

EVENTS = ("SessionStart", "BeforeAgent", "AfterTool", "AfterAgent")


def test_setup_installs_hails_hooks_beside_the_users(world: World) -> None:
    settings = json.loads((world.home / ".gemini" / "settings.json").read_text())
    hooks = settings["hooks"]
    for event in EVENTS:
        commands = [h["command"] for g in hooks[event] for h in g["hooks"]]
        assert any("probe_hook.py" in c for c in commands), f"the user's {event} hook stays"
        assert sum(" --format gemini" in c for c in commands) == 1, (event, commands)
    assert settings["model"] == {"name": "gemini-2.5-flash"}, "the user's settings stay"
    check = world.hail(["setup", "--check"], cwd=world.root)
    assert check.rc == 0, check
    assert "ok    Gemini CLI: hail hooks current" in check.out


def test_an_idle_gemini_is_woken_and_the_body_reaches_the_model(world: World) -> None:
    agent = world.start("gemini")
    headline = "please review the parser change before the merge"
    body = "BODY-GEMINI-1 the parser lives in src/parse.py\nsecond line of the body"
    sent, text = typed_wake(world, agent, headline, body)
    assert f"id:{sent}]\nBODY-GEMINI-1 the parser lives in src/parse.py\n" in text
    assert "<hook_context>hail: 1 peer message" in text, "BeforeAgent's context, appended"
    assert text.count(headline) == 1, "the headline reaches the model once, in the prompt"
    agent.wait_stops(1)
    assert len(delivery_tokens(world.gemini, sent)) == 1, "delivered exactly once"
    assert world.hail(["sent", sent]).out.startswith("injected ")


def test_mail_reaches_a_gemini_in_a_tool_with_the_tools_result(world: World) -> None:
    agent = world.start("gemini")
    fake = world.gemini
    release = world.root / "release"
    world.tmux.submit(agent.pane, f"RUN_CMD {world.wait_tool} {release}")
    eventually(lambda: "wait-release" in agent.screen() or None, "the tool runs")
    eventually(lambda: world.hail(["seats"]).out.count("busy") or None, "hail sees it busy")

    sent_at = time.time()
    sent = world.send("worker", "a question during your tool", "BODY-GEMINI-TOOL")
    assert sent.rc == 0, sent
    assert sent.err == BUSY_NOTE, sent
    time.sleep(1)
    assert_nothing_typed(agent, sent.id)
    release.touch()
    turn = eventually(lambda: first_delivery(fake, sent.id), "the body reached the model")
    print(f"FIGURE tool gemini: {turn['t'] - sent_at:.2f} s from send to model (1 s held)")
    assert turn["tool_result"] is not None and "BODY-GEMINI-TOOL" in turn["tool_result"], (
        "AfterTool appended it to the tool's result"
    )
    agent.wait_stops(1)
    assert len(delivery_tokens(fake, sent.id)) == 1
    assert world.hail(["sent", sent.id]).out.startswith("injected ")


def test_mail_at_turn_end_continues_the_turn_at_most_three_times(world: World) -> None:
    # AfterAgent's block makes Gemini CLI send the reason as the next prompt: the same cap of three.
    stop_loop_case(world, "gemini")
    stops = world.agents[0].hook_calls("Stop")
    active = [
        s["payload"].get("stop_hook_active") for s in stops[-4:] if isinstance(s["payload"], dict)
    ]
    assert active == [False, True, True, True]


def test_mail_at_turn_end_arrives_as_the_next_prompt(world: World) -> None:
    agent = world.start("gemini")
    fake = world.gemini
    hold_a_turn(world, agent, "HOLD_TEXT then answer")
    prompted = world.state / "hail" / "seats" / "worker" / "prompted"
    stamp = prompted.stat().st_mtime_ns  # a person typed that prompt
    message_id, sent_at = send_while_busy(
        world, agent, "a question while you answer", "BODY-STOP-1 turn-end body"
    )
    fake.release()
    turn = eventually(lambda: first_delivery(fake, message_id), "the body reached the model")
    print(f"FIGURE turn-end gemini: {turn['t'] - sent_at:.2f} s from send to model")
    assert "BODY-STOP-1 turn-end body" in turn["user_text"], "the reason is the next user turn"
    assert turn["tool_result"] is None
    eventually(
        lambda: "FAKE-ANSWER to the held prompt" in agent.screen() or None,
        "the answer to the user's prompt reached the screen",
    )
    agent.wait_stops(2)
    # Gemini CLI runs BeforeAgent for the continuation too, with the reason as its prompt: hail's
    # frame, never an envelope, and not a person's.
    (carried,) = [p for p in agent.prompts() if message_id in p]
    assert carried.startswith("hail: 1 peer message, framed by token "), carried
    assert prompted.stat().st_mtime_ns == stamp, "the continuation is not a person's prompt"
    assert len(delivery_tokens(fake, message_id)) == 1, "delivered exactly once"
    assert world.hail(["sent", message_id]).out.startswith("injected ")


def test_the_brief_reaches_the_first_request(world: World) -> None:
    assert world.hail(["whoami"], cwd=world.seat["worker"]).rc == 0  # the seat is known
    held = world.hail(["worker", "hold", "--scope", "src/auth", "--for", "2h", "HOLD: auth"])
    assert held.rc == 5, held  # no agent runs there yet: nothing to wake
    agent = world.start("gemini")
    fake = world.gemini
    (start,) = agent.hook_calls("SessionStart")
    world.tmux.submit(agent.pane, "hello")
    first = eventually(lambda: next(iter(fake.turns()), None), "the first turn reached the fake")
    text = request_text(first)
    assert "src/auth" in text, "the brief's hold is in the first request"
    assert "<hook_context>" in text
    assert float(str(start["t"])) < first["t"], "SessionStart ran at launch"


def test_a_send_to_a_gemini_asking_to_run_a_command_is_refused(world: World) -> None:
    # Without the allow list, a command that writes asks first (with it, 0.61 refuses it outright).
    path = world.home / ".gemini" / "settings.json"
    settings = json.loads(path.read_text())
    del settings["tools"]
    path.write_text(json.dumps(settings, indent=2) + "\n")
    dialog_case(world, "gemini")
