"""An idle agent that no native wake reaches (docs/transport.md "Routes": Claude Code settings from
before the waiter, a Codex that has had no prompt) gets an ask typed. The envelope becomes the
prompt, the body reaches the model inside its frame in that same turn, without the headline the
prompt already carries, and the receipt says ``injected``. test_native_wake.py has the native
routes."""

from __future__ import annotations

import time

from .evidence import delivery_tokens, envelope, eventually, first_delivery, submitted_prompt
from .fake_http import request_text
from .world import World


def test_ask_to_an_idle_agent_is_submitted_and_injected(typing_world: World, client: str) -> None:
    world = typing_world
    agent = world.start(client)
    fake = world.fake_for(agent)
    headline = "please review the parser change before the merge"
    body = "BODY-IDLE-1 the parser lives in src/parse.py\nsecond line of the body"

    sent_at = time.time()
    sent = world.send("worker", headline, body)

    assert sent.rc == 0, sent
    assert sent.err == f"hail: typed: into {agent.pane}\n", sent
    message_id = sent.id
    prompt = submitted_prompt(agent, message_id)
    expected = envelope(message_id, headline, sender=f"boss/{world.boss_pane}", with_body=True)
    assert prompt == expected
    turn = eventually(lambda: first_delivery(fake, message_id), "the framed body reached the model")
    print(f"FIGURE idle {client}: {turn['t'] - sent_at:.2f} s from send to model")
    assert expected in turn["user_text"], "the envelope is the user turn of that request"
    text = request_text(turn)
    assert f"id:{message_id}]\nBODY-IDLE-1 the parser lives in src/parse.py\n" in text
    assert "second line of the body" in text
    assert text.count(headline) == 1, "the headline reaches the model once, in the prompt"
    agent.wait_stops(1)
    assert len(delivery_tokens(fake, message_id)) == 1, "delivered exactly once"
    receipt = world.hail(["sent", message_id])
    assert receipt.rc == 0, receipt
    assert receipt.out.startswith("injected "), receipt
