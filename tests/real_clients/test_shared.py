"""Two Claude Code sessions in one directory. The bare seat is refused, and ``<seat>@%N`` reaches
that pane only: its envelope, its hooks, its model requests. Each session talks to its own fake, so
"only" can be checked on the other one. (Codex panes never hold a sub-seat, docs/seats.md
"Shared directories and sub-seats", so this is Claude only.)"""

from __future__ import annotations

from .evidence import delivery_tokens, eventually, first_delivery
from .fake_http import request_text
from .world import World


def test_sub_seat_reaches_its_own_pane_only(world: World) -> None:
    fake_a, fake_b = world.anthropic, world.fake("fake_anthropic")
    a = world.start("claude", seat="shared", fake=fake_a)
    b = world.start("claude", seat="shared", fake=fake_b)

    bare = world.send("shared", "who gets this", "BODY-SHARED-0")
    assert bare.rc == 3, bare
    assert f"address one: shared@{a.pane} shared@{b.pane}" in bare.err
    assert world.mailbox_files("shared") == []

    sent = world.send(f"shared@{b.pane}", "only for the second session", "BODY-SHARED-1")
    assert sent.rc == 0, sent
    message_id = sent.id
    assert f"woken: shared@{b.pane}'s session in {b.pane}" in sent.err, "b's waiter woke it"
    turn = eventually(lambda: first_delivery(fake_b, message_id), "the body reached b's model")
    assert b.prompts()[-1].startswith("<task-notification>"), "nothing typed"
    assert "BODY-SHARED-1" in request_text(turn)
    b.wait_stops(1)

    assert not any(message_id in p for p in a.prompts()), "a got no envelope"
    assert message_id not in a.screen()
    assert all("BODY-SHARED-1" not in request_text(t) for t in fake_a.entries()), (
        "a's model saw nothing"
    )
    assert len(delivery_tokens(fake_b, message_id)) == 1
    assert [p.name for p in world.mailbox_files(f"shared@{b.pane}")] == [
        f"{message_id}.injected.md"
    ]
    assert world.hail(["sent", message_id]).out.startswith("injected ")
