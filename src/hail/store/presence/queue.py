"""The queue route's record: `presence/codex-<thread>`, a Codex thread seen by hail's prompt hook
[docs/transport.md "Routes"]: its mailbox, whether its TUI runs under Codex's shared daemon, and
without the daemon the TUI's own pid. Under the daemon no hook names its TUI: the first send that
finds the thread's TUI in a pane writes that TUI in (`learn_thread`).
"""

from __future__ import annotations

import os
import time

from hail.store import fs
from hail.store.presence import base

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hail.process.base import Processes
    from hail.store.presence.base import Hook
    from hail.store.store import Store

PREFIX = "codex-"


class Thread:
    """A Codex thread hail's prompt hook saw: its mailbox and how its TUI runs."""

    __slots__ = ("daemon", "id", "mailbox", "pane", "server", "since", "tui", "tui_start")

    def __init__(
        self,
        id: str,
        mailbox: str,
        daemon: bool,
        tui: int = 0,
        tui_start: str = "",
        pane: str = "",
        since: float = 0.0,
        server: str = "",
    ) -> None:
        self.id = id
        self.mailbox = mailbox
        self.daemon = daemon
        self.tui = tui
        self.tui_start = tui_start
        self.pane = pane
        self.since = since
        self.server = server

    def __repr__(self) -> str:
        return f"Thread({self.id!r}, {self.mailbox!r}, daemon={self.daemon}, tui={self.tui})"

    def text(self) -> str:
        return base.render(
            [
                ("thread", self.id),
                ("mailbox", self.mailbox),
                ("daemon", "yes" if self.daemon else "no"),
                ("tui", str(self.tui) if self.tui else ""),
                ("tui-start", self.tui_start),
                ("pane", self.pane),
                ("server", self.server),
                ("since", f"{self.since:.3f}"),
            ]
        )

    def runs(self, procs: Processes) -> bool:
        """Its TUI is known and still runs."""
        return bool(self.tui) and procs.is_running(self.tui, self.tui_start)


def is_thread_id(text: str) -> bool:
    """A Codex thread id is a UUID: hex digits and dashes, nothing a path could misuse."""
    return 0 < len(text) <= 64 and all(c in "0123456789abcdef-" for c in text)


def thread_created(thread_id: str) -> float | None:
    """When a thread was created, from its id: Codex 0.171's thread ids are UUIDv7, whose first 48
    bits are milliseconds since the epoch."""
    digits = thread_id.replace("-", "")
    if len(digits) != 32 or digits[12] != "7":
        return None
    try:
        return int(digits[:12], 16) / 1000
    except ValueError:
        return None


def _thread_path(store: Store, thread_id: str) -> str:
    return os.path.join(base.directory(store), f"{PREFIX}{thread_id}")


def read_thread(path: str) -> Thread | None:
    r = base.fields(path)
    if r is None:
        return None
    thread_id, mailbox = r.get("thread", ""), r.get("mailbox", "")
    if not is_thread_id(thread_id) or not mailbox:
        return None
    return Thread(
        thread_id,
        mailbox,
        r.get("daemon", "") == "yes",
        base.number(r.get("tui", "")),
        r.get("tui-start", ""),
        r.get("pane", ""),
        base.moment(r.get("since", "")),
        r.get("server", ""),
    )


def threads(store: Store, mailbox: str | None = None) -> list[Thread]:
    """The Codex threads on record (of one mailbox), newest first."""
    found = [read_thread(path) for path in base.names(store, PREFIX)]
    kept = [t for t in found if t is not None and mailbox in (None, t.mailbox)]
    kept.sort(key=lambda t: t.since, reverse=True)
    return kept


def codex_tui(procs: Processes, hook_parent: int) -> tuple[bool, int, str]:
    """How the Codex that ran this hook runs: (under the daemon, the TUI's pid, its start).

    Without the daemon a hook is a child of its own TUI; with it, every hook is a child of the
    shared `codex app-server … --managed-daemon`, which names no TUI.
    """
    args = procs.args(hook_parent)
    if "app-server" in args:
        return True, 0, ""
    return False, hook_parent, procs.start(hook_parent)


def note_thread(
    store: Store, procs: Processes, mailbox: str, thread_id: str, env: Mapping[str, str]
) -> None:
    """Record a Codex thread the first time hail's prompt hook sees it (one stat on every later
    call), and drop the older threads of its mailbox: one TUI works in a seat. Under the daemon the
    hook's TMUX_PANE is another pane's: no pane is recorded then."""
    if not is_thread_id(thread_id):
        return
    path = _thread_path(store, thread_id)
    if os.path.exists(path):
        return
    daemon, tui, tui_start = codex_tui(procs, os.getppid())
    pane, server = ("", "") if daemon else (env.get("TMUX_PANE", ""), base.tmux_server(env))
    thread = Thread(thread_id, mailbox, daemon, tui, tui_start, pane, time.time(), server)
    fs.make_dirs(base.directory(store))
    for old in threads(store, mailbox):
        fs.remove_quietly(_thread_path(store, old.id))
    fs.write_atomic(path, thread.text())


def learn_thread(
    store: Store, procs: Processes, thread: Thread, pane: str, server: str, tui: int
) -> None:
    """Write in the pane, server and TUI a send found for a thread under the daemon, so the next
    send wakes it with no tmux call; nothing when the record was replaced meanwhile."""
    path = _thread_path(store, thread.id)
    if not os.path.exists(path):
        return
    thread.pane, thread.server, thread.tui = pane, server, tui
    thread.tui_start = procs.start(tui)
    fs.write_atomic(path, thread.text())


def note(hook: Hook, mailbox: str, event: str, payload: bytes) -> None:
    """What the prompt hook records for the queue: the Codex thread this prompt belongs to, so a
    send can queue on it."""
    if event != "UserPromptSubmit" or not payload:
        return
    from hail.payload import session_of

    note_thread(hook.store, hook.procs, mailbox, session_of(payload), hook.env)
