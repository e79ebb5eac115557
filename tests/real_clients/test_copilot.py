"""Copilot CLI 1.0.102 with hail's hooks installed by ``hail setup``, offline against the fake Chat
Completions server (``COPILOT_OFFLINE``, ``COPILOT_PROVIDER_*``: no GitHub login).

A plain ``copilot`` has no door: an idle agent is woken by typing its envelope into the idle, empty
composer, and its userPromptSubmitted hook puts the body in that turn. A busy one gets its mail
from postToolUse (appended to the tool's result) or agentStop (the reason becomes the next
prompt). Its hooks run in the git root, so they take their seat from the payload's ``cwd``; the
seats here are subdirectories of one git repository to show it. hail's preToolUse hook lets the
model's own ``hail …`` past Copilot's permission prompt.
"""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from hail.install.formats import copilot_hooks

from .evidence import delivery_tokens, eventually, first_delivery, typed_wake
from .fake_http import request_text
from .test_busy import assert_nothing_typed, hold_a_turn, send_while_busy
from .test_conversations import reply_wakes_the_asker
from .test_dialog import test_send_into_an_open_dialog_is_refused as dialog_case
from .test_gauge import shown_agent
from .world import World


@pytest.fixture
def repo_world(world: World) -> World:
    """The world's root as one git repository: Copilot runs every seat's hooks in its root."""
    subprocess.run(["git", "init", "-q", str(world.root)], check=True)
    return world


def test_setup_installs_hails_hooks_file_beside_the_users(world: World) -> None:
    hooks = world.home / ".copilot" / "hooks"
    assert json.loads((hooks / "probe.json").read_text())["hooks"], "the user's hooks file stays"
    text = (hooks / "hail.json").read_text()
    assert copilot_hooks.program_in(text) is not None, "hail's current hooks file"
    check = world.hail(["setup", "--check"], cwd=world.root)
    assert check.rc == 0, check
    assert f"ok    Copilot CLI: hail's hooks file current in {hooks / 'hail.json'}" in check.out
    doctor = world.hail(["doctor"], cwd=world.seat["worker"])
    assert f"Copilot CLI hooks current ({hooks / 'hail.json'})" in doctor.out, doctor


def test_an_idle_copilot_is_woken_by_its_envelope_and_seats_names_it(repo_world: World) -> None:
    world = repo_world
    agent = world.start("copilot")
    seats = world.hail(["seats"])
    row = next(line for line in seats.out.splitlines() if line.startswith("worker "))
    assert "copilot" in row and "idle" in row, seats
    headline = "please review the parser change before the merge"
    body = "BODY-COPILOT-1 the parser lives in src/parse.py\nsecond line of the body"
    sent, text = typed_wake(world, agent, headline, body)
    assert f"id:{sent}]\nBODY-COPILOT-1 the parser lives in src/parse.py\n" in text
    assert "<system_reminder>\nhail: 1 peer message" in text, "userPromptSubmitted's context"
    assert text.count(headline) == 1, "the headline reaches the model once, in the prompt"
    agent.wait_stops(1)
    fake = world.chat
    assert len(delivery_tokens(fake, sent)) == 1, "delivered exactly once"
    assert world.hail(["sent", sent]).out.startswith("injected ")
    # Its gauge: the last call's prompt from its events file, named by agentStop's payload.
    last = fake.turns()[-1]["usage"]["context"]
    shown = shown_agent(world, agent, last)
    assert shown["agent"] == "copilot" and shown["gauge"]["window"]["value"] == 128_000
    assert shown["task"] == headline, "the task line: the headline that woke it"
    # Its hooks ran in the git root, and took the seat of the pane's directory all the same.
    (call,) = [c for c in agent.hook_calls("UserPromptSubmit") if sent in str(c["payload"])]
    assert isinstance(call["payload"], dict) and call["payload"]["cwd"] == str(world.seat["worker"])


DRAFT = "HALFDRAFT please refactor the tokenizer"


def test_a_persons_draft_stays_and_the_message_arrives_with_their_prompt(world: World) -> None:
    agent = world.start("copilot")
    world.tmux.cmd("send-keys", "-t", agent.pane, "-l", "--", DRAFT)
    eventually(lambda: DRAFT in agent.screen() or None, "the draft is in the composer")
    sent = world.send("worker", "a question while you type", "BODY-COPILOT-DRAFT")
    assert sent.rc == 5, sent
    assert f"a person is typing in {agent.pane}: arrives with their next prompt" in sent.err
    time.sleep(1)
    assert_nothing_typed(agent, sent.id)
    assert DRAFT in agent.screen(), "the draft is still in the composer"
    world.tmux.cmd("send-keys", "-t", agent.pane, "Enter")
    turn = eventually(lambda: first_delivery(world.chat, sent.id), "it came with the prompt")
    assert DRAFT in turn["user_text"] and "BODY-COPILOT-DRAFT" in request_text(turn)
    assert len(delivery_tokens(world.chat, sent.id)) == 1


@pytest.mark.parametrize(
    ("prompt", "where", "stops"),
    [
        # The fake holds a reply that then calls `echo hi`: postToolUse appends the body to its
        # result.
        ("HOLD_TOOL then echo", "tool", 1),
        # The fake holds a text reply: agentStop's block makes the body the next prompt.
        ("HOLD_TEXT then answer", "turn-end", 2),
    ],
)
def test_mail_reaches_a_busy_copilot_once_at_its_next_tool_or_turn_end(
    world: World, prompt: str, where: str, stops: int
) -> None:
    agent = world.start("copilot")
    fake = world.chat
    hold_a_turn(world, agent, prompt)
    body = f"BODY-COPILOT-{where}"
    message_id, sent_at = send_while_busy(world, agent, "a question during your turn", body)
    fake.release()
    turn = eventually(lambda: first_delivery(fake, message_id), "the body reached the model")
    print(f"FIGURE {where} copilot: {turn['t'] - sent_at:.2f} s from send to model (1 s held)")
    if where == "tool":
        assert turn["tool_result"] is not None and body in turn["tool_result"], "postToolUse"
    else:
        assert body in turn["user_text"] and turn["tool_result"] is None, "agentStop's reason"
    agent.wait_stops(stops)
    assert len(delivery_tokens(fake, message_id)) == 1, "delivered exactly once"
    assert world.hail(["sent", message_id]).out.startswith("injected ")


def test_its_reply_runs_past_the_permission_prompt_and_wakes_its_asker(world: World) -> None:
    """Copilot's model answers with `hail boss fyi --re …`, which its permission prompt would stop
    (Manual Approval is its default) but for hail's preToolUse hook; the answer wakes Claude Code."""
    copilot = world.start("copilot", seat="worker")
    claude = world.start("claude", seat="boss")
    reply_wakes_the_asker(world, claude, copilot)
    assert "Do you want to run this command?" not in copilot.screen()
    ran = [c for c in copilot.hook_calls("PostToolUse") if "FAKE-ANSWER" in str(c["payload"])]
    assert ran, "Copilot ran the model's hail command"


def test_a_sub_seat_reaches_its_own_pane_of_a_shared_seat(world: World) -> None:
    """Two Copilot CLIs in one seat: `worker@%N` types into pane %N alone, and that pane's hook
    (its own TMUX_PANE) delivers the sub-seat's mail."""
    first = world.start("copilot")
    second = world.start("copilot")
    sent = world.send(f"worker@{second.pane}", "a question for this pane", "BODY-COPILOT-SUB")
    assert sent.rc == 0, sent
    turn = eventually(lambda: first_delivery(world.chat, sent.id), "the body reached the model")
    assert "BODY-COPILOT-SUB" in request_text(turn)
    assert any(sent.id in p for p in second.prompts()), "typed into its own pane"
    assert not any(sent.id in p for p in first.prompts()), "not into the other"
    assert world.hail(["sent", sent.id]).out.startswith("injected ")


def test_a_send_to_a_copilot_asking_to_run_a_command_is_refused(world: World) -> None:
    # Its permission dialog replaces the composer: typing there would answer it.
    dialog_case(world, "copilot")
