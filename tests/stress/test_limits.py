"""Limits of output, payloads, paths and disks: hail stays within what a harness keeps, refuses
what it cannot see whole, and fails on a full disk with a clear error and nothing half-written.
"""

from __future__ import annotations

import os
import re
import time

import pytest

from hail import policy
from hail.store.message import render
from tests.stress.conftest import parse_delivery
from tests.support.world import World

pytestmark = pytest.mark.stress

MORE_RE = re.compile(r"^\((\d+) more unread: run hail inbox again\)$", re.M)


def _flood(world: World, n: int, body: str) -> list[str]:
    """`n` unread messages written straight into worker's inbox (a send each would take minutes)."""
    assert world.run("whoami", cwd="worker").returncode == 0
    world.send("worker", "fyi", "makes new/ and cur/")
    assert world.run("inbox", cwd="worker").returncode == 0
    new = world.state / "seats" / "worker" / "new"
    ids = []
    t = time.time() - n
    for i in range(n):
        msg_id = f"0101T{i // 10000:02d}{i % 10000:04d}-abcd"
        headers = {"from": "boss", "reply": "boss", "kind": "fyi", "id": msg_id, "ask": f"m{i}"}
        path = new / f"{msg_id}.md"
        path.write_text(render(headers, body))
        os.utime(path, (t + i, t + i))
        ids.append(msg_id)
    return ids


def test_inbox_prints_within_its_budget_and_leaves_the_rest_unread(world: World) -> None:
    ids = _flood(world, 2000, "x" * 500)
    seen: list[str] = []
    for _ in range(200):
        r = world.run("inbox", cwd="worker")
        assert r.returncode == 0, r.stderr
        if r.stdout == "(inbox empty)\n":
            break
        assert len(r.stdout.encode()) <= policy.INBOX_MAX_BYTES + 1024, len(r.stdout)
        text = r.stdout.rstrip("\n")
        more = MORE_RE.search(text)
        delivery = parse_delivery(MORE_RE.sub("", text).rstrip("\n"))
        assert delivery is not None
        shown = [msg_id for msg_id, _ in delivery.frames]
        seen += shown
        left = len(list((world.state / "seats" / "worker" / "new").glob("*.md")))
        assert (int(more.group(1)) if more else 0) == left
    assert seen == ids  # every one exactly once, oldest first


def test_inbox_cuts_one_huge_body_and_names_the_way_to_the_whole(world: World) -> None:
    msg_id = world.send("worker", "ask", "huge", body="y" * 1_000_000)
    r = world.run("inbox", cwd="worker")
    assert r.returncode == 0
    assert len(r.stdout.encode()) <= policy.INBOX_MAX_BYTES + 1024
    assert f"hail show {msg_id} prints the whole message" in r.stdout
    assert world.run("sent", msg_id).stdout.startswith("read ")
    assert "y" * 1_000_000 in world.run("show", msg_id).stdout
