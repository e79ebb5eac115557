"""A permission/approval dialog is on screen. Typing there is dangerous (Claude Code's Enter
approves option 1; a ``y`` typed into Codex approves at once).

- Where a send would type (no native wake: docs/transport.md "Routes"), hail refuses with exit 4
  before writing or typing anything, and leaves the dialog unanswered.
- Where a native wake is live, the dialog is part of a running turn: the message is filed and
  nothing typed, woken or queued (exit 5); the receipt says ``delivered`` while the dialog holds the
  turn, and ``injected`` only once the answered dialog's tool call brought the body to the model."""

from __future__ import annotations

import time

from .evidence import delivery_tokens, eventually, first_delivery
from .fake_http import request_text
from .test_busy import start_kind
from .world import World

DIALOG = {
    "claude": "Do you want to proceed?",
    "codex": "Would you like to run the following command?",
    "gemini": "Allow execution of [Shell]?",
    "copilot": "Do you want to run this command?",
}


def test_send_into_an_open_dialog_is_refused(typing_world: World, client: str) -> None:
    world = typing_world
    agent = world.start(client)
    world.tmux.submit(agent.pane, "RUN_WRITE please")
    eventually(lambda: DIALOG[client] in agent.screen() or None, f"{client} shows its dialog")
    for record in (world.state / "hail" / "presence").glob("codex-*"):
        record.unlink()  # as with hooks from before hail recorded Codex threads: it would type

    sent = world.send("worker", "are you there", "BODY-DIALOG-1")

    assert sent.rc == 4, sent
    assert "shows a permission/approval dialog" in sent.err
    assert "id=" not in sent.out
    screen = agent.screen()
    assert DIALOG[client] in screen, "the dialog is still there"
    assert "[hail" not in screen and "BODY-DIALOG-1" not in screen, "nothing was typed"
    assert not (agent.cwd / "newfile.txt").exists(), "the dialog was not answered"
    assert not agent.hook_calls("PostToolUse"), "the tool did not run"
    assert world.mailbox_files("worker") == [], "nothing was written to the inbox"
    ids = world.state / "hail" / "ids"
    assert not ids.is_dir() or not any(ids.iterdir()), "no message id was reserved"
    assert seat_state(world) == "dialog"


def test_a_dialog_holds_the_message_until_it_is_answered(world: World, kind: str) -> None:
    client = "claude" if kind == "claude" else "codex"
    agent = start_kind(world, kind)
    fake = world.fake_for(agent)
    world.tmux.submit(agent.pane, "RUN_WRITE please")
    eventually(lambda: DIALOG[client] in agent.screen() or None, f"{client} shows its dialog")

    sent = world.send("worker", "are you there", "BODY-DIALOG-2 held by the dialog")

    assert sent.rc == 5, sent
    assert (
        f"not typed (a dialog in {agent.pane} holds its turn; it arrives with the next tool call "
        "once the dialog is answered)" in sent.err
    ), sent
    message_id = sent.id
    time.sleep(1)
    screen = agent.screen()
    assert DIALOG[client] in screen, "the dialog is untouched"
    assert "BODY-DIALOG-2" not in screen and f"id:{message_id}" not in screen, "nothing typed"
    assert not (agent.cwd / "newfile.txt").exists(), "the dialog was not answered"
    assert world.hail(["sent", message_id]).out == "delivered\n", "not injected while it is held"
    assert first_delivery(fake, message_id) is None

    world.tmux.cmd("send-keys", "-t", agent.pane, "Enter")  # the person approves option 1
    turn = eventually(lambda: first_delivery(fake, message_id), "the body reached the model")
    assert turn["tool_result"] is not None, "with the answered dialog's tool call"
    assert "BODY-DIALOG-2 held by the dialog" in request_text(turn)
    assert (agent.cwd / "newfile.txt").exists(), "the person's answer ran the tool"
    agent.wait_stops(1)
    assert world.hail(["sent", message_id]).out.startswith("injected ")
    assert len(delivery_tokens(fake, message_id)) == 1


def seat_state(world: World, seat: str = "worker") -> str:
    """The STATE cell of `hail seats <seat>`: the one agent's state."""
    table = world.hail(["seats", seat])
    row = next(line for line in table.out.split("\n") if line.startswith(f"{seat} "))
    return row.split()[2]
