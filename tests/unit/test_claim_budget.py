"""The one claim loop of the hook and `hail inbox` (docs/envelope-and-frames.md "Budget"): the
first message always, then while the count and the bytes allow; from the first that does not fit
on, every later one stays unread, in every later mailbox too; every claim can be given back."""

from __future__ import annotations

import os
from pathlib import Path

from hail.message import render
from hail.store.maildir import Claims, Mailbox, claim_within_budget


def _post(box: Mailbox, n: int, body: str = "body") -> str:
    msg_id = f"0101T0000{n:02d}-abcd"
    headers = {"from": "boss", "reply": "boss", "kind": "fyi", "id": msg_id, "fyi": f"m{n}"}
    box.post(msg_id, render(headers, body), inline=False)
    t = 1_700_000_000 + n  # oldest first: by mtime
    os.utime(os.path.join(box.new, f"{msg_id}.md"), (t, t))
    return msg_id


def test_at_most_the_count_is_taken_and_the_rest_is_left_unread(tmp_path: Path) -> None:
    box = Mailbox(str(tmp_path / "worker"))
    ids = [_post(box, n) for n in range(7)]
    claims = Claims(8192, 5)
    taken = claim_within_budget(box, "injected", claims)
    assert [one.id for one in taken] == ids[:5]
    assert [one.id for one in claims.taken] == ids[:5]
    assert claims.left_unread == 2
    assert sorted(os.listdir(box.new)) == [f"{i}.md" for i in ids[5:]]
    assert sorted(os.listdir(box.cur)) == [f"{i}.injected.md" for i in ids[:5]]


def test_the_first_message_is_taken_whatever_its_size_and_ends_the_taking_for_every_mailbox(
    tmp_path: Path,
) -> None:
    sub = Mailbox(str(tmp_path / "worker@%1"))
    seat = Mailbox(str(tmp_path / "worker"))
    big = _post(sub, 1, "x" * 10_000)
    _post(sub, 2, "small")
    _post(seat, 3, "small")
    claims = Claims(8192, 5)
    assert [one.id for one in claim_within_budget(sub, "read", claims)] == [big]
    assert claim_within_budget(seat, "read", claims) == []
    assert claims.left_unread == 2
    assert claims.used > 10_000 and claims.shown == 1


def test_what_the_reader_adds_counts_against_the_budget_too(tmp_path: Path) -> None:
    box = Mailbox(str(tmp_path / "worker"))
    _post(box, 1, "small")
    claims = Claims(16384)
    claims.count(16_350)  # `inbox --all`: a read message shown before this mailbox's unread
    assert claim_within_budget(box, "read", claims) == []
    assert claims.left_unread == 1


def test_read_where_it_lies_claims_nothing(tmp_path: Path) -> None:
    box = Mailbox(str(tmp_path / "worker"))
    ids = [_post(box, n) for n in range(3)]
    claims = Claims(16384)
    taken = claim_within_budget(box, None, claims)
    assert [(one.id, one.path) for one in taken] == [
        (i, os.path.join(box.new, f"{i}.md")) for i in ids
    ]
    assert claims.claimed == [] and os.listdir(box.cur) == []


def test_every_claim_is_given_back_under_its_id(tmp_path: Path) -> None:
    box = Mailbox(str(tmp_path / "worker"))
    ids = [_post(box, n) for n in range(3)]
    claims = Claims(8192, 5)
    claim_within_budget(box, "injected", claims)
    claims.give_back_all()
    assert sorted(os.listdir(box.new)) == [f"{i}.md" for i in ids]
    assert os.listdir(box.cur) == [] and claims.claimed == []
