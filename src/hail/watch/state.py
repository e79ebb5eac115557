"""What `hail watch` reads of the state, as plain data, and the sweep that says when to read it
again [docs/watch.md "What it reads"].

Read-only: nothing here creates, claims, moves or removes a file. A wait record nobody refreshes
is left for the next wait to remove, a pending record with a receipt for its sender's brief.

Cheap when nothing changed. `Reader.changed` stats a few directories and files per mailbox and
compares their mtimes with those of the last read; `Reader.read` lists again only the directories
whose mtime changed, so a mailbox keeping 10 000 read messages is listed once and then only when a
claim adds to it. Message files are read only for the newest `limit` messages, headers only, each
once: a message's headers never change, only where it lies.
"""

from __future__ import annotations

import heapq
import itertools
import os
import time
from dataclasses import dataclass, replace

from hail import ids, policy
from hail.diagnosis import HookErrors, hook_errors
from hail.message import parse
from hail.seat import parse_mailbox
from hail.store import conversation, fs, records, waits
from hail.store.maildir import Mailbox, parse_claimed
from hail.text import printable_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from hail.store.store import Store

#: A directory changed this recently may change again within the same mtime tick (a coarse
#: clock: a few milliseconds), unseen: it is listed again until its mtime is older than this.
SETTLE_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class Pending:
    """A send without a receipt yet, from its sender's `pending/` record."""

    id: str
    kind: str
    sender: str
    to: str
    epoch: float
    headline: str


@dataclass(frozen=True, slots=True)
class MailboxState:
    """One mailbox directory: `seat` for a seat, `pane` too for a sub-seat (`seat@%N`)."""

    name: str
    seat: str
    pane: str
    unread: tuple[str, ...]  # ids, oldest first
    read: int
    hooked: float | None
    root: str | None
    root_exists: bool
    pending: tuple[Pending, ...]
    distrust: str  # why another user could write it; "" when only you can


@dataclass(frozen=True, slots=True)
class MessageState:
    """A message in a mailbox, from its headers, with its receipt and the replies it got."""

    id: str
    to: str
    sender: str
    reply: str
    kind: str
    headline: str
    re: str
    scope: str
    sent: float | None
    status: str  # delivered, injected, read or inline
    received: float | None
    replies: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HoldState:
    id: str
    issuer: str
    to: str
    scope: str
    headline: str
    since: float | None
    lapses: float


@dataclass(frozen=True, slots=True)
class WaitState:
    """A process waiting for replies: `waiter` waits for `asks`, sent to `targets` in order."""

    waiter: str
    asks: tuple[str, ...]
    targets: tuple[str, ...]
    any_: bool
    started: float
    deadline: float
    path: str = ""  # its record, which names the wait in the wait graph (`waits.blocking_path`)


@dataclass(frozen=True, slots=True)
class StateView:
    """The state at one moment: what every part of the watch shows comes from here."""

    root: str
    taken: float
    exists: bool
    mailboxes: tuple[MailboxState, ...]  # by name
    messages: tuple[MessageState, ...]  # newest first, at most the reader's limit
    total: int  # messages in all mailboxes
    holds: tuple[HoldState, ...]  # in effect, newest first
    waits: tuple[WaitState, ...]  # live
    replies: Mapping[str, tuple[str, ...]]  # for the shown messages and the waited-for asks
    hook_errors: HookErrors | None
    #: When time alone changes what this shows: a hold lapses, a send turns late, a wait goes stale.
    due: float
    hook_log: str = ""


def _stamp(path: str) -> int:
    """The mtime in ns, 0 when the path is missing: one stat."""
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def sent_key(msg_id: str, now: float, days: dict[str, float] | None = None) -> float | None:
    """The send time an id of this version carries (its UTC month, day and time; the year is the
    latest that puts it no more than a day ahead of now), or None for ids of older versions.
    `days` caches each month-day's midnight: 100 000 ids share a few hundred of them."""
    if not ids.is_new_style(msg_id):
        return None
    mmdd = msg_id[:4]
    midnight = days.get(mmdd) if days is not None else None
    if midnight is None:
        year = int(ids.iso(now)[:4])
        for y in (year, year - 1):
            t = ids.parse_iso(f"{y}-{mmdd[:2]}-{mmdd[2:]}T00:00:00Z")
            if t is not None and t <= now + 86400:
                midnight = t
                break
        if midnight is None:
            return None
        if days is not None:
            days[mmdd] = midnight
    hh, mm, ss = int(msg_id[5:7]), int(msg_id[7:9]), int(msg_id[9:11])
    if hh > 23 or mm > 59 or ss > 60:
        return None
    return midnight + hh * 3600 + mm * 60 + ss


class _Box:
    """What the reader keeps of one mailbox between reads, with the mtimes it was read at."""

    __slots__ = (
        "cur",
        "distrust",
        "new",
        "order",
        "pending",
        "root",
        "root_at",
        "root_exists",
        "sigs",
    )

    def __init__(self) -> None:
        self.sigs: dict[str, int] = {}
        self.new: list[str] = []
        self.cur: dict[str, str] = {}
        self.order: list[tuple[float, str, str]] = []  # (send time, id, how or "new"), newest first
        self.pending: tuple[Pending, ...] = ()
        self.root: str | None = None
        self.root_exists = False
        self.root_at = float("-inf")
        self.distrust: str | None = None


#: The parts of a mailbox the sweep stats, and those of them a read lists or reads.
_PARTS = ("new", "cur", "pending", "hooked")
_LISTED = frozenset(("new", "cur", "pending"))
#: A seat's bound root, and whether it still exists, change without any mtime the sweep stats
#: (a first binding, a deleted workspace): they are read again this often.
ROOT_SECONDS = 10.0


class Reader:
    """The state root as `hail watch` follows it: `changed` to ask, `read` to look."""

    def __init__(self, store: Store, limit: int = policy.WATCH_MESSAGES) -> None:
        self.store = store
        self.limit = limit
        self._names: list[str] = []
        self._names_at = -1
        self._boxes: dict[str, _Box] = {}
        self._swept: dict[str, dict[str, int]] = {}
        self._globals: dict[str, int] = {}
        self._read_globals: dict[str, int] | None = None
        self._keys: dict[str, float] = {}
        self._days: dict[str, float] = {}
        self._mailboxes: dict[str, Mailbox] = {}
        self._paths: dict[str, tuple[str, ...]] = {}
        self._links: dict[str, int] = {}
        self._heads: dict[tuple[str, str], MessageState] = {}
        self._holds: list[HoldState] = []
        self._errors: HookErrors | None = None
        self._due = float("inf")

    # --- the sweep ------------------------------------------------------------------------------

    def changed(self, now: float) -> bool:
        """Stat what can change; whether anything did since the last read, or time alone changed
        what it shows."""
        self._sweep()
        if self._read_globals != self._globals or now >= self._due:
            return True
        for name in self._names:
            box = self._boxes.get(name)
            if box is None or box.sigs != self._swept.get(name):
                return True
        return False

    def _sweep(self) -> None:
        store = self.store
        try:
            st = os.stat(store.hook_log)
            log = (st.st_mtime_ns, st.st_size)
        except OSError:
            log = (0, 0)
        self._globals = {
            "root": _stamp(store.root),
            "seats": _stamp(store.seats),
            "holds": _stamp(store.holds),
            "waits": _stamp(waits.waits_dir(store)),
            "log": log[0],
            "log size": log[1],
        }
        if self._globals["seats"] != self._names_at or _settling(self._names_at):
            self._names = store.mailbox_names()
            self._names_at = self._globals["seats"]
        swept = {}
        for name in self._names:
            paths = self._paths.get(name)
            if paths is None:
                box = self.mailbox(name)
                paths = self._paths[name] = (box.new, box.cur, box.pending, box.hooked)
            swept[name] = dict(zip(_PARTS, map(_stamp, paths), strict=True))
        self._swept = swept

    def mailbox(self, name: str) -> Mailbox:
        found = self._mailboxes.get(name)
        if found is None:
            found = self._mailboxes[name] = self.store.mailbox(name)
        return found

    def _stale(self, key: str) -> bool:
        """Whether a global part changed since the last read (every part, before the first)."""
        return self._read_globals is None or self._read_globals.get(key) != self._globals[key]

    # --- the read -------------------------------------------------------------------------------

    def read(self, now: float) -> StateView:
        """Everything watch shows, from the last sweep's view (one is made when none was)."""
        if not self._globals:
            self._sweep()
        store = self.store
        due = [float("inf")]
        boxes = {name: self._load_box(name, now) for name in self._names}
        self._boxes = {name: self._boxes[name] for name in self._names}
        if boxes:
            due.append(min(b.root_at for b in boxes.values()) + ROOT_SECONDS)
        messages, total = self._window(boxes, now)
        holds = self._load_holds(now, due)
        live = self._load_waits(now, due)
        asks = {m.id for m in messages} | {a for w in live for a in w.asks}
        replies = {a: tuple(r for r, _ in conversation.replies_of(store, a)) for a in sorted(asks)}
        messages = tuple(_with_replies(m, replies) for m in messages)
        states = tuple(self._box_state(name, box, boxes, now, due) for name, box in boxes.items())
        self._errors = self._load_errors(now)
        # A part changed within the clock's tick may change again unseen: read it again next time.
        self._read_globals = {
            k: -1 if k != "log size" and _settling(v) else v for k, v in self._globals.items()
        }
        self._due = min(due)
        return StateView(
            root=store.root,
            taken=now,
            exists=self._globals["root"] != 0,
            mailboxes=states,
            messages=messages,
            total=total,
            holds=holds,
            waits=live,
            replies=replies,
            hook_errors=self._errors,
            due=self._due,
            hook_log=store.hook_log,
        )

    def _load_box(self, name: str, now: float) -> _Box:
        box = self._boxes.get(name)
        if box is None:
            box = self._boxes[name] = _Box()
            why = self.store.distrust([name])
            box.distrust = why or ""
        sigs = self._swept.get(name, {})
        mailbox = self.mailbox(name)
        old = box.sigs
        if sigs.get("new") != old.get("new") or sigs.get("cur") != old.get("cur"):
            box.new = [u.id for u in mailbox.unread()] if not box.distrust else []
            box.cur = _claimed(mailbox.cur) if not box.distrust else {}
            box.order = self._order(mailbox.new, mailbox.cur, box, now)
        if sigs.get("pending") != old.get("pending"):
            box.pending = tuple(
                Pending(p.id, p.kind, name, p.to, p.epoch, p.headline)
                for p in records.read_pending(mailbox.pending)
            )
        if box.root_at + ROOT_SECONDS <= now:
            box.root = self.store.bound_root(conversation.seat_of_mailbox(name))
            box.root_exists = box.root is not None and os.path.isdir(box.root)
            box.root_at = now
        # A part changed within the clock's tick may change again unseen: read it again next time.
        box.sigs = {k: -1 if k in _LISTED and _settling(v) else v for k, v in sigs.items()}
        return box

    def _order(
        self, new_dir: str, cur_dir: str, box: _Box, now: float
    ) -> list[tuple[float, str, str]]:
        keyed = [(self._key(msg_id, new_dir, ".md", now), msg_id, "new") for msg_id in box.new]
        keyed += [
            (self._key(msg_id, cur_dir, f".{how}.md", now), msg_id, how)
            for msg_id, how in box.cur.items()
        ]
        keyed.sort(reverse=True)
        return keyed

    def _key(self, msg_id: str, directory: str, suffix: str, now: float) -> float:
        key = self._keys.get(msg_id)
        if key is None:
            key = sent_key(msg_id, now, self._days)
            if key is None:  # an id of an older version: the file's time, once
                key = fs.mtime(os.path.join(directory, msg_id + suffix)) or 0.0
            self._keys[msg_id] = key
        return key

    def _window(self, boxes: dict[str, _Box], now: float) -> tuple[tuple[MessageState, ...], int]:
        """The newest `limit` messages of all mailboxes, and how many there are in all."""
        total = sum(len(b.order) for b in boxes.values())
        streams = [_tagged(name, box.order) for name, box in boxes.items() if box.order]
        newest = list(itertools.islice(heapq.merge(*streams, reverse=True), self.limit))
        # Ids carry whole seconds: within one, the id link's own time (its reservation, in ns)
        # gives the order of the sends.
        newest.sort(key=lambda entry: (entry[0], self._filed(entry[1])), reverse=True)
        out = []
        for key, msg_id, how, name in newest:
            state = self._message(name, msg_id, how, key)
            if state is not None:
                out.append(state)
        return tuple(out), total

    def _filed(self, msg_id: str) -> int:
        filed = self._links.get(msg_id)
        if filed is None:
            try:
                filed = os.lstat(self.store.id_path(msg_id)).st_mtime_ns
            except OSError:
                filed = 0
            self._links[msg_id] = filed
        return filed

    def _message(self, name: str, msg_id: str, how: str, key: float) -> MessageState | None:
        mailbox = self.mailbox(name)
        if how == "new":
            path = os.path.join(mailbox.new, f"{msg_id}.md")
        else:
            path = os.path.join(mailbox.cur, f"{msg_id}.{how}.md")
        base = self._heads.get((name, msg_id))
        if base is None:
            head = _read_head(path)
            if head is None:  # moved since the listing (a claim): the next read finds it
                return None
            sent = ids.parse_iso(head.get("time", "")) if head.get("time") else None
            base = self._heads[(name, msg_id)] = MessageState(
                id=msg_id,
                to=name,
                sender=printable_line(head.get("from", "")),
                reply=printable_line(head.get("reply", "")),
                kind=printable_line(head.get("kind", "")),
                headline=printable_line(head.get("ask", "")),
                re=printable_line(head.get("re", "")),
                scope=printable_line(head.get("scope", "")),
                sent=sent if sent is not None else key or None,
                status="delivered",
                received=None,
                replies=(),
            )
        if how == "new":
            return base
        return replace(base, status=how, received=fs.mtime(path))

    def _box_state(
        self, name: str, box: _Box, boxes: dict[str, _Box], now: float, due: list[float]
    ) -> MailboxState:
        seat, pane = parse_mailbox(name) or (name, "")
        sigs = self._swept.get(name, {})
        pending = []
        for p in box.pending:
            target = boxes.get(p.to)
            if target is None or p.id not in target.new:
                continue  # received (or gone): the sender's brief deletes the record
            pending.append(p)
            late = p.epoch + policy.LATE_SEND_SECONDS
            if late > now:
                due.append(late)
        return MailboxState(
            name=name,
            seat=seat,
            pane=pane,
            unread=tuple(box.new),
            read=len(box.cur),
            hooked=sigs.get("hooked", 0) / 1e9 or None,
            root=box.root,
            root_exists=box.root_exists,
            pending=tuple(pending),
            distrust=box.distrust or "",
        )

    def _load_holds(self, now: float, due: list[float]) -> tuple[HoldState, ...]:
        if self._stale("holds"):
            self._holds = [
                HoldState(
                    id=printable_line(h.id),
                    issuer=h.issuer,
                    to=h.to,
                    scope=printable_line(h.scope),
                    headline=printable_line(h.headline),
                    since=h.issued_at(),
                    lapses=h.lapses_at(),
                )
                for h in records.read_holds(self.store.holds)
            ]
        # Lapse is a filter every reader applies at its own time [docs/commands.md "Holds"].
        in_effect = tuple(h for h in self._holds if h.lapses > now)
        if in_effect:
            due.append(min(h.lapses for h in in_effect))
        return in_effect

    def _load_waits(self, now: float, due: list[float]) -> tuple[WaitState, ...]:
        """The waits that count: held by their live process, fresh, before their deadline. A
        wait's process that is killed leaves its record; it is looked at again within
        WAIT_STALE_SECONDS, or at once when anything else changes."""
        out = []
        for wait in waits.counting(self.store, now):
            due.append(min(now + policy.WAIT_STALE_SECONDS, wait.deadline))
            out.append(
                WaitState(
                    waiter=wait.waiter,
                    asks=tuple(wait.asks),
                    targets=tuple(wait.targets),
                    any_=wait.any_,
                    started=wait.started / 1e9,
                    deadline=wait.deadline,
                    path=wait.path,
                )
            )
        return tuple(out)

    def _load_errors(self, now: float) -> HookErrors | None:
        if not self._stale("log") and not self._stale("log size"):
            return self._errors
        text = fs.read_text(self.store.hook_log)
        return hook_errors(text, now) if text else None


def _claimed(cur: str) -> dict[str, str]:
    """Id to how of every claimed message: one listing, no path per message."""
    out: dict[str, str] = {}
    for name in fs.list_names(cur):
        parsed = parse_claimed(name)
        if parsed is not None:
            out[parsed[0]] = parsed[1]
    return out


def _tagged(
    name: str, order: list[tuple[float, str, str]]
) -> Iterator[tuple[float, str, str, str]]:
    for key, msg_id, how in order:
        yield key, msg_id, how, name


def _with_replies(m: MessageState, replies: Mapping[str, tuple[str, ...]]) -> MessageState:
    found = replies.get(m.id, ())
    return replace(m, replies=found) if found else m


def _settling(mtime_ns: int) -> bool:
    """Changed within the last SETTLE_SECONDS (by this machine's clock)."""
    return mtime_ns > 0 and time.time() - mtime_ns / 1e9 < SETTLE_SECONDS


def _read_head(path: str) -> dict[str, str] | None:
    """The headers of a message file: its first WATCH_HEAD_BYTES are enough."""
    try:
        fd = fs.open_regular(path, os.O_RDONLY)  # never a FIFO (it would hang) nor a link
    except OSError:
        return None
    try:
        data = os.read(fd, policy.WATCH_HEAD_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)
    return parse(data.decode("utf-8", "replace")).headers
