"""Presence: the agent sessions hail can wake without typing, as hail's own hooks saw them
[docs/transport.md "Routes"].

Records under `presence/`, `key: value` lines (docs/files.md "Records"):

- `claude-<pid>`: the one waiter (`hail listen`) of the Claude Code process `<pid>`. Only waiters
  write it: the newest takes the name, and an older one that finds another live waiter named there
  ends, so a process has at most one. `state: listening` while it waits, `fired` once it woke its
  session.
- `codex-<thread>`: a Codex thread seen by hail's prompt hook: its mailbox, whether its TUI runs
  under Codex's shared daemon, and without the daemon the TUI's own pid. Under the daemon no hook
  names its TUI: the first send that finds the thread's TUI in a pane writes that TUI in.

Each names the pane its session runs in and that pane's tmux server (`server:`, the socket a hail
run there talks to), so a send can wake it with no tmux call, and refuses a record of another
server (`transport/native.py`).

Beside them, per mailbox, the mark `seats/<mailbox>/wake`: its mtime is the last send that asked
a waiter to wake the agent; a waiter wakes its session only for such a send, never for mail a
quiet fyi or the Stop hook's cap left unread.

A process is named by its pid and its start identity (`process/base.py`), so a reused pid never
passes for the process a record names. Plain os calls and string paths, and the record format loaded
only to read or write a record: the waiter and the prompt hook load this.
"""

from __future__ import annotations

import os
import time

from hail.store import fs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hail.process.base import Processes
    from hail.store.store import Store

LISTENING = "listening"
FIRED = "fired"


def directory(store: Store) -> str:
    return os.path.join(store.root, "presence")


def tmux_server(env: Mapping[str, str]) -> str:
    """The socket of the tmux server this process's pane is in, as a hail run here would talk to it
    (HAIL_SOCKET, else $TMUX's): "" outside tmux, or when no pane is known."""
    if not env.get("TMUX_PANE"):
        return ""
    return env.get("HAIL_SOCKET", "") or env.get("TMUX", "").split(",", 1)[0]


# --- Claude Code waiters --------------------------------------------------------------------------


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
        from hail.store.records import render_record

        return render_record(
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
    return os.path.join(directory(store), f"claude-{claude}")


def _int(text: str) -> int:
    return int(text) if text.isascii() and text.isdigit() else 0


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def read_waiter(path: str) -> Waiter | None:
    """The waiter record at `path`, or None when there is none or it is not one."""
    text = fs.read_text(path)
    if not text:
        return None
    from hail.store.records import parse_record

    r = parse_record(text)
    claude, pid = _int(r.get("claude", "")), _int(r.get("waiter", ""))
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
        _float(r.get("since", "")),
        r.get("server", ""),
    )


def write_waiter(store: Store, waiter: Waiter) -> None:
    fs.make_dirs(directory(store))
    fs.write_atomic(waiter_path(store, waiter.claude), waiter.text())


def remove_waiter(store: Store, waiter: Waiter) -> None:
    """Remove the record if it still names this waiter. A newer waiter that wrote between the read
    and the unlink loses its record, and writes it again at its next look (`hooks/listen.py`)."""
    path = waiter_path(store, waiter.claude)
    if waiter.is_me(read_waiter(path)):
        fs.remove_quietly(path)


def waiters(store: Store) -> list[Waiter]:
    """Every waiter record, whatever its processes' state."""
    found = []
    base = directory(store)
    for name in fs.list_names(base):
        if name.startswith("claude-"):
            waiter = read_waiter(os.path.join(base, name))
            if waiter is not None:
                found.append(waiter)
    return found


def prune_waiters(store: Store, procs: Processes) -> None:
    """Remove the records of Claude Code processes that are gone (a SIGKILLed client, a waiter
    that fired before its session ended)."""
    for waiter in waiters(store):
        if not waiter.client_running(procs):
            remove_waiter(store, waiter)


# --- Codex threads --------------------------------------------------------------------------------


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
        from hail.store.records import render_record

        return render_record(
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
    return os.path.join(directory(store), f"codex-{thread_id}")


def read_thread(path: str) -> Thread | None:
    text = fs.read_text(path)
    if not text:
        return None
    from hail.store.records import parse_record

    r = parse_record(text)
    thread_id, mailbox = r.get("thread", ""), r.get("mailbox", "")
    if not is_thread_id(thread_id) or not mailbox:
        return None
    return Thread(
        thread_id,
        mailbox,
        r.get("daemon", "") == "yes",
        _int(r.get("tui", "")),
        r.get("tui-start", ""),
        r.get("pane", ""),
        _float(r.get("since", "")),
        r.get("server", ""),
    )


def threads(store: Store, mailbox: str | None = None) -> list[Thread]:
    """The Codex threads on record (of one mailbox), newest first."""
    found = []
    base = directory(store)
    for name in fs.list_names(base):
        if name.startswith("codex-"):
            thread = read_thread(os.path.join(base, name))
            if thread is not None and (mailbox is None or thread.mailbox == mailbox):
                found.append(thread)
    found.sort(key=lambda t: t.since, reverse=True)
    return found


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
    pane, server = ("", "") if daemon else (env.get("TMUX_PANE", ""), tmux_server(env))
    thread = Thread(thread_id, mailbox, daemon, tui, tui_start, pane, time.time(), server)
    fs.make_dirs(directory(store))
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


# --- opencode plugins -----------------------------------------------------------------------------


class Plugin:
    """An opencode process whose hail plugin ran hail's prompt hook: its mailbox, pane and server.
    The plugin wakes its own session on the wake mark; the record only lets a send skip tmux."""

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
        from hail.store.records import render_record

        return render_record(
            [
                ("opencode", str(self.pid)),
                ("opencode-start", self.start),
                ("mailbox", self.mailbox),
                ("pane", self.pane),
                ("server", self.server),
            ]
        )


def read_plugin(path: str) -> Plugin | None:
    text = fs.read_text(path)
    if not text:
        return None
    from hail.store.records import parse_record

    r = parse_record(text)
    pid, mailbox = _int(r.get("opencode", "")), r.get("mailbox", "")
    if not pid or not mailbox:
        return None
    return Plugin(pid, r.get("opencode-start", ""), mailbox, r.get("pane", ""), r.get("server", ""))


def plugins(store: Store, mailbox: str | None = None) -> list[Plugin]:
    """The opencode processes on record (for `mailbox`), whatever their state."""
    base = directory(store)
    found = [
        read_plugin(os.path.join(base, n)) for n in fs.list_names(base) if n[:9] == "opencode-"
    ]
    return [p for p in found if p is not None and mailbox in (None, p.mailbox)]


def note_plugin(store: Store, procs: Processes, mailbox: str, env: Mapping[str, str]) -> None:
    """Record the opencode process that ran this hook (its plugin spawns hail directly) the first
    time it does (one stat on every later call), and drop the mailbox's records of ended ones."""
    pid = os.getppid()
    path = os.path.join(directory(store), f"opencode-{pid}")
    if os.path.exists(path):
        return
    for old in plugins(store, mailbox):
        if not old.runs(procs):
            fs.remove_quietly(os.path.join(directory(store), f"opencode-{old.pid}"))
    plugin = Plugin(pid, procs.start(pid), mailbox, env.get("TMUX_PANE", ""), tmux_server(env))
    fs.make_dirs(directory(store))
    fs.write_atomic(path, plugin.text())
