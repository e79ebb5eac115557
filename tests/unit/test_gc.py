"""gc's mechanics on real files [docs/commands.md "gc"]: what moves, what stays, and crashes between
the steps."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from hail.message import render
from hail.store import fs
from hail.store import gc as store_gc
from hail.store.maildir import Mailbox
from hail.store.records import hold_text, pending_text
from hail.store.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.store.maildir import How

DAY = 86400
NOW = time.time()
OLD = NOW - 100 * DAY
RECENT = NOW - 10 * DAY
j = os.path.join


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(str(tmp_path / "state" / "hail"))
    s.ensure()
    return s


def _workspace(tmp_path: Path, store: Store, seat: str) -> Path:
    """A seat bound to a directory that exists."""
    root = tmp_path / "ws" / seat
    root.mkdir(parents=True, exist_ok=True)
    fs.make_dirs(j(store.seats, seat))
    fs.write_atomic(store.root_file(seat), f"{root}\n")
    return root


def _post(store: Store, mailbox: str, headline: str = "hello", *, at: float | None = None) -> str:
    msg_id = store.reserve_id(mailbox, NOW)
    headers = {"from": "boss", "reply": "boss", "kind": "ask", "id": msg_id}
    headers.update({"time": "2026-01-01T00:00:00Z", "ask": headline})
    path = store.mailbox(mailbox).post(msg_id, render(headers, headline), inline=False)
    if at is not None:
        os.utime(path, (at, at))
    return msg_id


def _read(store: Store, mailbox: str, at: float, how: How = "read") -> str:
    """A message claimed (receipt) at time `at`."""
    msg_id = _post(store, mailbox)
    claimed = store.mailbox(mailbox).claim(msg_id, how)
    assert claimed is not None
    os.utime(claimed, (at, at))
    return msg_id


def _hooked(store: Store, mailbox: str, at: float) -> None:
    box = store.mailbox(mailbox)
    box.touch_hooked()
    os.utime(box.hooked, (at, at))


def _tree(root: str) -> dict[str, tuple[int, float]]:
    """Every path under root with its size and mtime: to prove a scan wrote nothing."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            st = os.lstat(j(dirpath, name))
            out[j(dirpath, name)] = (st.st_size, st.st_mtime)
    return out


def _mode(path: str) -> int:
    return os.stat(path).st_mode & 0o777


# --- read mail -----------------------------------------------------------------------------------


def test_read_mail_older_than_the_cutoff_moves_to_the_month_of_its_receipt(
    tmp_path: Path, store: Store
) -> None:
    _workspace(tmp_path, store, "worker")
    old = _read(store, "worker", OLD)
    young = _read(store, "worker", RECENT)
    report = store_gc.collect(store, NOW, 90)
    assert report.read == 1
    month = store_gc.month_of(OLD)
    assert os.path.isfile(j(store.archive, month, "worker", "cur", f"{old}.read.md"))
    assert not os.path.exists(j(store.seats, "worker", "cur", f"{old}.read.md"))
    assert not os.path.lexists(store.id_path(old))
    assert fs.read_text(store.archive_index) == f"{old} {month} worker\n"
    receipt = store.status(old)
    assert receipt.how == "read"
    assert receipt.time == pytest.approx(OLD, abs=1)
    found = store.find(old)
    assert found is not None and found[0].id == old
    assert store.status(young).path == j(store.seats, "worker", "cur", f"{young}.read.md")


def test_archived_files_and_directories_are_private(tmp_path: Path, store: Store) -> None:
    _workspace(tmp_path, store, "worker")
    old = _read(store, "worker", OLD)
    store_gc.collect(store, NOW, 90)
    month_dir = j(store.archive, store_gc.month_of(OLD))
    for d in (store.archive, month_dir, j(month_dir, "worker"), j(month_dir, "worker", "cur")):
        assert _mode(d) == 0o700, d
    assert _mode(store.archive_index) == 0o600
    assert _mode(j(month_dir, "worker", "cur", f"{old}.read.md")) == 0o600


def test_unread_mail_of_a_live_seat_is_never_archived(tmp_path: Path, store: Store) -> None:
    _workspace(tmp_path, store, "worker")
    bound = _post(store, "worker", at=OLD)
    unbound = _post(store, "loose", at=OLD)
    _hooked(store, "worker", OLD)
    report = store_gc.collect(store, NOW, 90)
    assert (report.read, report.mailboxes) == (0, 0)
    assert os.path.isfile(j(store.seats, "worker", "new", f"{bound}.md"))
    assert os.path.isfile(j(store.seats, "loose", "new", f"{unbound}.md"))
    assert not os.path.exists(store.archive_index)


def test_days_moves_the_cutoff(tmp_path: Path, store: Store) -> None:
    _workspace(tmp_path, store, "worker")
    _read(store, "worker", RECENT)
    assert store_gc.collect(store, NOW, 90).read == 0
    assert store_gc.collect(store, NOW, 5).read == 1


# --- crashes between the three steps -------------------------------------------------------


def test_a_crash_after_the_index_line_leaves_the_message_in_its_mailbox(
    tmp_path: Path, store: Store
) -> None:
    _workspace(tmp_path, store, "worker")
    msg_id = _read(store, "worker", OLD)
    store_gc.append_index(store, [(msg_id, store_gc.month_of(OLD), "worker")])
    # crash: not moved, link kept
    receipt = store.status(msg_id)
    assert receipt.how == "read"
    assert receipt.path == j(store.seats, "worker", "cur", f"{msg_id}.read.md")
    assert store.find(msg_id) is not None
    # the next gc finishes the job and the message is still found
    assert store_gc.collect(store, NOW, 90).read == 1
    assert store.status(msg_id).how == "read"
    assert store.find(msg_id) is not None


def test_a_crash_after_the_move_leaves_the_message_findable_through_the_index(
    tmp_path: Path, store: Store
) -> None:
    _workspace(tmp_path, store, "worker")
    msg_id = _read(store, "worker", OLD)
    month = store_gc.month_of(OLD)
    path = j(store.seats, "worker", "cur", f"{msg_id}.read.md")
    store_gc.append_index(store, [(msg_id, month, "worker")])
    assert store_gc.move_into_archive(store, path, month, "worker", "cur")
    # crash: ids/<id> still leads to the mailbox, which no longer has the file
    assert store.lookup(msg_id) == "worker"
    receipt = store.status(msg_id)
    assert receipt.how == "read"
    assert receipt.path == j(store.archive, month, "worker", "cur", f"{msg_id}.read.md")
    found = store.find(msg_id)
    assert found is not None and found[0].headline == "hello"
    store_gc.unlink_id(store, msg_id, "worker")
    assert store.lookup(msg_id) is None
    assert store.status(msg_id).how == "read"


def test_a_message_given_back_after_the_scan_is_not_lost(tmp_path: Path, store: Store) -> None:
    _workspace(tmp_path, store, "worker")
    msg_id = _read(store, "worker", OLD)
    plan = store_gc.scan(store, NOW, 90)
    (stale,) = plan.stale
    store.mailbox("worker").give_back(stale.path)
    moved = store_gc.archive_messages(store, "worker", [(msg_id, stale.path, stale.month, "cur")])
    assert moved == 0
    assert store.lookup(msg_id) == "worker"
    assert store.status(msg_id).how == "delivered"


def test_the_last_index_line_of_an_id_wins(store: Store) -> None:
    store_gc.append_index(store, [("x-1", "2020-01", "worker")])
    store_gc.append_index(store, [("x-1", "2020-02", "worker")])
    found = store.archived_mailbox("x-1")
    assert found is not None and found.path == j(store.archive, "2020-02", "worker")


# --- deleted workspaces ----------------------------------------------------------------------


def _deleted_workspace(tmp_path: Path, store: Store, seat: str, hooked_at: float | None) -> None:
    _workspace(tmp_path, store, seat).rmdir()
    if hooked_at is not None:
        _hooked(store, seat, hooked_at)


def test_a_deleted_workspace_is_archived_with_its_sub_seats_and_its_name_freed(
    tmp_path: Path, store: Store
) -> None:
    _deleted_workspace(tmp_path, store, "gone", OLD)
    unread = _post(store, "gone", "still unread", at=OLD)
    sub_unread = _post(store, "gone@%7", "for the pane")
    read_young = _read(store, "gone", RECENT, how="injected")
    _hooked(store, "gone@%7", OLD)  # a hook read the sub-seat long ago too
    pending = Mailbox(j(store.seats, "gone")).pending
    fs.make_dirs(pending)
    fs.write_atomic(j(pending, "p-1"), pending_text("p-1", "ask", "x", NOW, "h"))
    report = store_gc.collect(store, NOW, 90)
    assert (report.mailboxes, report.unread) == (2, 2)
    assert not os.path.exists(j(store.seats, "gone"))
    assert not os.path.exists(j(store.seats, "gone@%7"))
    assert store.bound_root("gone") is None
    month = store_gc.month_of(NOW)
    assert os.path.isfile(j(store.archive, month, "gone", "new", f"{unread}.md"))
    assert os.path.isfile(j(store.archive, month, "gone@%7", "new", f"{sub_unread}.md"))
    assert os.path.isfile(j(store.archive, month, "gone", "cur", f"{read_young}.injected.md"))
    assert store.status(unread).how == "delivered"
    assert store.status(read_young).how == "injected"
    found = store.find(sub_unread)
    assert found is not None and found[0].headline == "for the pane"
    for msg_id in (unread, sub_unread, read_young):
        assert not os.path.lexists(store.id_path(msg_id))
    assert [n for n in os.listdir(store.seats) if n.startswith(".")] == []


def test_a_deleted_workspace_read_lately_waits(tmp_path: Path, store: Store) -> None:
    _deleted_workspace(tmp_path, store, "gone", RECENT)
    _post(store, "gone", at=OLD)
    plan = store_gc.scan(store, NOW, 90)
    (seat,) = plan.deleted
    assert not seat.due(NOW, 90)
    assert seat.archivable_at(90) == pytest.approx(RECENT + 90 * DAY, abs=1)
    assert store_gc.collect(store, NOW, 90).mailboxes == 0
    assert os.path.isfile(store.root_file("gone"))


def test_without_a_hook_mark_the_newest_receipt_then_the_binding_dates_the_last_read(
    tmp_path: Path, store: Store
) -> None:
    _deleted_workspace(tmp_path, store, "gone", None)
    os.utime(store.root_file("gone"), (OLD, OLD))
    (seat,) = store_gc.scan(store, NOW, 90).deleted
    assert seat.last_read == pytest.approx(OLD, abs=1)
    _read(store, "gone", RECENT)
    (seat,) = store_gc.scan(store, NOW, 90).deleted
    assert seat.last_read == pytest.approx(RECENT, abs=1)
    assert not seat.due(NOW, 90)


def test_a_workspace_that_exists_is_never_a_deleted_one(tmp_path: Path, store: Store) -> None:
    _workspace(tmp_path, store, "here")
    fs.make_dirs(j(store.seats, "unbound"))
    assert store_gc.scan(store, NOW, 90).deleted == []


# --- holds and records ---------------------------------------------------------------------------


def _hold(store: Store, hold_id: str, issuer: str, expires: float, *, lapsed: bool = False) -> str:
    directory = store.lapsed if lapsed else store.holds
    fs.make_dirs(directory)
    path = j(directory, hold_id)
    # Sent an hour before it lapses: a hold never outlives its send by more than 7 days.
    text = hold_text(
        msg_id=hold_id,
        issuer=issuer,
        to="worker",
        scope="",
        time=_iso(expires - 3600),
        re="",
        expires=_iso(expires),
        headline="h",
    )
    fs.write_atomic(path, text)
    return path


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def test_holds_lapsed_long_ago_or_from_a_seat_that_is_gone_are_removed(
    tmp_path: Path, store: Store
) -> None:
    _workspace(tmp_path, store, "boss")
    long_ago = _hold(store, "h-old", "boss", OLD)
    long_ago_retired = _hold(store, "h-old2", "boss", OLD, lapsed=True)
    lately = _hold(store, "h-late", "boss", RECENT)
    orphan = _hold(store, "h-orphan", "nobody", RECENT)
    in_effect = _hold(store, "h-live", "nobody", NOW + DAY)
    assert sorted(store_gc.stale_holds(store, NOW, 90)) == sorted(
        [long_ago, long_ago_retired, orphan]
    )
    assert store_gc.collect(store, NOW, 90).holds == 3
    assert os.path.exists(lately) and os.path.exists(in_effect)
    assert not any(os.path.exists(p) for p in (long_ago, long_ago_retired, orphan))


def test_holds_of_a_workspace_about_to_be_archived_count_as_gone(
    tmp_path: Path, store: Store
) -> None:
    _deleted_workspace(tmp_path, store, "gone", OLD)
    lately = _hold(store, "h-late", "gone", RECENT)
    plan = store_gc.scan(store, NOW, 90)
    assert plan.holds == [lately]
    assert store_gc.collect(store, NOW, 90).holds == 1


def test_stale_pending_records_and_read_marks_are_removed(tmp_path: Path, store: Store) -> None:
    _workspace(tmp_path, store, "boss")
    pending = store.mailbox("boss").pending
    fs.make_dirs(pending)
    fs.write_atomic(j(pending, "old"), pending_text("old", "ask", "worker", OLD, "h"))
    fs.write_atomic(j(pending, "young"), pending_text("young", "ask", "worker", RECENT, "h"))
    fs.make_dirs(store.read_marks)
    fs.touch(j(store.read_marks, "_1"))
    os.utime(j(store.read_marks, "_1"), (OLD, OLD))
    fs.touch(j(store.read_marks, "_2"))
    assert store_gc.collect(store, NOW, 90).records == 2
    assert sorted(os.listdir(pending)) == ["young"]
    assert os.listdir(store.read_marks) == ["_2"]


# --- doctor's view -------------------------------------------------------------------------------


def test_a_scan_writes_nothing_and_counts_what_gc_then_does(tmp_path: Path, store: Store) -> None:
    _workspace(tmp_path, store, "worker")
    _read(store, "worker", OLD)
    _read(store, "worker", OLD)
    _deleted_workspace(tmp_path, store, "gone", OLD)
    _post(store, "gone")
    _hold(store, "h-old", "worker", OLD)
    before = _tree(store.root)
    plan = store_gc.scan(store, NOW, 90)
    assert _tree(store.root) == before
    assert (len(plan.stale), len(plan.due_mailboxes), len(plan.holds)) == (2, 1, 1)
    assert plan.boxes["worker"].claimed == 2
    assert plan.boxes["gone"].unread == 1
    report = store_gc.collect(store, NOW, 90)
    assert (report.read, report.mailboxes, report.unread, report.holds) == (2, 1, 1, 1)
    assert store_gc.scan(store, NOW, 90).stale == []


def test_gc_on_an_empty_state_does_nothing(store: Store) -> None:
    assert store_gc.collect(store, NOW, 90) == store_gc.Report(0, 0, 0, 0, 0)
    assert not os.path.exists(store.archive)


# --- --days --------------------------------------------------------------------------------------
