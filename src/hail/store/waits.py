"""Waits for replies in progress, recorded in `waits/`, so that no two agents wait on each other
[docs/conversations.md "Crossing waits"].

A process waiting for replies (`await --reply`, `ask --wait`) writes one record: the mailbox that
waits, the asks it waits on and the mailbox each went to. It refreshes the record while it waits
and removes it when it stops; a record that is not refreshed belongs to a process that was killed
(an agent's tool call ends at its own limit) and counts for nothing.

A new wait that would close a cycle — A waits for B while B starts waiting for A, directly or
through other seats — is refused at once. Both of two waits started at the same moment may see the
cycle: only the newer one is refused, so exactly one of them goes on.
"""

from __future__ import annotations

import os
import time

from hail import policy
from hail.store import fs
from hail.store.records import parse_record, render_record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hail.store.store import Store

    #: (wait, ask id) pairs: a path of waits ending at an ask to the seat that starts a new wait.
    Path = list[tuple["Wait", str]]


class Wait:
    """One waiting process: `waiter` waits for replies to `asks`, sent to `targets` (in order)."""

    __slots__ = ("any_", "asks", "deadline", "path", "started", "targets", "waiter")

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


def _read(path: str) -> Wait | None:
    text = fs.read_text(path)
    if text is None:
        return None
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


def live(store: Store, now: float) -> list[Wait]:
    """Every wait whose process still refreshes its record and whose deadline has not passed."""
    where = waits_dir(store)
    out = []
    for name in fs.list_names(where):
        path = os.path.join(where, name)
        touched = fs.mtime(path)
        if touched is None:
            continue
        if now - touched > policy.WAIT_STALE_SECONDS:
            _remove(path)  # its process is gone
            continue
        wait = _read(path)
        if wait is not None and wait.deadline > now:
            out.append(wait)
    return out


def start(store: Store, wait: Wait) -> None:
    """Write the record of a wait that begins now."""
    where = waits_dir(store)
    fs.make_dirs(where)
    wait.path = os.path.join(where, f"{wait.started}-{os.getpid()}")
    fs.write_atomic(wait.path, wait.text())


def refresh(wait: Wait) -> None:
    try:
        os.utime(wait.path)
    except FileNotFoundError:
        fs.write_atomic(wait.path, wait.text())  # removed under it (by gc, or by hand): rewrite


def stop(wait: Wait) -> None:
    _remove(wait.path)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def blocking_path(
    waits: list[Wait], new: Wait, answered: Callable[[Wait, str], bool]
) -> Path | None:
    """The waits through which `new` would end up waiting on itself, or None when it would not.

    A wait blocks its waiter on each ask it waits for that has no reply yet: on all of them, or,
    with `--any`, only while every one of them is blocked. The path ends at the wait (and its ask)
    that waits on `new.waiter`: that is the ask `new.waiter` should answer first.
    """
    by_waiter: dict[str, list[Wait]] = {}
    for w in waits:
        if w.path != new.path:
            by_waiter.setdefault(w.waiter, []).append(w)

    # A result is None when the waiter is free to get its answer, a path when it ends up waiting
    # on `new.waiter`, and [] when it is stuck in a cycle of waits that does not include it.
    def via(wait: Wait, seen: frozenset[str]) -> Path | None:
        results: list[Path | None] = []
        for ask, target in zip(wait.asks, wait.targets, strict=True):
            if answered(wait, ask):
                continue
            if target == new.waiter:
                results.append([(wait, ask)])
                continue
            found = reach(target, seen)
            results.append(None if found is None else [(wait, ask), *found] if found else [])
        stuck = [r for r in results if r is not None]
        if not results or (wait.any_ and len(stuck) < len(results)) or not stuck:
            return None
        return next((r for r in stuck if r), [])

    def reach(node: str, seen: frozenset[str]) -> Path | None:
        if node in seen:
            return []
        stuck: list[Path] = []
        for wait in by_waiter.get(node, []):
            found = via(wait, seen | {node})
            if found is not None:
                stuck.append(found)
        return next((r for r in stuck if r), [] if stuck else None)

    path = via(new, frozenset({new.waiter}))
    return path[1:] if path else None


def refused(path: Path, new: Wait) -> bool:
    """Of the waits on a cycle, the newest gives way; the others go on waiting."""
    return all((new.started, new.path) > (w.started, w.path) for w, _ in path)


def read_record(path: str) -> Wait | None:
    """One wait record as it stands, refreshed or not: for readers that must not remove it
    (`hail watch` judges liveness itself, by the record's mtime and deadline)."""
    return _read(path)
