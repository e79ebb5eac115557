"""A permission/approval dialog is on screen. Typing there is dangerous (Claude Code's Enter
approves option 1; a ``y`` typed into Codex approves at once), so hail must refuse with exit 4
before writing or typing anything, and leave the dialog unanswered."""

from __future__ import annotations

from .evidence import eventually
from .world import World

DIALOG = {
    "claude": "Do you want to proceed?",
    "codex": "Would you like to run the following command?",
    "gemini": "Allow execution of [Shell]?",
}


def test_send_into_an_open_dialog_is_refused(world: World, client: str) -> None:
    agent = world.start(client)
    world.tmux.submit(agent.pane, "RUN_WRITE please")
    eventually(lambda: DIALOG[client] in agent.screen() or None, f"{client} shows its dialog")

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


def seat_state(world: World, seat: str = "worker") -> str:
    """The STATE cell of `hail seats <seat>`: the one agent's state."""
    table = world.hail(["seats", seat])
    row = next(line for line in table.out.split("\n") if line.startswith(f"{seat} "))
    return row.split()[2]
