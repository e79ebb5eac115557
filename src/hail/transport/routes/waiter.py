"""The waiter (Claude Code) [docs/transport.md "Routes", docs/hooks.md "The waiter"]: hail's
`hail listen`, Claude Code's asyncRewake hook, sleeps until a send asks it to wake its session.

The route is live when a waiter of the pane's Claude Code process listens for the mailbox (or
fired a moment ago and its wake has not been taken yet: the prompt hook of the turn it starts
takes what is unread). The wake is a mark in the mailbox, then SIGUSR1 to the waiter, which exits
2 and so starts the session's turn; nothing is typed.
"""

from __future__ import annotations

import os
import time

from hail import policy
from hail.store.presence import waiter as records
from hail.transport.routes.base import Route, Session

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.store.presence.waiter import Waiter
    from hail.transport.panes import Pane
    from hail.transport.routes.base import Records, Wake


class WaiterSession(Session):
    """A Claude Code session whose waiter listens for the mailbox."""

    __slots__ = ("waiter",)

    def __init__(self, pane: Pane | None, waiter: Waiter) -> None:
        super().__init__(ROUTE, pane, waiter.pane, waiter.server)
        self.waiter = waiter

    def mailboxes(self) -> list[str]:
        return self.waiter.mailboxes

    def turn_mailbox(self, mailbox: str) -> str:
        """The waiter's first mailbox: its session's hooks keep the marks there."""
        return self.waiter.mailboxes[0]

    def wakes_now(self, ctx: Ctx) -> bool:
        return wakes(ctx, self.waiter)

    def serves_sub_seats(self) -> bool:
        return True  # a waiter reads its pane's sub-seat too

    def take(self, wake: Wake) -> str:
        if wake_waiter(wake.ctx, self.waiter, wake.to.mailbox):
            return ""
        return f"process {self.waiter.pid} is no waiter of {wake.to.mailbox}'s Claude Code"

    def line(self, mailbox: str) -> str:
        return (
            f"{ROUTE.took}: {mailbox}'s session in {self.pane_id} takes it in a turn of its own;"
            " nothing typed"
        )


class WaiterRoute(Route):
    name = "waiter"
    shown = "wake"
    took = "woken"

    def find(self, ctx: Ctx, pane: Pane, mailbox: str) -> Session | None:
        """The waiter of the Claude Code process in this pane that waits for this mailbox."""
        procs = ctx.procs()
        for waiter in records.waiters(ctx.store):
            if mailbox not in waiter.mailboxes or not waiter.client_running(procs):
                continue
            if not procs.descends_from(waiter.claude, pane.pid):
                continue  # another tmux server's pane of the same id, or another process
            if wakes(ctx, waiter):
                return WaiterSession(pane, waiter)
        return None

    def sessions(self, found: Records, mailbox: str | None) -> list[Session] | None:
        """Waiters of running Claude Code processes reading `mailbox`."""
        return [
            WaiterSession(None, w)
            for w in records.waiters(found.store)
            if mailbox in (None, *w.mailboxes) and w.client_running(found.procs)
        ]

    def notes(self, ctx: Ctx, pane: Pane, started: float) -> list[str]:
        """A Claude Code whose hooks run but whose waiter does not listen (`diagnosis`)."""
        from hail import diagnosis
        from hail.transport.routes.status import status

        native = status(ctx, pane, pane.seat or "").native
        agent = diagnosis.Agent(pane.id, pane.seat or "", pane.agent or "", started, native)
        hooked = ctx.store.mailbox(pane.seat or "").hooked_at()
        found = diagnosis.missing_waiter(agent, hooked, ctx.now())
        return [found.line()] if found is not None else []


def wakes(ctx: Ctx, waiter: Waiter) -> bool:
    """The waiter listens, or fired within WAKE_GRACE_SECONDS with no hook run since."""
    if waiter.listening(ctx.procs()):
        return True
    hooked = ctx.store.mailbox(waiter.mailboxes[0]).hooked_at()
    return (
        waiter.state == records.FIRED
        and time.time() - waiter.since < policy.WAKE_GRACE_SECONDS
        and (hooked is None or hooked < waiter.since)
    )


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


ROUTE = WaiterRoute()
