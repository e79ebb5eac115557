"""Waits for replies in progress, recorded in `waits/`, so that no two agents wait on each other
[docs/conversations.md "Crossing waits"].

A process waiting for replies (`await --reply`, `ask --wait`) writes one record: the mailbox that
waits, the asks it waits on and the mailbox each went to. It holds the record open and locked
(`flock`) from before the record appears until after it is removed, refreshes its mtime while it
waits, and removes it when it stops. A record counts only while a process holds its lock: the
kernel lets the lock go when the process dies however it dies, so a record left by a killed wait,
or written by hand, counts for nothing, whatever pid or times it claims. It must also be fresh
(touched within WAIT_STALE_SECONDS, neither before nor after now), before its deadline, and wait on
asks its waiter sent to the mailboxes it names.

A new wait that would close a cycle — A waits for B while B starts waiting for A, directly or
through other seats — is refused at once. A wait writes its record and lists `waits/` under one
lock (`waits/.lock`), then follows the records it listed: of two waits started at the same moment
the one that takes the lock second lists the other's record and gives way, and the first, which
could not list the second, goes on. Exactly one goes on, and never neither: without the lock (not
had within WAIT_LOCK_SECONDS) each still writes before it lists, so the later lister sees the
other, and at worst both give way.
"""

from __future__ import annotations

import fcntl
import os
import stat
import time

from hail import policy
from hail.store import conversation, fs
from hail.store.fs import parse_record
from hail.store.records import render_record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Protocol, TypeVar

    from hail.store.store import Store

    class Waiting(Protocol):
        """What the wait graph reads of a wait: a record here, or `hail watch`'s view of one."""

        @property
        def waiter(self) -> str: ...
        @property
        def asks(self) -> Sequence[str]: ...
        @property
        def targets(self) -> Sequence[str]: ...
        @property
        def any_(self) -> bool: ...
        @property
        def path(self) -> str: ...

    W = TypeVar("W", bound=Waiting)

#: A wait record is a few short lines; anything longer is no record of hail's.
RECORD_MAX_BYTES = 1 << 16


class Wait:
    """One waiting process: `waiter` waits for replies to `asks`, sent to `targets` (in order)."""

    __slots__ = ("any_", "asks", "deadline", "fd", "path", "started", "targets", "waiter")

    def __init__(
        self,
        waiter: str,
        asks: list[str],
        targets: list[str],
        *,
        any_: bool,
        deadline: float,
        started: int = 0,
        path: str = "",
    ) -> None:
        self.waiter = waiter
        self.asks = asks
        self.targets = targets
        self.any_ = any_
        self.deadline = deadline
        self.started = started or time.time_ns()
        self.path = path
        self.fd: int | None = None  # the record, held open and locked while the wait goes on

    def __repr__(self) -> str:
        return f"Wait({self.waiter!r}, {self.asks!r}, {self.targets!r}, any_={self.any_})"

    def text(self) -> str:
        return render_record(
            [
                ("waiter", self.waiter),
                ("asks", " ".join(self.asks)),
                ("to", " ".join(self.targets)),
                ("any", "yes" if self.any_ else "no"),
                ("started", str(self.started)),
                ("deadline", f"{self.deadline:.3f}"),
                ("pid", str(os.getpid())),
            ]
        )


def waits_dir(store: Store) -> str:
    return os.path.join(store.root, "waits")


def _parse(text: str, path: str) -> Wait | None:
    r = parse_record(text)
    asks, targets = r.get("asks", "").split(), r.get("to", "").split()
    try:
        started, deadline = int(r.get("started", "")), float(r.get("deadline", ""))
    except ValueError:
        return None
    if not r.get("waiter") or not asks or len(asks) != len(targets):
        return None
    return Wait(
        r["waiter"],
        asks,
        targets,
        any_=r.get("any") == "yes",
        deadline=deadline,
        started=started,
        path=path,
    )


class _Look:
    """One look at an entry of `waits/`: its wait (None when it is no wait record), whether it is a
    plain file, its mtime, and whether a process holds its lock (None when this filesystem cannot
    tell)."""

    __slots__ = ("file", "held", "touched", "wait")

    def __init__(self, wait: Wait | None, file: bool, touched: float, held: bool | None) -> None:
        self.wait = wait
        self.file = file
        self.touched = touched
        self.held = held


def _look(path: str) -> _Look | None:
    """Open the entry without following a link or blocking on a FIFO; None when it is gone."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError:
        return _Look(None, False, 0.0, False)  # a link, or unreadable
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return _Look(None, False, st.st_mtime, False)
        held = _held(fd)
        data = os.read(fd, RECORD_MAX_BYTES + 1)
    except OSError:
        return _Look(None, False, 0.0, False)
    finally:
        os.close(fd)  # lets go of the shared lock a record nobody holds gave this look
    text = data.decode("utf-8", "replace") if len(data) <= RECORD_MAX_BYTES else ""
    return _Look(_parse(text, path), True, st.st_mtime, held)


def _held(fd: int) -> bool | None:
    """Whether another process holds this file's lock, as a waiting process holds its record."""
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return None  # no locks on this filesystem: the mtime alone says whether it is refreshed
    return False


def _dead(look: _Look, now: float) -> str:
    """Why a record counts for nothing, from the record alone; "" when it may count."""
    if not look.file:
        return "it is no plain file"
    if look.wait is None:
        return "it is not a wait record"
    if look.held is False:
        return "no process holds it: its wait ended without removing it, or it was written by hand"
    if look.touched - now > policy.WAIT_STALE_SECONDS:
        return "its mtime is in the future"
    if now - look.touched > policy.WAIT_STALE_SECONDS:
        return f"not refreshed for {now - look.touched:.0f} s: its process is stopped or gone"
    if look.wait.started / 1e9 - now > policy.WAIT_STALE_SECONDS:
        return "it says it started in the future"
    if look.wait.deadline <= now:
        return "its deadline has passed"
    return ""


def live(store: Store, now: float, names: list[str]) -> list[Wait]:
    """The waits of `names` that count: held by a live process, fresh, before their deadline.
    Whether each ask is one its waiter sent is checked only for the asks a search reaches
    (`settled`). A record whose process is gone is removed."""
    where = waits_dir(store)
    out = []
    for name in names:
        path = os.path.join(where, name)
        look = _look(path)
        if look is None:
            continue
        if look.wait is not None and not _dead(look, now):
            out.append(look.wait)
        elif look.file and (
            look.held is False
            or (look.held is None and now - look.touched > policy.WAIT_STALE_SECONDS)
        ):
            _remove(path)  # no process holds it: gone, or there never was one
    return out


def _ask_fault(store: Store, wait: Wait, ask_id: str, target: str) -> str:
    """Why `ask_id` is no ask of the wait's waiter to `target`; "" when it is."""
    found = store.find(ask_id)
    if found is None:
        return f"it waits on {ask_id}, which is no message here"
    msg, receipt = found
    asker = conversation.seat_of_mailbox(msg.get("reply"))
    if msg.kind != "ask" or asker != conversation.seat_of_mailbox(wait.waiter):
        return f"it waits on {ask_id}, which is no ask {wait.waiter} sent"
    if receipt.mailbox != target:
        return f"it waits on {ask_id} from {target}, but that ask went to {receipt.mailbox}"
    return ""


def _asks_fault(store: Store, wait: Wait) -> str:
    for ask_id, target in zip(wait.asks, wait.targets, strict=True):
        fault = _ask_fault(store, wait, ask_id, target)
        if fault:
            return fault
    return ""


def settled(store: Store) -> Callable[[Wait, str], bool]:
    """Whether an ask no longer holds its wait's waiter: a reply to it is in the waiter's seat
    (the wait is about to end), or it is no ask the waiter sent to the mailbox named."""

    def check(wait: Wait, ask_id: str) -> bool:
        seat = conversation.seat_of_mailbox(wait.waiter)
        if conversation.replies_in_seat(store, ask_id, seat):
            return True
        return bool(_ask_fault(store, wait, ask_id, wait.targets[wait.asks.index(ask_id)]))

    return check


def dead_records(store: Store, now: float) -> list[tuple[str, str]]:
    """(path, why) of every record in `waits/` that counts for nothing: what gc removes and
    doctor names. A record of a live wait is never among them."""
    where = waits_dir(store)
    out = []
    for name in fs.list_names(where):
        path = os.path.join(where, name)
        look = _look(path)
        if look is None:
            continue
        why = _dead(look, now)
        if not why and look.wait is not None:
            why = _asks_fault(store, look.wait)
        if why:
            out.append((path, why))
    return out


def remove_dead(paths: list[str]) -> int:
    """Remove what `dead_records` found (a folder only when empty); how many went."""
    removed = 0
    for path in paths:
        try:
            os.unlink(path)
        except IsADirectoryError:
            try:
                os.rmdir(path)
            except OSError:
                continue
        except OSError:
            continue
        removed += 1
    return removed


def start(store: Store, wait: Wait) -> list[str]:
    """Write the record of a wait that begins now; the names in `waits/` just after, its own
    among them. Both happen under the lock, so of any two waits one lists the other's record."""
    where = waits_dir(store)
    fs.make_dirs(where)
    wait.path = os.path.join(where, f"{wait.started}-{os.getpid()}")
    fd = _lock(where)
    try:
        _write_held(wait)
        return fs.list_names(where)
    finally:
        if fd is not None:
            os.close(fd)  # closing it lets the lock go


def _write_held(wait: Wait) -> None:
    """Write the record beside its place, lock it, then rename it there: it is never seen
    unlocked while its process lives. The previous descriptor, if any, is closed."""
    head, name = os.path.split(wait.path)
    tmp = os.path.join(head, f".{name}.tmp")
    fs.remove_quietly(tmp)
    fd = os.open(
        tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, fs.FILE_MODE
    )
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # nobody else has it open
        except OSError:
            pass  # no locks here: others go by the mtime alone
        fs.write_all(fd, wait.text().encode("utf-8", "surrogateescape"))
        os.replace(tmp, wait.path)
    except BaseException:
        os.close(fd)
        fs.remove_quietly(tmp)
        raise
    if wait.fd is not None:
        os.close(wait.fd)
    wait.fd = fd


def _lock(where: str) -> int | None:
    """Hold `waits/.lock` (the descriptor to close), or None when it is not had in time.

    The lock is held for one write and one listing; the kernel lets it go when its holder dies, so
    only a stopped holder keeps it, and after WAIT_LOCK_SECONDS a wait goes on without it.
    """
    try:
        fd = os.open(
            os.path.join(where, ".lock"),
            os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW,
            fs.FILE_MODE,
        )
    except OSError:
        return None
    give_up = time.monotonic() + policy.WAIT_LOCK_SECONDS
    pause = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= give_up:
                break
            time.sleep(pause)
            pause = min(pause * 2, 0.02)
        except OSError:
            break  # a filesystem without locks: each wait still writes before it lists
    os.close(fd)
    return None


def refresh(wait: Wait) -> None:
    try:
        os.utime(wait.path)
    except FileNotFoundError:
        _write_held(wait)  # removed under it (by hand): write it again


def stop(wait: Wait) -> None:
    """Remove the record, then let its lock go: it is never seen unlocked."""
    _remove(wait.path)
    if wait.fd is not None:
        os.close(wait.fd)
        wait.fd = None


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _same(mailbox: str) -> str:
    return mailbox


def blocking_path(
    waits: Sequence[W],
    new: W,
    answered: Callable[[W, str], bool],
    node: Callable[[str], str] = _same,
) -> list[tuple[W, str]] | None:
    """The waits through which `new` would end up waiting on itself, or None when it would not:
    the one wait graph, behind both the refusal of a crossing wait and `hail watch`'s flag.

    A wait blocks its waiter on each ask it waits for that has no reply yet: on all of them, or,
    with `--any`, only while every one of them is blocked. The path, a list of (wait, ask id), ends
    at the wait (and its ask) that waits on `new.waiter`: that is the ask `new.waiter` should answer
    first. `node` names the party a mailbox stands for (itself for the refusal, its seat for the
    watch). `new` is left out of `waits` by its record's path (or, with no record, by identity).
    """
    by_waiter: dict[str, list[W]] = {}
    for w in waits:
        if w is not new and not (new.path and w.path == new.path):
            by_waiter.setdefault(node(w.waiter), []).append(w)
    goal = node(new.waiter)

    # A result is None when the waiter is free to get its answer, a path when it ends up waiting
    # on `new.waiter`, and [] when it is stuck in a cycle of waits that does not include it.
    def via(wait: W, seen: frozenset[str]) -> list[tuple[W, str]] | None:
        results: list[list[tuple[W, str]] | None] = []
        for ask, target in zip(wait.asks, wait.targets, strict=True):
            if answered(wait, ask):
                continue
            if node(target) == goal:
                results.append([(wait, ask)])
                continue
            found = reach(node(target), seen)
            results.append(None if found is None else [(wait, ask), *found] if found else [])
        stuck = [r for r in results if r is not None]
        if not results or (wait.any_ and len(stuck) < len(results)) or not stuck:
            return None
        return next((r for r in stuck if r), [])

    def reach(party: str, seen: frozenset[str]) -> list[tuple[W, str]] | None:
        if party in seen:
            return []
        stuck: list[list[tuple[W, str]]] = []
        for wait in by_waiter.get(party, []):
            found = via(wait, seen | {party})
            if found is not None:
                stuck.append(found)
        return next((r for r in stuck if r), [] if stuck else None)

    path = via(new, frozenset({goal}))
    return path[1:] if path else None


def counting(store: Store, now: float) -> list[Wait]:
    """The waits that count now (held by a live process, fresh, before their deadline), removing
    nothing: for readers that only look (`hail watch`). Whether each ask is one its waiter sent is
    not checked; a wait on another seat's ask still shows as what it says."""
    where = waits_dir(store)
    out = []
    for name in sorted(fs.list_names(where)):
        look = _look(os.path.join(where, name))
        if look is not None and look.wait is not None and not _dead(look, now):
            out.append(look.wait)
    return out
