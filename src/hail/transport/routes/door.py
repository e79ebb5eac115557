"""The door (Qwen Code) [docs/transport.md "Routes", "Qwen Code's door"]: the message goes in
through Qwen's own cross-session socket, which starts a turn in an idle session with nothing
typed, and queues it for the next turn of a busy one.

A turn a socket message starts runs no UserPromptSubmit hook, so the message must carry what the
agent is to read: the send claims the unread bodies (within the budget a prompt hook has) and
sends them framed, as the prompt hook would have printed them. The claim is the receipt
(`hail sent`), made before the socket is written and given back unless Qwen says `delivered`: a
message Qwen holds for review, refuses, drops or never answers for goes back to the hooks, and the
send never says it woke anyone.

The route is live when a hook of the pane's Qwen Code process recorded its socket
(`store/presence/door.py`) and that process runs.
"""

from __future__ import annotations

import os

from hail import policy
from hail.store.presence import door as records
from hail.transport.routes.base import NotWoken, Route, Session

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.store.maildir import Claims
    from hail.store.presence.door import Door
    from hail.transport.panes import Pane
    from hail.transport.routes.base import Records, Wake

#: Qwen's receipt that the message joined the session's input queue: the one that wakes.
DELIVERED = "delivered"
#: What each other receipt means, as the send says it.
NOT_TAKEN = {
    "held": "Qwen Code holds it for a person to review in /peers",
    "refused": "Qwen Code's settings refuse messages from other processes",
    "denied": "a person refused it in /peers",
    "expired": "Qwen Code let it expire",
    "misaddressed": "that session was replaced (/clear or /resume) since its last hook",
    "dropped": "Qwen Code dropped it (rate limit or a full queue)",
}


class DoorSession(Session):
    """A Qwen Code session whose socket a hook recorded: from a surveyed pane, or the record."""

    __slots__ = ("door",)

    def __init__(self, pane: Pane | None, door: Door) -> None:
        super().__init__(ROUTE, pane, door.pane, door.server)
        self.door = door

    def mailboxes(self) -> list[str]:
        return self.door.mailboxes()

    def turn_mailbox(self, mailbox: str) -> str:
        return self.door.seat

    def wakes_now(self, ctx: Ctx) -> bool:
        return self.door.runs(ctx.procs()) and os.path.exists(self.door.socket)

    def serves_sub_seats(self) -> bool:
        return bool(self.door.pane)  # its hooks read the pane's sub-seat too

    def take(self, wake: Wake) -> str:
        """Claim the unread bodies, send them framed through the socket, and keep the claims only
        once Qwen says `delivered`; "" then, else why not (the send types instead). NotWoken when
        the frames were written but no receipt came: Qwen may have them queued."""
        from hail.store.maildir import Claims, claim_within_budget

        box = wake.ctx.store.mailbox(wake.to.mailbox)
        claims = Claims(policy.DELIVER_MAX_BYTES, policy.DELIVER_MAX_MESSAGES)
        claim_within_budget(box, "injected", claims)
        if not claims.taken:
            return ""  # a hook of the session took it meanwhile
        try:
            failure = self._send(claims)
        except BaseException:
            claims.give_back_all()
            raise
        if failure:
            claims.give_back_all()
            return failure
        for name in self.door.mailboxes():
            wake.ctx.store.mailbox(name).clear_stopping()  # a turn runs now: the screen decides
        return ""

    def _send(self, claims: Claims) -> str:
        from hail.hooks.deliver import render
        from hail.transport import qwen_socket

        door = self.door
        try:
            receipt = qwen_socket.send(
                door.socket, door.token, door.session, render(claims), policy.DOOR_RECEIPT_TIMEOUT
            )
        except OSError as e:
            return f"Qwen Code's socket {door.socket} did not take it ({e.strerror or e})"
        return judged(receipt.status, receipt.reason)

    def line(self, mailbox: str) -> str:
        return (
            f"{ROUTE.took}: Qwen Code in {self.pane_id} takes it in a turn of its own;"
            " nothing typed"
        )


def judged(status: str, reason: str = "") -> str:
    """A receipt's status as the send takes it: "" for `delivered`; why not for any other; and
    NotWoken for none at all (the frames were written whole: Qwen may have them queued)."""
    if status == DELIVERED:
        return ""
    if not status:
        raise NotWoken(
            "woken",
            f"no receipt from Qwen Code within {policy.DOOR_RECEIPT_TIMEOUT:.0f} s, so it was given"
            " back to its hooks; it may arrive twice",
        )
    said = NOT_TAKEN.get(status, f"Qwen Code answered {status!r}")
    return f"{said}: {reason}" if reason and status not in NOT_TAKEN else said


class DoorRoute(Route):
    name = "door"
    shown = "door"
    took = "woken"

    def find(self, ctx: Ctx, pane: Pane, mailbox: str) -> Session | None:
        """The recorded session of this mailbox whose process runs under this pane."""
        procs = ctx.procs()
        for door in records.doors(ctx.store, mailbox):
            if not door.runs(procs) or not procs.descends_from(door.pid, pane.pid):
                continue  # ended, or another tmux server's pane of the same id
            session = DoorSession(pane, door)
            if session.wakes_now(ctx):
                return session
        return None

    def sessions(self, found: Records, mailbox: str | None) -> list[Session] | None:
        """Qwen Code sessions whose hooks recorded their socket for `mailbox`, still running."""
        return [
            DoorSession(None, d) for d in records.doors(found.store, mailbox) if d.runs(found.procs)
        ]

    def notes(self, ctx: Ctx, pane: Pane, started: float) -> list[str]:
        """A Qwen Code whose hooks ran since it started but recorded no socket (one that ran none
        is silent instead: `diagnosis`, its own line): sends type into it."""
        hooked = ctx.store.mailbox(pane.seat or "").hooked_at()
        if hooked is None or hooked < started:
            return []
        if self.find(ctx, pane, pane.seat or "") is not None:
            return []
        return [
            f"{pane.agent} in {pane.id} (seat {pane.seat}): no hook of hail's recorded its"
            " cross-session socket, so sends type into it; run hail setup, then restart it"
        ]


ROUTE = DoorRoute()
