"""The native wakes, chosen before anything is typed [docs/transport.md "Routes"]: Claude Code's
waiter (`hail listen`, an asyncRewake hook) and Codex's queue (`codex queue`).

A route is native only when hail's own hook records show it live for the session in that pane:
a waiter of the pane's Claude Code process that listens (or fired a moment ago and its wake has
not been taken yet), or the Codex thread of the pane's TUI. The turn state comes from the same
records: the mailbox's `hooked` and `stopping` marks say whether the last hook was a Stop that let
the turn end (or a SessionStart). Between turns the wake goes native; during a turn nothing is
woken or queued, since PostToolUse and Stop carry the mail. The screen is read only by the caller,
when a route falls back to typing.
"""

from __future__ import annotations

import os
import time

from hail import policy
from hail.harnesses import base, registry
from hail.store import presence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hail.context import Ctx
    from hail.store.presence import Plugin, Thread, Waiter
    from hail.transport.panes import Pane


class Native:
    """A live native route to one pane's session: its waiter, or its Codex thread and TUI. `pane`
    is the surveyed pane, None when the route was found by hail's records alone (`by_records`)."""

    __slots__ = ("pane", "pane_id", "plugin", "thread", "tui", "waiter")

    def __init__(
        self,
        pane: Pane | None,
        waiter: Waiter | None = None,
        thread: Thread | None = None,
        tui: int = 0,
        pane_id: str = "",
        plugin: Plugin | None = None,
    ) -> None:
        self.pane = pane
        self.pane_id = pane.id if pane is not None else pane_id
        self.waiter = waiter
        self.thread = thread
        self.tui = tui
        #: An opencode process whose plugin wakes its own session (found by the records only).
        self.plugin = plugin

    def __repr__(self) -> str:
        return f"Native({self.pane_id!r}, {self.waiter!r}, {self.thread!r})"

    @property
    def route(self) -> str:
        """The route's name (`harnesses/base`): the waiter's wake, the thread's queue, the plugin."""
        if self.plugin is not None:
            return base.PLUGIN
        return base.WAKE if self.waiter is not None else base.QUEUE

    @property
    def agent(self) -> str:
        """The harness whose hooks recorded this route (its waiter, thread or plugin)."""
        return next(h.name for h in registry.every() if h.wake == self.route)

    def turn_mailbox(self, mailbox: str) -> str:
        """The mailbox whose marks this session's hooks keep: a waiter's first, else the target."""
        return self.waiter.mailboxes[0] if self.waiter is not None else mailbox


def claude_waiter(ctx: Ctx, pane: Pane, mailbox: str) -> Waiter | None:
    """The waiter of the Claude Code process in this pane that waits for this mailbox: listening,
    or fired within WAKE_GRACE_SECONDS with no hook run since (its wake is on its way, and the
    prompt hook of the turn it starts takes what is unread)."""
    for waiter in presence.waiters(ctx.store):
        procs = ctx.procs()
        if mailbox not in waiter.mailboxes or not waiter.client_running(procs):
            continue
        if not procs.descends_from(waiter.claude, pane.pid):
            continue  # another tmux server's pane of the same id, or another process
        if wakes(ctx, waiter):
            return waiter
    return None


def wakes(ctx: Ctx, waiter: Waiter) -> bool:
    """The waiter listens, or fired within WAKE_GRACE_SECONDS with no hook run since."""
    if waiter.listening(ctx.procs()):
        return True
    hooked = ctx.store.mailbox(waiter.mailboxes[0]).hooked_at()
    return (
        waiter.state == presence.FIRED
        and time.time() - waiter.since < policy.WAKE_GRACE_SECONDS
        and (hooked is None or hooked < waiter.since)
    )


def find(ctx: Ctx, pane: Pane, mailbox: str) -> Native | None:
    """The pane's live native route for a send to `mailbox`, or None (then typing, as before)."""
    route = registry.get(pane.agent).wake if pane.agent in registry.NAMES else base.TYPE
    if route == base.WAKE:
        waiter = claude_waiter(ctx, pane, mailbox)
        return Native(pane, waiter=waiter) if waiter is not None else None
    if route == base.QUEUE:
        from hail.transport.codex_queue import live_thread

        found = live_thread(ctx, pane, mailbox)
        if found is not None:
            return Native(pane, thread=found[0], tui=found[1])
    return None


def learn(ctx: Ctx, found: Native) -> None:
    """A send that found a Codex thread under the daemon in its pane writes the pane, its server
    and the TUI into the thread's record: the next send needs no survey."""
    thread = found.thread
    if thread is not None and thread.daemon and thread.tui != found.tui:
        presence.learn_thread(
            ctx.store, ctx.procs(), thread, found.pane_id, server_socket(ctx.env), found.tui
        )


# --- by hail's records alone -------------------------------------------------------------------
#
# A send whose recipient's records name a live session, its pane and its tmux server needs no
# tmux call: it wakes (or queues) and reports from the records, and imports no tmux library.


def server_socket(env: Mapping[str, str]) -> str:
    """The socket of the tmux server a hail run here talks to (`Tmux.from_env`'s choice)."""
    from hail.transport.tmux import default_socket

    return env.get("HAIL_SOCKET", "") or env.get("TMUX", "").split(",", 1)[0] or default_socket(env)


def _socket_id(path: str) -> tuple[int, int] | None:
    import stat

    try:
        st = os.stat(path) if path else None
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if st is not None and stat.S_ISSOCK(st.st_mode) else None


class Records:
    """hail's presence records, each read once for a send, and the tmux server the send talks to,
    told by its socket's device and inode."""

    __slots__ = ("home", "plugins", "procs", "server", "store", "threads", "waiters")

    def __init__(self, ctx: Ctx) -> None:
        self.procs = ctx.procs()
        self.store = ctx.store
        self.home = ctx.home
        self.server = _socket_id(server_socket(ctx.env))
        self.waiters = presence.waiters(ctx.store)
        self.threads = presence.threads(ctx.store)  # newest first
        self.plugins = presence.plugins(ctx.store)

    def holds(self, socket: str) -> bool:
        """A record's server is this one (a record of another server, or of none, is not)."""
        return self.server is not None and _socket_id(socket) == self.server

    def sessions(self, mailbox: str) -> list[Native] | None:
        """The live sessions the records name for `mailbox`: waiters of running Claude Code
        processes, opencode processes whose plugin ran hail's hooks, the newest Codex thread of a
        running TUI; None when that thread's TUI is not known (under the daemon, until a send
        found it in a pane) and cannot be found without tmux either (then written in)."""
        found = [
            Native(None, waiter=w, pane_id=w.pane)
            for w in self.waiters
            if mailbox in w.mailboxes and w.client_running(self.procs)
        ]
        found += [
            Native(None, plugin=p, pane_id=p.pane)
            for p in self.plugins
            if p.mailbox == mailbox and p.runs(self.procs)
        ]
        thread = next((t for t in self.threads if t.mailbox == mailbox), None)
        if thread is not None:  # older threads of the mailbox are dropped
            if not thread.tui and not self._find_tui(thread):
                return None
            if thread.runs(self.procs):
                found.append(Native(None, thread=thread, tui=thread.tui, pane_id=thread.pane))
        return found

    def _find_tui(self, thread: Thread) -> bool:
        """Find a thread's TUI under the daemon by the process table, and write it into the
        thread's record as a send that surveyed it would."""
        from hail.transport.codex_queue import tui_by_processes

        found = tui_by_processes(
            self.procs, thread, self.home, self.store.bound_root(thread.mailbox)
        )
        if found is None:
            return False
        tui, pane, socket = found
        presence.learn_thread(self.store, self.procs, thread, pane, socket, tui)
        return bool(thread.tui)  # nothing is learnt when the record went meanwhile

    def pane_elsewhere(self, pane: str, seat: str) -> bool:
        """A live waiter of `pane` (on this server) reads another seat than `seat`."""
        return any(
            w.pane == pane and seat not in w.mailboxes and w.client_running(self.procs)
            for w in self.waiters
            if self.holds(w.server)
        )


def by_records(ctx: Ctx, records: Records, mailbox: str, pane: str = "") -> Native | None:
    """The one session of `mailbox` (in `pane`, for a sub-seat) when hail's records name it, its
    pane and this tmux server, and it is between turns with a wake that works; else None, and the
    send looks at tmux as before."""
    found = records.sessions(mailbox)
    if found is None or len(found) != 1:
        return None  # none, unknown, or a shared seat: tmux tells
    (only,) = found
    record = only.waiter or only.thread or only.plugin
    if record is None or not only.pane_id or not records.holds(record.server):
        return None
    if pane and only.pane_id != pane:
        return None
    if only.plugin is not None:
        return only  # the plugin itself waits for its session to be idle
    if only.waiter is not None and not wakes(ctx, only.waiter):
        return None
    return only if between_turns(ctx, only, mailbox) else None


def find_daemon(ctx: Ctx, pane: Pane, mailbox: str) -> bool:
    """Whether the pane's Codex, on record, runs under Codex's shared daemon (True when unknown)."""
    found = find(ctx, pane, mailbox)
    return found is None or found.thread is None or found.thread.daemon


def between_turns(ctx: Ctx, native: Native, mailbox: str) -> bool:
    """The session's last hook was a Stop that let its turn end, or a SessionStart."""
    return ctx.store.mailbox(native.turn_mailbox(mailbox)).turn_ending()


def wake_waiter(ctx: Ctx, waiter: Waiter, mailbox: str) -> bool:
    """Ask for the wake (the mark survives a lost signal: the waiter looks every second), then
    signal the waiter so it looks now. A fired waiter's wake is already on its way.

    False, with nothing signalled, when the record names a process that is not hail's waiter of
    its Claude Code process (a `hail listen` whose parent chain leads there), checked just before
    the signal: a record that names any other process is never trusted with a signal."""
    procs = ctx.procs()
    live = waiter.listening(procs)
    if live and not procs.is_waiter_of(waiter.pid, waiter.claude):
        return False
    ctx.store.mailbox(mailbox).ask_wake()
    if live:
        # The number alone, from the builtin module: `signal` would cost every send its enums.
        from _signal import SIGUSR1  # type: ignore[import-not-found]

        try:  # noqa: SIM105 (contextlib would cost an import too)
            os.kill(waiter.pid, SIGUSR1)
        except OSError:
            pass  # it just ended: the next waiter sees the mark
    return True


def route_of(ctx: Ctx, pane: Pane, mailbox: str) -> str:
    """How a send to `mailbox` would wake this agent now [docs/transport.md "Routes"]: `wake` (its
    Claude Code waiter listens), `queue` (its Codex thread is known), `hooks` (a turn runs: its
    PostToolUse and Stop hooks carry the mail), `plugin` (opencode wakes itself), else `type` (into
    an idle, empty composer)."""
    from hail.transport.wake import NATIVE_WAKE

    if pane.agent in NATIVE_WAKE:
        return base.PLUGIN
    found = find(ctx, pane, mailbox)
    if found is None:
        return base.TYPE
    if not between_turns(ctx, found, mailbox):
        return base.HOOKS
    return found.route


def route_line(native: Native, mailbox: str) -> str:
    """What the send says once the native wake is done."""
    pane = native.pane_id
    if native.waiter is not None:
        return (
            f"{base.ROUTES[base.WAKE]}: {mailbox}'s session in {pane} takes it in a turn of its"
            " own; nothing typed"
        )
    said = f"{base.ROUTES[base.QUEUE]}: Codex in {pane} takes it as its next prompt; nothing typed"
    if native.thread is not None and not native.thread.daemon:
        return said + " (without its daemon Codex reads its queue every 10 s)"
    return said
