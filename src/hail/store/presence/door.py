"""The door route's record: `presence/qwen-<pid>`, a Qwen Code session process whose hooks ran
hail's: its cross-session socket, the token its hooks were handed, its session id, its seat, pane
and server [docs/transport.md "Qwen Code's door"].

Qwen hands every hook it runs `QWEN_CODE_MESSAGING_SOCKET`, `QWEN_CODE_MESSAGING_TOKEN` (the
token of a process the session started) and `QWEN_CODE_SESSION_ID`. The token opens that one
session's socket while the session runs, so the record is kept as the rest of hail's state is: a
0600 file in the 0700 state root, never printed, never sent to another machine. Written by
SessionStart (Qwen runs it as the TUI starts) and again by any hook that sees something else (a
`/clear` swaps the session under the same process).
"""

from __future__ import annotations

import os

from hail.store import fs
from hail.store.presence import base

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hail.process.base import Processes
    from hail.store.presence.base import Hook
    from hail.store.store import Store

PREFIX = "qwen-"


class Door:
    """A Qwen Code session process and what opens its socket."""

    __slots__ = ("pane", "pid", "seat", "server", "session", "socket", "start", "token")

    def __init__(
        self,
        pid: int,
        start: str,
        seat: str,
        session: str,
        socket: str,
        token: str,
        pane: str = "",
        server: str = "",
    ) -> None:
        self.pid = pid
        self.start = start
        self.seat = seat
        self.session = session
        self.socket = socket
        self.token = token
        self.pane = pane
        self.server = server

    def __repr__(self) -> str:  # never the token
        return f"Door({self.pid}, {self.seat!r}, {self.pane!r})"

    def runs(self, procs: Processes) -> bool:
        return procs.is_running(self.pid, self.start)

    def mailboxes(self) -> list[str]:
        """The seat, and the pane's sub-seat: the session's hooks read both once it exists."""
        return [self.seat, f"{self.seat}@{self.pane}"] if self.pane else [self.seat]

    def pairs(self) -> list[tuple[str, str]]:
        """The record's fields: compared as they are, so a hook whose record is current never
        loads the record writer."""
        return [
            ("qwen", str(self.pid)),
            ("qwen-start", self.start),
            ("seat", self.seat),
            ("session", self.session),
            ("socket", self.socket),
            ("token", self.token),
            ("pane", self.pane),
            ("server", self.server),
        ]

    def text(self) -> str:
        return base.render(self.pairs())


def read_door(path: str) -> Door | None:
    r = base.fields(path)
    if r is None:
        return None
    pid, seat = base.number(r.get("qwen", "")), r.get("seat", "")
    socket, token = r.get("socket", ""), r.get("token", "")
    if not pid or not seat or not socket or not token:
        return None
    return Door(
        pid,
        r.get("qwen-start", ""),
        seat,
        r.get("session", ""),
        socket,
        token,
        r.get("pane", ""),
        r.get("server", ""),
    )


def doors(store: Store, mailbox: str | None = None) -> list[Door]:
    """The Qwen Code sessions on record (reading `mailbox`), whatever their state."""
    found = [read_door(path) for path in base.names(store, PREFIX)]
    return [d for d in found if d is not None and (mailbox is None or mailbox in d.mailboxes())]


def session_socket(env: Mapping[str, str], pid: int) -> str:
    """The socket Qwen handed this hook, when it is the socket of `pid` (`<pid>.sock` or
    `<pid>-<8 hex>.sock`): a `hail` the agent runs in its shell tool sees the same variables,
    with its shell as the parent, and records nothing."""
    path = env.get("QWEN_CODE_MESSAGING_SOCKET", "")
    name = os.path.basename(path)
    if not name.endswith(".sock") or name[:-5].split("-", 1)[0] != str(pid):
        return ""
    return path


def note_door(hook: Hook, mailbox: str, session: str) -> None:
    """Record the Qwen Code process that ran this hook (its parent) and what opens its socket; one
    read on every later call, a write only when something changed. Records of ended sessions of
    the seat are dropped then."""
    pid, env = os.getppid(), hook.env
    socket, token = session_socket(env, pid), env.get("QWEN_CODE_MESSAGING_TOKEN", "")
    session = session or env.get("QWEN_CODE_SESSION_ID", "")
    if not socket or not token or not session:
        return  # not run by Qwen Code's session (by hand, or an older Qwen)
    seat = mailbox.split("@", 1)[0]
    path = os.path.join(base.directory(hook.store), f"{PREFIX}{pid}")
    old = read_door(path)
    pane, server = env.get("TMUX_PANE", ""), base.tmux_server(env)
    door = Door(
        pid, old.start if old is not None else "", seat, session, socket, token, pane, server
    )
    if old is not None and old.pairs() == door.pairs():
        return  # the same process: another one under this pid was handed another token
    door.start = hook.procs.start(pid)
    for ended in doors(hook.store, seat):
        if ended.pid != pid and not ended.runs(hook.procs):
            fs.remove_quietly(os.path.join(base.directory(hook.store), f"{PREFIX}{ended.pid}"))
    base.write(hook.store, f"{PREFIX}{pid}", door.text())


def note(hook: Hook, mailbox: str, event: str, payload: bytes) -> None:
    """What every hook of hail's in Qwen Code records: its session's door. The payload's session
    id is the current one (a `/clear` swaps it); SessionStart's brief reads no payload."""
    session = ""
    if payload:
        from hail.payload import session_of

        session = session_of(payload)
    note_door(hook, mailbox, session)
