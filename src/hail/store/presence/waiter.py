"""The waiter route's record: `presence/claude-<pid>`, the one waiter (`hail listen`) of the Claude
Code process `<pid>` [docs/hooks.md "The waiter"].

Only waiters write it: the newest takes the name, and an older one that finds another live waiter
named there ends, so a process has at most one. `state: listening` while it waits, `fired` once it
woke its session.
"""

from __future__ import annotations

import os

from hail.store import fs
from hail.store.presence import base

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.process.base import Processes
    from hail.store.store import Store

LISTENING = "listening"
FIRED = "fired"
PREFIX = "claude-"


class Waiter:
    """The record of one waiter: who it is, whose process it serves, and what it waits for."""

    __slots__ = (
        "claude",
        "claude_start",
        "mailboxes",
        "pane",
        "pid",
        "server",
        "session",
        "since",
        "start",
        "state",
    )

    def __init__(
        self,
        claude: int,
        claude_start: str,
        pid: int,
        start: str,
        mailboxes: list[str],
        pane: str = "",
        session: str = "",
        state: str = LISTENING,
        since: float = 0.0,
        server: str = "",
    ) -> None:
        self.claude = claude
        self.claude_start = claude_start
        self.pid = pid
        self.start = start
        self.mailboxes = mailboxes
        self.pane = pane
        self.session = session
        self.state = state
        self.since = since
        self.server = server

    def __repr__(self) -> str:
        return f"Waiter({self.claude}, {self.pid}, {self.mailboxes!r}, {self.pane!r}, {self.state})"

    def is_me(self, other: Waiter | None) -> bool:
        return other is not None and (other.pid, other.start) == (self.pid, self.start)

    def listening(self, procs: Processes) -> bool:
        """It waits now: its state says so and its process runs."""
        return self.state == LISTENING and procs.is_running(self.pid, self.start)

    def client_running(self, procs: Processes) -> bool:
        return procs.is_running(self.claude, self.claude_start)

    def text(self) -> str:
        return base.render(
            [
                ("claude", str(self.claude)),
                ("claude-start", self.claude_start),
                ("waiter", str(self.pid)),
                ("waiter-start", self.start),
                ("pane", self.pane),
                ("server", self.server),
                ("mailboxes", " ".join(self.mailboxes)),
                ("session", self.session),
                ("state", self.state),
                ("since", f"{self.since:.3f}"),
            ]
        )


def waiter_path(store: Store, claude: int) -> str:
    return os.path.join(base.directory(store), f"{PREFIX}{claude}")


def read_waiter(path: str) -> Waiter | None:
    """The waiter record at `path`, or None when there is none or it is not one."""
    r = base.fields(path)
    if r is None:
        return None
    claude, pid = base.number(r.get("claude", "")), base.number(r.get("waiter", ""))
    mailboxes = r.get("mailboxes", "").split()
    if not claude or not pid or not mailboxes:
        return None
    return Waiter(
        claude,
        r.get("claude-start", ""),
        pid,
        r.get("waiter-start", ""),
        mailboxes,
        r.get("pane", ""),
        r.get("session", ""),
        r.get("state", ""),
        base.moment(r.get("since", "")),
        r.get("server", ""),
    )


def write_waiter(store: Store, waiter: Waiter) -> None:
    base.write(store, f"{PREFIX}{waiter.claude}", waiter.text())


def remove_waiter(store: Store, waiter: Waiter) -> None:
    """Remove the record if it still names this waiter. A newer waiter that wrote between the read
    and the unlink loses its record, and writes it again at its next look (`hooks/listen.py`)."""
    path = waiter_path(store, waiter.claude)
    if waiter.is_me(read_waiter(path)):
        fs.remove_quietly(path)


def waiters(store: Store) -> list[Waiter]:
    """Every waiter record, whatever its processes' state."""
    found = (read_waiter(path) for path in base.names(store, PREFIX))
    return [w for w in found if w is not None]


def prune_waiters(store: Store, procs: Processes) -> None:
    """Remove the records of Claude Code processes that are gone (a SIGKILLed client, a waiter
    that fired before its session ended)."""
    for waiter in waiters(store):
        if not waiter.client_running(procs):
            remove_waiter(store, waiter)
