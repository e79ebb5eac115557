"""`hail whoami`: this directory's seat, where it comes from, and the state root [docs/commands.md
"whoami"]. Filesystem only, apart from the pane verbs, so that an agent's look at its own seat
costs little more than an interpreter start."""

from __future__ import annotations

from hail.context import Ctx
from hail.output import emit


def whoami(ctx: Ctx) -> int:
    seat = ctx.seat_here()
    ctx.bind(seat)  # a HAIL_SEAT seat creates nothing
    emit(f"seat: {seat.name}")
    mailboxes = ctx.reading_mailboxes(seat)
    if len(mailboxes) > 1:
        emit(f"mailbox: {mailboxes[0]} (shared directory; this pane's sub-seat)")
    emit(f"from: {seat.root} ({seat.source})")
    emit(f"state: {ctx.store.root}")
    return 0
