"""Headlines the composers could take for something else are still submitted as typed. A trailing
``@word`` opens the file-mention popup (Enter would accept the completion), a leading ``/`` or ``!``
starts a command when it begins the line, and the longest headline the cap allows tests paste
handling (Codex needs a pause before Enter: docs/transport.md "Verification and submit"). Typed only
where no native wake reaches (docs/transport.md "Routes"): Claude Code settings from before the
waiter, a Codex that has had no prompt."""

from __future__ import annotations

import pytest

from .evidence import envelope, eventually, submitted_prompt
from .world import World

CAP = 400  # the default cap: docs/envelope-and-frames.md "Cap and folding"
LONG = ("the longest headline the cap allows, typed in one go; " * 8)[: CAP - 1] + "Z"

CASES = {
    "at-word": ("the notes are in @notes", False),
    "slash": ("/compact the log, then reply", False),
    "bang": ("! echo bang", False),
    "longest": (LONG, True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_special_headline_is_submitted_verbatim(
    typing_world: World, client: str, case: str
) -> None:
    world = typing_world
    headline, with_body = CASES[case]
    assert len(headline) <= CAP
    # Something for the @-popup to complete to, as in a real workspace.
    (world.seat["worker"] / "notes.txt").write_text("notes\n")
    agent = world.start(client)
    fake = world.fake_for(agent)

    sent = world.send("worker", headline, "BODY-HEADLINE-1" if with_body else None)

    assert sent.rc == 0, sent
    assert "folded" not in sent.err
    message_id = sent.id
    expected = envelope(message_id, headline, sender=f"boss/{world.boss_pane}", with_body=with_body)
    assert submitted_prompt(agent, message_id) == expected
    turn = eventually(
        lambda: next((t for t in fake.turns() if f"id:{message_id}]" in t["user_text"]), None),
        "the envelope reached the model as the user's turn",
    )
    assert expected in turn["user_text"]
    agent.wait_stops(1)
