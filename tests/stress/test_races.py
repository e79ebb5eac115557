"""Races: concurrent senders, hooks, inbox readers and awaiters never lose or double a message
[docs/files.md "Message ids", docs/files.md "Writes and claims", docs/commands.md "await"].

Each test is bounded by a fixed number of processes and a deadline.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.stress.conftest import (
    context_of,
    delivered_ids,
    know,
    message_files,
    parse_delivery,
    spawn,
)
from tests.support.ids import ID, id_of
from tests.support.world import World

pytestmark = pytest.mark.stress

SEATS = ("worker", "w2", "w3")
SENDS_PER_SEAT = 30
SENDER_THREADS = 6
DEADLINE = 150.0
ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def body_for(i: int) -> str:
    return f"body of race message {i}\nsecond line {i}"


class Drainer(threading.Thread):
    """Runs one reading verb in a loop in one seat until told to stop and the seat's new/ is empty."""

    def __init__(self, world: World, seat: str, args: tuple[str, ...], how: str) -> None:
        super().__init__(daemon=True)
        self.world, self.seat, self.args, self.how = world, seat, args, how
        self.stop = threading.Event()
        self.got: list[tuple[str, list[str]]] = []  # (id, body lines)
        self.runs = 0
        self.failures: list[str] = []

    def run(self) -> None:
        new = self.world.state / "seats" / self.seat / "new"
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            if self.stop.is_set() and not any(new.glob("*.md")):
                return
            r = self.world.run(*self.args, cwd=self.seat)
            self.runs += 1
            if r.returncode != 0 or r.stderr:
                self.failures.append(f"{self.args} rc={r.returncode} {r.stderr!r}")
                continue
            d = parse_delivery(context_of(r.stdout))
            if d is not None:
                self.got += d.frames


def test_concurrent_senders_and_readers_deliver_every_printed_id_exactly_once(
    world: World, figures: Any
) -> None:
    know(world, *SEATS)
    drainers = [Drainer(world, s, ("deliver", "--format", "claude"), "injected") for s in SEATS]
    drainers += [
        Drainer(world, s, ("deliver", "--format", "codex", "--event", "PostToolUse"), "injected")
        for s in SEATS[:1]
    ]
    drainers += [Drainer(world, s, ("inbox",), "read") for s in SEATS]
    for d in drainers:
        d.start()

    printed: dict[str, tuple[str, int]] = {}  # id -> (seat, i)
    lock = threading.Lock()
    awaits: list[tuple[subprocess.Popen[bytes], list[str]]] = []

    def one_send(i: int) -> None:
        seat = SEATS[i % len(SEATS)]
        r = world.run(seat, "ask", "--no-wake", f"race {i}", stdin=body_for(i))
        assert r.returncode == 5, (r.returncode, r.stderr)
        msg_id = id_of(r.stdout)
        with lock:
            assert msg_id not in printed, f"id {msg_id} printed twice"
            printed[msg_id] = (seat, i)
            # Await the first ids while the claim races are still going on.
            if len(printed) in (6, 30, 60):
                batch = list(printed)[-6:]
                awaits.append(
                    (spawn(world, "await", *batch, "--timeout", "120", cwd="boss"), batch)
                )

    total = SENDS_PER_SEAT * len(SEATS)
    with ThreadPoolExecutor(SENDER_THREADS) as pool:
        list(pool.map(one_send, range(total)))
    for d in drainers:
        d.stop.set()
    for d in drainers:
        d.join(DEADLINE)
        assert not d.is_alive(), "a drainer did not finish within its deadline"

    # Every printed id was delivered to exactly one context, with its whole body.
    who: dict[str, list[str]] = defaultdict(list)
    for d in drainers:
        for msg_id, lines in d.got:
            who[msg_id].append(d.how)
            seat, i = printed[msg_id]
            assert d.seat == seat, f"{msg_id} reached {d.seat}, sent to {seat}"
            assert lines == body_for(i).split("\n"), (msg_id, lines)
    lost = [m for m in printed if m not in who]
    doubled = {m: w for m, w in who.items() if len(w) > 1}
    assert not lost, f"lost: {lost}"
    assert not doubled, f"doubled: {doubled}"
    assert set(who) == set(printed)
    assert not [f for d in drainers for f in d.failures]

    # Receipts match who got it: one await over every id (filesystem only), and `sent` per id.
    r = world.run("await", *printed, "--timeout", "5")
    assert r.returncode == 0, r.stdout
    lines = r.stdout.splitlines()
    assert len(lines) == total
    for line, msg_id in zip(lines, printed, strict=True):
        assert re.fullmatch(rf"{re.escape(msg_id)} {who[msg_id][0]} {ISO}", line), line
    for msg_id in list(printed)[:: max(1, total // 10)]:
        assert world.run("sent", msg_id).stdout.startswith(who[msg_id][0] + " ")

    # The awaits started mid-race were satisfied with the same receipts.
    for proc, batch in awaits:
        out, err = proc.communicate(timeout=DEADLINE)
        assert proc.returncode == 0, (out, err)
        for line, msg_id in zip(out.decode().splitlines(), batch, strict=True):
            assert line.startswith(f"{msg_id} {who[msg_id][0]} "), line

    # Nothing left behind: no unread mail, nothing in tmp/, no half-written record.
    assert message_files(world.state, "new") == []
    assert message_files(world.state, "tmp") == []
    assert not [p for p in world.state.rglob("*") if p.name.endswith(".tmp")]
    runs = sum(d.runs for d in drainers)
    figures(
        messages=total,
        sender_processes=total,
        reader_processes=runs,
        await_processes=len(awaits) + 1,
        injected=sum(1 for w in who.values() if w[0] == "injected"),
        read=sum(1 for w in who.values() if w[0] == "read"),
        lost=len(lost),
        doubled=len(doubled),
    )


def test_forty_senders_started_at_once_get_forty_distinct_ids_and_files(
    world: World, figures: Any
) -> None:
    know(world, "worker")
    procs = [
        spawn(world, "worker", "fyi", "--no-wake", f"burst {i}", stdin=subprocess.DEVNULL)
        for i in range(40)
    ]
    outs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 5 for p in procs), [e for _, e in outs]
    got = [id_of(o.decode()) for o, _ in outs]
    assert len(set(got)) == 40
    files = message_files(world.state, "new")
    assert sorted(f.name[:-3] for f in files) == sorted(got)
    figures(processes=40, distinct_ids=len(set(got)))


FREE_SUFFIXES = 512  # of 65536: a draw succeeds 1 time in 128
PINNED = 1790000000.25  # every sender's clock reads this second


def pin_clock(world: World, tmp_path: Path) -> dict[str, str]:
    """An environment whose Python processes all read the same wall-clock second.

    A `sitecustomize` on PYTHONPATH replaces `time.time` in the hail subprocesses, so "many
    processes in the same second" is certain rather than likely.
    """
    d = tmp_path / "pinned-clock"
    d.mkdir()
    (d / "sitecustomize.py").write_text(f"import time\ntime.time = lambda: {PINNED!r}\n")
    return {"PYTHONPATH": str(d)}


def test_id_reservation_under_contention_never_hands_out_one_id_twice(
    world: World, tmp_path: Path, figures: Any
) -> None:
    """All 40 senders run in the same second, in which all but 512 suffixes are taken: each gets a
    distinct id with its file, or (after 256 draws) exits 1 with its documented message and writes
    no message."""
    know(world, "worker")
    ids_dir = world.state / "ids"
    ids_dir.mkdir(mode=0o700, exist_ok=True)
    stamp = time.strftime("%m%dT%H%M%S", time.gmtime(PINNED))
    free = {f"{n:04x}" for n in range(0, 65536, 65536 // FREE_SUFFIXES)}
    for n in range(65536):
        if f"{n:04x}" not in free:
            os.symlink("worker", ids_dir / f"{stamp}-{n:04x}")
    before = set(os.listdir(ids_dir))
    pinned = pin_clock(world, tmp_path)
    procs = [
        spawn(world, "worker", "fyi", "--no-wake", f"contended {i}", env=pinned) for i in range(40)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    got: list[str] = []
    exhausted = 0
    for p, (out, err) in zip(procs, outs, strict=True):
        if p.returncode == 5:
            got.append(id_of(out.decode()))
        else:
            assert p.returncode == 1, err
            assert f"could not reserve a message id in {ids_dir}" in err.decode(), err
            assert out == b""
            exhausted += 1
    assert len(set(got)) == len(got), "an id was handed out twice"
    assert all(g.startswith(stamp + "-") and g[12:] in free for g in got), got
    assert len(got) >= 20, "hardly any sender found a free id"
    files = message_files(world.state, "new")
    assert sorted(f.name[:-3] for f in files) == sorted(got)
    assert set(os.listdir(ids_dir)) - before == set(got)
    assert message_files(world.state, "tmp") == []
    figures(processes=40, same_second=stamp, distinct=len(set(got)), exhausted_exit_1=exhausted)


def test_await_started_before_the_race_sees_the_one_receipt(world: World, figures: Any) -> None:
    """An await polls while four hooks and two inbox readers race for the same messages."""
    know(world, "worker")
    sent_ids = [
        id_of(world.run("worker", "ask", "--no-wake", f"await {i}", stdin=f"b{i}").stdout)
        for i in range(12)
    ]
    waiter = spawn(world, "await", *sent_ids, "--timeout", "60")
    time.sleep(0.3)
    assert waiter.poll() is None, "await returned before anything was claimed"
    readers = [spawn(world, "deliver", "--format", "claude", cwd="worker") for _ in range(4)] + [
        spawn(world, "inbox", cwd="worker") for _ in range(2)
    ]
    outs = [p.communicate(timeout=60) for p in readers]
    got: dict[str, str] = {}
    for i, (out, _) in enumerate(outs):
        how = "injected" if i < 4 else "read"
        for msg_id in delivered_ids(out.decode()):
            assert msg_id not in got, f"{msg_id} doubled"
            got[msg_id] = how
    # The hooks take at most 5 each; whatever is left is read by a last inbox.
    for msg_id in delivered_ids(world.run("inbox", cwd="worker").stdout):
        assert msg_id not in got
        got[msg_id] = "read"
    assert set(got) == set(sent_ids)
    out, _ = waiter.communicate(timeout=60)
    assert waiter.returncode == 0
    for line, msg_id in zip(out.decode().splitlines(), sent_ids, strict=True):
        assert re.fullmatch(rf"{msg_id} {got[msg_id]} {ISO}", line), line
        assert re.fullmatch(ID, msg_id)
    figures(messages=12, racing_readers=6, lost=len(set(sent_ids) - set(got)), doubled=0)
