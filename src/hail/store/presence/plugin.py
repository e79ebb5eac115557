"""The plugin route's record: `presence/opencode-<pid>`, an opencode process whose hail plugin
ran hail's prompt hook: its mailbox, pane and server [docs/transport.md "Routes"]. The plugin
wakes its own session on the wake mark; the record only lets a send skip tmux.
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

PREFIX = "opencode-"


class Plugin:
    """An opencode process whose hail plugin ran hail's prompt hook: its mailbox, pane and server."""

    __slots__ = ("mailbox", "pane", "pid", "server", "start")

    def __init__(self, pid: int, start: str, mailbox: str, pane: str, server: str) -> None:
        self.pid = pid
        self.start = start
        self.mailbox = mailbox
        self.pane = pane
        self.server = server

    def __repr__(self) -> str:
        return f"Plugin({self.pid}, {self.mailbox!r}, {self.pane!r})"

    def runs(self, procs: Processes) -> bool:
        return procs.is_running(self.pid, self.start)

    def text(self) -> str:
        return base.render(
            [
                ("opencode", str(self.pid)),
                ("opencode-start", self.start),
                ("mailbox", self.mailbox),
                ("pane", self.pane),
                ("server", self.server),
            ]
        )


def read_plugin(path: str) -> Plugin | None:
    r = base.fields(path)
    if r is None:
        return None
    pid, mailbox = base.number(r.get("opencode", "")), r.get("mailbox", "")
    if not pid or not mailbox:
        return None
    return Plugin(pid, r.get("opencode-start", ""), mailbox, r.get("pane", ""), r.get("server", ""))


def plugins(store: Store, mailbox: str | None = None) -> list[Plugin]:
    """The opencode processes on record (for `mailbox`), whatever their state."""
    found = [read_plugin(path) for path in base.names(store, PREFIX)]
    return [p for p in found if p is not None and mailbox in (None, p.mailbox)]


def note_plugin(store: Store, procs: Processes, mailbox: str, env: Mapping[str, str]) -> None:
    """Record the opencode process that ran this hook (its plugin spawns hail directly) the first
    time it does (one stat on every later call), and drop the mailbox's records of ended ones."""
    pid = os.getppid()
    path = os.path.join(base.directory(store), f"{PREFIX}{pid}")
    if os.path.exists(path):
        return
    for old in plugins(store, mailbox):
        if not old.runs(procs):
            fs.remove_quietly(os.path.join(base.directory(store), f"{PREFIX}{old.pid}"))
    plugin = Plugin(pid, procs.start(pid), mailbox, env.get("TMUX_PANE", ""), base.tmux_server(env))
    base.write(store, f"{PREFIX}{pid}", plugin.text())


def note(hook: Hook, mailbox: str, event: str, payload: bytes) -> None:
    """What every hook of hail's plugin records: the opencode process it runs in, so a send can
    leave its wake mark with no tmux call."""
    note_plugin(hook.store, hook.procs, mailbox, hook.env)
