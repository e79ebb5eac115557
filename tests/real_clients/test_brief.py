"""Mail that waits before a session starts reaches the session's first model request once: the
first prompt's hook delivers it in full, and the SessionStart brief leaves it out. Claude Code runs
SessionStart at launch, Codex at the first prompt (docs/real-clients.md "Codex hooks"); either way
both land in that first request, so a brief listing the mail would repeat it."""

from __future__ import annotations

import time

from .evidence import delivery_tokens, eventually
from .fake_http import request_text
from .world import World


def test_mail_waiting_at_session_start_is_in_the_first_request(world: World, client: str) -> None:
    # A shell pane makes the worker seat known; shells are never woken, so the send waits.
    world.tmux.new_window(world.seat["worker"], ["bash", "--norc", "--noprofile"], {})
    headline = "the release notes need your review"
    sent = world.send("worker", headline, "BODY-BRIEF-1 notes are in docs/")
    assert sent.rc == 5, sent
    assert "no agent runs in seat worker" in sent.err
    message_id = sent.id

    agent = world.start(client)
    fake = world.fake_for(agent)
    prompted_at = time.time()
    world.tmux.submit(agent.pane, "hello")
    first = eventually(lambda: next(iter(fake.turns()), None), "the first turn reached the fake")

    context = request_text(first)
    assert f"id:{message_id}] {headline}\nBODY-BRIEF-1 notes are in docs/" in context
    assert context.count(headline) == 1, "the brief leaves out what the first prompt delivers"
    assert len(delivery_tokens(fake, message_id)) == 1
    (start,) = agent.hook_calls("SessionStart")
    started_at = float(str(start["t"]))
    if client == "claude":
        assert started_at < prompted_at, "Claude Code runs SessionStart at launch"
    else:
        assert started_at >= prompted_at, "Codex runs SessionStart at the first prompt"
