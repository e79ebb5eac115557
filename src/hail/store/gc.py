"""Archiving old mail and sweeping lapsed records: what `hail gc` does, `hail doctor` counts
[docs/commands.md "gc"].

Every message moves the same way, in this order: its line `<id> <YYYY-MM> <mailbox>` is appended
to `archive/index` (and made durable), then the file is renamed into
`archive/<YYYY-MM>/<mailbox>/`, then its `ids/<id>` link is removed. A crash between two steps
leaves the message findable in one place or the other, never in neither: before the move the link
still leads to the mailbox; after it, the mailbox misses and the index leads to the archive.

`scan` only reads, so `doctor` can say whether gc is due with the very rules gc applies.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from dataclasses import dataclass, field

from hail import policy
from hail.seat import parse_mailbox
from hail.store import conversation, fs, waits
from hail.store.maildir import Mailbox, parse_claimed
from hail.store.records import read_holds, read_pending, remove
from hail.store.store import Store

DAY_SECONDS = 86400


def month_of(t: float) -> str:
    """`YYYY-MM` of a Unix time, UTC: the archive directory a message goes to."""
    return time.strftime("%Y-%m", time.gmtime(t))


@dataclass(frozen=True)
class Stale:
    """A claimed message whose receipt is older than the cutoff [docs/commands.md
    "gc: read mail"]."""

    mailbox: str
    id: str
    path: str
    mtime: float

    @property
    def month(self) -> str:
        """Read mail is archived under the month of its receipt."""
        return month_of(self.mtime)


@dataclass
class BoxScan:
    """One mailbox as gc and doctor see it: one listing of `new/` and one of `cur/`."""

    name: str
    seat: str
    unread: int
    claimed: int
    newest_receipt: float | None
    hooked: float | None
    stale: list[Stale] = field(default_factory=list)


@dataclass(frozen=True)
class DeletedSeat:
    """A seat whose bound root no longer exists, with the mailboxes gc would archive
    [docs/commands.md "gc: deleted workspaces"]."""

    seat: str
    root: str
    mailboxes: tuple[str, ...]
    last_read: float
    unread: int

    def archivable_at(self, days: int) -> float:
        """gc archives it once no hook has read it for `days` days."""
        return self.last_read + days * DAY_SECONDS

    def due(self, now: float, days: int) -> bool:
        return self.archivable_at(days) < now


@dataclass
class Scan:
    """What gc would do now with `days`, read without writing anything."""

    now: float
    days: int
    boxes: dict[str, BoxScan]
    deleted: list[DeletedSeat]
    holds: list[str]
    #: Files a send left in a mailbox's tmp/ long ago: killed, or stopped by a full disk.
    unfinished: list[str] = field(default_factory=list)
    #: (path, why) of the wait records that count for nothing.
    dead_waits: list[tuple[str, str]] = field(default_factory=list)

    @property
    def cutoff(self) -> float:
        return self.now - self.days * DAY_SECONDS

    @property
    def stale(self) -> list[Stale]:
        return [s for box in self.boxes.values() for s in box.stale]

    @property
    def due_seats(self) -> list[DeletedSeat]:
        return [d for d in self.deleted if d.due(self.now, self.days)]

    @property
    def due_mailboxes(self) -> list[str]:
        return [m for d in self.due_seats for m in d.mailboxes]


@dataclass(frozen=True)
class Report:
    """gc's four counts [docs/commands.md "gc"]."""

    read: int
    mailboxes: int
    unread: int
    holds: int
    records: int
    unfinished: int = 0
    waits: int = 0


# --- reading ------------------------------------------------------------------------------------


def scan(store: Store, now: float, days: int) -> Scan:
    """Every mailbox, the deleted workspaces and the holds gc would remove; writes nothing."""
    cutoff = now - days * DAY_SECONDS
    boxes: dict[str, BoxScan] = {}
    for name in store.mailbox_names():
        parsed = parse_mailbox(name)
        if parsed is not None:
            boxes[name] = _scan_box(store.mailbox(name), parsed[0], cutoff)
    deleted = _deleted_seats(store, boxes)
    gone = {m for d in deleted if d.due(now, days) for m in d.mailboxes}
    holds = stale_holds(store, now, days, gone)
    return Scan(
        now,
        days,
        boxes,
        deleted,
        holds,
        unfinished_writes(store, boxes, now),
        waits.dead_records(store, now),
    )


def unfinished_writes(store: Store, boxes: dict[str, BoxScan], now: float) -> list[str]:
    """Files in a mailbox's tmp/ older than a send can take: what a killed send or a full disk
    left. A send renames its file out of tmp/ within seconds, so these are never a send's."""
    cutoff = now - policy.TMP_STALE_SECONDS
    return [p for name in boxes for p in _files_older_than(store.mailbox(name).tmp, cutoff)]


def _files_older_than(directory: str, cutoff: float) -> list[str]:
    """The plain files in `directory` last modified before `cutoff`."""
    out = []
    for name in fs.list_names(directory):
        path = os.path.join(directory, name)
        t = fs.mtime(path)
        if t is not None and t < cutoff and os.path.isfile(path):
            out.append(path)
    return out


def _scan_box(box: Mailbox, seat: str, cutoff: float) -> BoxScan:
    claimed = 0
    newest: float | None = None
    stale: list[Stale] = []
    try:
        entries = list(os.scandir(box.cur))
    except OSError as e:
        if not fs.no_directory(e):
            raise
        entries = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        claimed += 1
        parsed = parse_claimed(entry.name)
        if parsed is None:
            continue
        msg_id = parsed[0]
        try:
            t = entry.stat(follow_symlinks=False).st_mtime
        except FileNotFoundError:
            continue
        newest = t if newest is None else max(newest, t)
        if t < cutoff:
            stale.append(Stale(box.name, msg_id, entry.path, t))
    return BoxScan(box.name, seat, box.unread_count(), claimed, newest, box.hooked_at(), stale)


def _deleted_seats(store: Store, boxes: dict[str, BoxScan]) -> list[DeletedSeat]:
    """Seats bound to a root that is gone, each with its sub-seats, in name order."""
    out = []
    for name, box in boxes.items():
        if box.seat != name:
            continue
        root = store.bound_root(name)
        if root is None or os.path.exists(root):
            continue
        members = [b for b in boxes.values() if b.seat == name]
        members.sort(key=lambda b: (b.name != name, b.name))
        out.append(
            DeletedSeat(
                seat=name,
                root=root,
                mailboxes=tuple(b.name for b in members),
                last_read=_last_read(store, name, members),
                unread=sum(b.unread for b in members),
            )
        )
    return out


def _last_read(store: Store, seat: str, members: list[BoxScan]) -> float:
    """The newest `hooked` mark, else the newest receipt, else when the seat was bound
    [docs/commands.md "gc: deleted workspaces"].

    Sub-seats count too: a hook that read one of them read the seat's mail.
    """
    hooked = [b.hooked for b in members if b.hooked is not None]
    if hooked:
        return max(hooked)
    receipts = [b.newest_receipt for b in members if b.newest_receipt is not None]
    if receipts:
        return max(receipts)
    bound = fs.mtime(store.root_file(seat))
    return bound if bound is not None else 0.0


def stale_holds(store: Store, now: float, days: int, gone: set[str] | None = None) -> list[str]:
    """Hold records that lapsed over `days` ago, or lapsed ones whose issuer's mailbox is gone.

    `gone` names mailboxes about to be archived, so doctor counts what gc would remove.
    """
    cutoff = now - days * DAY_SECONDS
    gone = gone or set()
    out = []
    for directory in (store.holds, store.lapsed):
        for hold in read_holds(directory):
            lapses = hold.lapses_at()
            if lapses > now:
                continue
            issuer_gone = (
                hold.issuer == "?"
                or hold.issuer in gone
                or not os.path.isdir(os.path.join(store.seats, hold.issuer))
            )
            if lapses < cutoff or issuer_gone:
                out.append(hold.path)
    return out


def stale_records(store: Store, now: float, days: int) -> list[str]:
    """Pending records and read marks older than `days` days (a record's age is its `epoch`)."""
    cutoff = now - days * DAY_SECONDS
    out = []
    for name in store.mailbox_names():
        for record in read_pending(store.mailbox(name).pending):
            sent_at = record.epoch or fs.mtime(record.path) or 0.0
            if sent_at < cutoff:
                out.append(record.path)
    return out + _files_older_than(store.read_marks, cutoff)


# --- writing: the three steps of one move ----------------------------------------------------


def append_index(store: Store, entries: list[tuple[str, str, str]]) -> None:
    """Append `<id> <YYYY-MM> <mailbox>` lines and make them durable before any file moves."""
    if not entries:
        return
    fs.make_dirs(store.archive)
    data = "".join(f"{i} {month} {mailbox}\n" for i, month, mailbox in entries).encode("utf-8")
    fd = fs.open_regular(store.archive_index, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        fs.write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def move_into_archive(store: Store, src: str, month: str, mailbox: str, part: str) -> bool:
    """Rename a message file to `archive/<month>/<mailbox>/<part>/`; False when it is gone."""
    dest_dir = os.path.join(store.archive, month, mailbox, part)
    fs.make_dirs(dest_dir)
    try:
        os.rename(src, os.path.join(dest_dir, os.path.basename(src)))
    except FileNotFoundError:
        return False  # given back or moved by someone else since the scan
    return True


def unlink_id(store: Store, msg_id: str, mailbox: str) -> None:
    """Remove `ids/<id>` when it still leads to this mailbox; the archive index answers now."""
    if store.lookup(msg_id) == mailbox:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(store.id_path(msg_id))


def archive_messages(store: Store, mailbox: str, files: list[tuple[str, str, str, str]]) -> int:
    """Archive (id, path, month, part) files of one mailbox: index, move, unlink. Returns moves."""
    append_index(store, [(msg_id, month, mailbox) for msg_id, _, month, _ in files])
    moved = 0
    for msg_id, path, month, part in files:
        if move_into_archive(store, path, month, mailbox, part):
            moved += 1
            unlink_id(store, msg_id, mailbox)
    return moved


# --- gc -------------------------------------------------------------------------------------------


def collect(store: Store, now: float, days: int) -> Report:
    """Read mail, deleted workspaces, then holds and records, wait records last
    [docs/commands.md "gc"], in order.
    Reads everything first, so one pass sees one state."""
    plan = scan(store, now, days)
    read = _archive_read(store, plan)
    mailboxes, unread = _archive_deleted(store, plan)
    finished, late_unread = _finish_set_aside(store, now)
    mailboxes += finished
    unread += late_unread
    holds = _remove_all(stale_holds(store, now, days))
    records = _remove_all(stale_records(store, now, days))
    conversation.sweep_replies(store, now - days * DAY_SECONDS)
    unfinished = _remove_all(plan.unfinished)
    dead_waits = waits.remove_dead([path for path, _ in plan.dead_waits])
    return Report(read, mailboxes, unread, holds, records, unfinished, dead_waits)


def _archive_read(store: Store, plan: Scan) -> int:
    moved = 0
    for box in plan.boxes.values():
        files = [(s.id, s.path, s.month, "cur") for s in box.stale]
        if files:
            moved += archive_messages(store, box.name, files)
    return moved


def _archive_deleted(store: Store, plan: Scan) -> tuple[int, int]:
    """Archive each due deleted workspace's mailboxes, then delete what is left of them."""
    month = month_of(plan.now)
    mailboxes = unread = 0
    for seat in plan.due_seats:
        if os.path.exists(seat.root):
            continue  # the workspace came back since the scan
        for name in seat.mailboxes:
            box = store.mailbox(name)
            files = _messages_of(box, month)
            archive_messages(store, name, files)
            unread += sum(1 for f in files if f[3] == "new")
            _remove_mailbox(store, box, month)
            mailboxes += 1
    return mailboxes, unread


def _messages_of(box: Mailbox, month: str) -> list[tuple[str, str, str, str]]:
    """Unread messages (part `new`) first, then claimed ones (part `cur`)."""
    files = [(u.id, u.path, month, "new") for u in box.unread()]
    files += [(msg_id, path, month, "cur") for msg_id, _, path in box.claimed()]
    return files


def _remove_mailbox(store: Store, box: Mailbox, month: str) -> None:
    """Delete the emptied mailbox directory, which frees the seat name.

    It is first renamed aside, so a message sent to the name meanwhile lands in a fresh directory
    instead of being deleted; one that arrived just before the rename is archived from there. A gc
    killed in between leaves the directory aside, and the next gc finishes it (`_finish_set_aside`).
    """
    # Named by pid and a random suffix, never by the seat: a name may be 255 bytes already.
    aside = os.path.join(
        os.path.dirname(box.path), f"{ASIDE_PREFIX}{os.getpid()}-{os.urandom(4).hex()}"
    )
    try:
        os.rename(box.path, aside)
    except FileNotFoundError:
        return
    with contextlib.suppress(OSError):
        os.utime(aside)  # when it was set aside: a later gc leaves it to this one for an hour
    stragglers = Mailbox(aside)
    late = _messages_of(stragglers, month)
    if late:
        archive_messages(store, box.name, late)
    shutil.rmtree(aside, ignore_errors=True)


#: What `_remove_mailbox` renames a mailbox to before deleting it.
ASIDE_PREFIX = ".gc-"


def _finish_set_aside(store: Store, now: float) -> tuple[int, int]:
    """Finish the mailboxes an earlier gc renamed aside and was killed before deleting.

    Their messages are archived under the mailbox their `ids/<id>` link names (the link goes only
    after the move); one whose link is gone stays where it is, with its directory. A directory of a
    gc that may still be running (its pid alive, renamed within the hour) is left alone.
    """
    month = month_of(now)
    finished = unread = 0
    try:
        names = [n for n in os.listdir(store.seats) if n.startswith(ASIDE_PREFIX)]
    except OSError:
        return 0, 0
    for name in names:
        aside = os.path.join(store.seats, name)
        if _maybe_running(name, aside, now):
            continue
        stragglers = Mailbox(aside)
        files = _messages_of(stragglers, month)
        by_box: dict[str, list[tuple[str, str, str, str]]] = {}
        for f in files:
            box = store.lookup(f[0])
            if box is not None:
                by_box.setdefault(box, []).append(f)
        for box, mine in by_box.items():
            archive_messages(store, box, mine)
            unread += sum(1 for f in mine if f[3] == "new")
        if not _messages_of(stragglers, month):
            shutil.rmtree(aside, ignore_errors=True)
            finished += 1
    return finished, unread


def _maybe_running(name: str, path: str, now: float) -> bool:
    """Whether the gc that set `path` aside may still be at work on it."""
    pid_text = name[len(ASIDE_PREFIX) :].split("-", 1)[0]
    t = fs.mtime(path)
    if t is None or t < now - policy.TMP_STALE_SECONDS or not pid_text.isdigit():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # alive, another user's
    return True


def _remove_all(paths: list[str]) -> int:
    for path in paths:
        remove(path)
    return len(paths)
