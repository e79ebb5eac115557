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
from hail.store import presence
from hail.transport.wake import NATIVE_WAKE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.store.presence import Thread, Waiter
    from hail.transport.panes import Pane

WOKEN = "woken"
QUEUED = "queued"


class Native:
    """A live native route to one pane's session: its waiter, or its Codex thread and TUI."""

    __slots__ = ("pane", "thread", "tui", "waiter")

    def __init__(
        self,
        pane: Pane,
        waiter: Waiter | None = None,
        thread: Thread | None = None,
        tui: int = 0,
    ) -> None:
        self.pane = pane
        self.waiter = waiter
        self.thread = thread
        self.tui = tui

    def __repr__(self) -> str:
        return f"Native({self.pane.id!r}, {self.waiter!r}, {self.thread!r})"

    @property
    def route(self) -> str:
        return WOKEN if self.waiter is not None else QUEUED

    def turn_mailbox(self, mailbox: str) -> str:
        """The mailbox whose marks this session's hooks keep: a waiter's first, else the target."""
        return self.waiter.mailboxes[0] if self.waiter is not None else mailbox


def claude_waiter(ctx: Ctx, pane: Pane, mailbox: str) -> Waiter | None:
    """The waiter of the Claude Code process in this pane that waits for this mailbox: listening,
    or fired within WAKE_GRACE_SECONDS with no hook run since (its wake is on its way, and the
    prompt hook of the turn it starts takes what is unread)."""
    now = time.time()
    for waiter in presence.waiters(ctx.store):
        procs = ctx.procs()
        if mailbox not in waiter.mailboxes or not waiter.client_running(procs):
            continue
        if not procs.descends_from(waiter.claude, pane.pid):
            continue  # another tmux server's pane of the same id, or another process
        if waiter.listening(procs):
            return waiter
        hooked = ctx.store.mailbox(waiter.mailboxes[0]).hooked_at()
        if (
            waiter.state == presence.FIRED
            and now - waiter.since < policy.WAKE_GRACE_SECONDS
            and (hooked is None or hooked < waiter.since)
        ):
            return waiter
    return None


def find(ctx: Ctx, pane: Pane, mailbox: str) -> Native | None:
    """The pane's live native route for a send to `mailbox`, or None (then typing, as before)."""
    if pane.agent == "claude":
        waiter = claude_waiter(ctx, pane, mailbox)
        return Native(pane, waiter=waiter) if waiter is not None else None
    if pane.agent == "codex":
        from hail.transport.codex_queue import live_thread

        found = live_thread(ctx, pane, mailbox)
        if found is not None:
            return Native(pane, thread=found[0], tui=found[1])
    return None


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
    presence.ask_wake(ctx.store.mailbox(mailbox))
    if live:
        import contextlib
        import signal

        with contextlib.suppress(OSError):  # it just ended: the next waiter sees the mark
            os.kill(waiter.pid, signal.SIGUSR1)
    return True


def route_of(ctx: Ctx, pane: Pane, mailbox: str) -> str:
    """How a send to `mailbox` would wake this agent now [docs/transport.md "Routes"]: `wake` (its
    Claude Code waiter listens), `queue` (its Codex thread is known), `hooks` (a turn runs: its
    PostToolUse and Stop hooks carry the mail), `plugin` (opencode wakes itself), else `type` (into
    an idle, empty composer)."""
    if pane.agent in NATIVE_WAKE:
        return "plugin"
    found = find(ctx, pane, mailbox)
    if found is None:
        return "type"
    if not between_turns(ctx, found, mailbox):
        return "hooks"
    return "wake" if found.waiter is not None else "queue"


def route_line(native: Native, mailbox: str) -> str:
    """What the send says once the native wake is done."""
    pane = native.pane.id
    if native.waiter is not None:
        return f"woken: {mailbox}'s session in {pane} takes it in a turn of its own; nothing typed"
    if native.thread is not None and not native.thread.daemon:
        return (
            f"queued: Codex in {pane} takes it as its next prompt; nothing typed (without its "
            "daemon Codex reads its queue every 10 s)"
        )
    return f"queued: Codex in {pane} takes it as its next prompt; nothing typed"
