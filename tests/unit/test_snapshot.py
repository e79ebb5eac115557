"""`hail watch`'s reading of the state (src/hail/watch/state.py) on real files: what it shows,
that it reads again only what changed, that it writes nothing, and the live waits and holds."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from hail import ids
from hail.message import render
from hail.store import conversation, fs, records, waits
from hail.store.store import Store
from hail.watch.state import SETTLE_SECONDS, Reader, sent_key

NOW = time.time()


def stamp(t: float, n: int) -> str:
    return f"{ids.stamp(t)}-{n:04x}"


class State:
    """A state root written with the store's own functions."""

    def __init__(self, root: Path) -> None:
        self.store = Store(str(root / "hail"))
        fs.make_dirs(self.store.seats)
        self.serial = 0

    def post(
        self,
        to: str,
        sender: str = "boss",
        kind: str = "ask",
        *,
        t: float | None = None,
        **extra: str,
    ) -> str:
        self.serial += 1
        sent = NOW - 600 + self.serial if t is None else t
        msg_id = stamp(sent, self.serial)
        headers = {"from": sender, "reply": sender, "kind": kind, "id": msg_id}
        headers |= {"time": ids.iso(sent), "ask": f"headline {self.serial}", **extra}
        os.makedirs(self.store.ids, exist_ok=True)
        os.symlink(to, self.store.id_path(msg_id))
        self.store.mailbox(to).post(msg_id, render(headers, "body"), inline=False)
        return msg_id

    def claim(self, to: str, msg_id: str, how: str = "injected") -> None:
        assert self.store.mailbox(to).claim(msg_id, how)  # type: ignore[arg-type]

    def age_everything(self) -> None:
        """Every directory's mtime well in the past, as if nothing changed for a while."""
        old = time.time() - 10 * SETTLE_SECONDS
        for top, dirs, _ in os.walk(self.store.root):
            for d in [top, *(os.path.join(top, d) for d in dirs)]:
                os.utime(d, (old, old))

    def tree(self) -> dict[str, tuple[int, int]]:
        out = {}
        for top, dirs, files in os.walk(self.store.root):
            for name in dirs + files:
                path = os.path.join(top, name)
                st = os.lstat(path)
                out[os.path.relpath(path, self.store.root)] = (st.st_mtime_ns, st.st_size)
        return out


@pytest.fixture
def state(tmp_path: Path) -> State:
    return State(tmp_path)


def test_it_shows_every_message_newest_first_with_its_receipt_and_replies(state: State) -> None:
    ask = state.post("worker")
    state.claim("worker", ask)
    reply = state.post("boss", sender="worker", kind="fyi", re=ask)
    conversation.record_reply(state.store, ask, reply, "boss")
    view = Reader(state.store).read(time.time())
    assert [m.id for m in view.messages] == [reply, ask]
    first, second = view.messages
    assert (first.to, first.sender, first.kind, first.re, first.status) == (
        "boss",
        "worker",
        "fyi",
        ask,
        "delivered",
    )
    assert second.status == "injected" and second.received is not None
    assert second.replies == (reply,)
    assert view.total == 2
    boxes = {b.name: b for b in view.mailboxes}
    assert boxes["boss"].unread == (reply,) and boxes["worker"].read == 1


def test_the_window_keeps_the_newest_and_counts_the_rest(state: State) -> None:
    for i in range(30):
        state.post("worker" if i % 2 else "peer", t=NOW - 3000 + i * 10)
    view = Reader(state.store, limit=5).read(time.time())
    assert view.total == 30
    sent = [m.sent or 0.0 for m in view.messages]
    assert len(sent) == 5 and sent == sorted(sent, reverse=True)
    assert sent[0] == pytest.approx(NOW - 3000 + 29 * 10, abs=1)


def test_nothing_changed_means_no_read_and_a_change_means_one(state: State) -> None:
    state.post("worker")
    reader = Reader(state.store)
    reader.read(time.time())
    state.age_everything()
    assert reader.changed(time.time())  # the directories' mtimes moved (backwards)
    reader.read(time.time())
    assert not reader.changed(time.time())
    msg_id = state.post("worker")
    assert reader.changed(time.time())
    assert msg_id in [m.id for m in reader.read(time.time()).messages]


def test_a_directory_changed_within_the_settle_time_is_read_again(state: State) -> None:
    """Two renames within one clock tick leave a directory's mtime as it was: a fresh directory
    is not trusted until its mtime is older than SETTLE_SECONDS."""
    state.post("worker")
    reader = Reader(state.store)
    reader.read(time.time())
    assert reader.changed(time.time())  # new/ changed just now: look again
    state.age_everything()
    reader.changed(time.time())
    reader.read(time.time())
    assert not reader.changed(time.time())


def test_an_unchanged_cur_is_not_listed_again(
    state: State, monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(20):
        state.claim("worker", state.post("worker"))
    state.age_everything()
    reader = Reader(state.store)
    reader.changed(time.time())
    reader.read(time.time())
    listed: list[str] = []
    real = os.listdir

    def counting(path: str) -> list[str]:
        listed.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "listdir", counting)
    state.post("peer")  # another mailbox changes
    assert reader.changed(time.time())
    reader.read(time.time())
    worker_cur = state.store.mailbox("worker").cur
    assert worker_cur not in listed
    assert state.store.mailbox("peer").new in listed


def test_reading_writes_nothing_not_even_what_the_brief_would_clean(state: State) -> None:
    ask = state.post("worker")
    state.claim("worker", ask)
    box = state.store.mailbox("boss")
    fs.make_dirs(box.pending)
    fs.write_atomic(
        os.path.join(box.pending, ask), records.pending_text(ask, "ask", "worker", NOW - 900, "h")
    )
    stale = waits.Wait("boss", [ask], ["worker"], any_=False, deadline=NOW + 60)
    waits.start(state.store, stale)
    old = time.time() - 60
    os.utime(stale.path, (old, old))
    lapsed = os.path.join(state.store.holds, "0101T000000-0001")
    fs.make_dirs(state.store.holds)
    fs.write_atomic(
        lapsed,
        records.hold_text(
            msg_id="0101T000000-0001",
            issuer="boss",
            to="worker",
            scope="",
            time=ids.iso(NOW - 90000),
            re="",
            expires=ids.iso(NOW - 3600),
            headline="h",
        ),
    )
    before = state.tree()
    reader = Reader(state.store)
    view = reader.read(time.time())
    reader.changed(time.time())
    reader.read(time.time())
    assert state.tree() == before
    assert view.waits == () and view.holds == ()
    assert {b.name: b.pending for b in view.mailboxes}["boss"] == ()  # it has its receipt
    waits.stop(stale)


def test_a_live_wait_and_a_hold_in_effect_are_shown_until_their_time(state: State) -> None:
    ask = state.post("worker")
    wait = waits.Wait("boss", [ask], ["worker"], any_=False, deadline=NOW + 60)
    waits.start(state.store, wait)
    fs.make_dirs(state.store.holds)
    hold_id = "0101T000000-0002"
    lapses = time.time() + 30
    fs.write_atomic(
        os.path.join(state.store.holds, hold_id),
        records.hold_text(
            msg_id=hold_id,
            issuer="boss",
            to="worker",
            scope="src",
            time=ids.iso(time.time() - 60),
            re="",
            expires=ids.iso(lapses),
            headline="h",
        ),
    )
    now = time.time()
    view = Reader(state.store).read(now)
    assert [(w.waiter, w.asks, w.targets) for w in view.waits] == [("boss", (ask,), ("worker",))]
    assert [(h.id, h.issuer, h.to, h.scope) for h in view.holds] == [
        (hold_id, "boss", "worker", "src")
    ]
    # time alone changes what is shown: the wait goes stale within 5 s, the hold lapses
    assert view.due <= now + 5.5
    later = Reader(state.store).read(lapses + 1)
    assert later.holds == ()
    waits.stop(wait)


def test_pending_sends_are_those_still_unread(state: State) -> None:
    unread = state.post("worker")
    read = state.post("worker")
    state.claim("worker", read, "read")
    box = state.store.mailbox("boss")
    fs.make_dirs(box.pending)
    for msg_id in (unread, read):
        fs.write_atomic(
            os.path.join(box.pending, msg_id),
            records.pending_text(msg_id, "ask", "worker", NOW - 300, "h"),
        )
    view = Reader(state.store).read(time.time())
    pending = {b.name: b.pending for b in view.mailboxes}["boss"]
    assert [p.id for p in pending] == [unread]


def test_hook_errors_of_the_last_week_are_counted(state: State) -> None:
    log = state.store.hook_log
    old = ids.iso(NOW - 8 * 86400)
    fresh = [ids.iso(NOW - 60), ids.iso(NOW - 30)]
    with open(log, "w") as f:
        f.write(
            f"{old} deliver: old\n{fresh[0]} deliver: first\n  traceback line\n{fresh[1]} brief: last \x1b[31m\n"
        )
    errors = Reader(state.store).read(time.time()).hook_errors
    assert errors is not None
    assert (errors.count, errors.since) == (2, fresh[0])
    assert errors.last.endswith("brief: last [31m")  # the escape character is dropped


def test_a_missing_root_is_empty_and_not_created(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "nowhere" / "hail"))
    reader = Reader(store)
    view = reader.read(time.time())
    assert not view.exists and view.mailboxes == () and view.messages == ()
    assert not os.path.exists(tmp_path / "nowhere")


def test_an_ids_send_time_carries_the_year_that_puts_it_in_the_past() -> None:
    now = ids.parse_iso("2026-01-02T00:00:00Z")
    assert now is not None
    assert sent_key("1231T235959-abcd", now) == ids.parse_iso("2025-12-31T23:59:59Z")
    assert sent_key("0101T120000-abcd", now) == ids.parse_iso("2026-01-01T12:00:00Z")
    assert sent_key("msg-17", now) is None


def test_a_wait_record_nobody_holds_counts_for_nothing_and_stays(state: State) -> None:
    """A record written by hand (or left by a killed wait) has no process holding its lock."""
    ask = state.post("worker")
    where = waits.waits_dir(state.store)
    fs.make_dirs(where)
    forged = waits.Wait("boss", [ask], ["worker"], any_=False, deadline=time.time() + 60)
    path = os.path.join(where, f"{forged.started}-1")
    fs.write_atomic(path, forged.text())
    view = Reader(state.store).read(time.time())
    assert view.waits == ()
    assert os.path.exists(path)
