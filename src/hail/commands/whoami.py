"""`hail whoami`: this directory's seat, where it comes from, and the state root [docs/commands.md
"whoami"]. Filesystem only, apart from the pane verbs, so that an agent's look at its own seat
costs little more than an interpreter start. `--json` is the form made for a program (opencode's
plugin): one object, whatever the paths hold."""

from __future__ import annotations

from hail.context import Ctx
from hail.output import emit


def whoami(ctx: Ctx, *, as_json: bool = False) -> int:
    seat = ctx.seat_here()
    ctx.bind(seat)  # a HAIL_SEAT seat creates nothing
    mailboxes = ctx.reading_mailboxes(seat)
    if as_json:
        import json

        sub = ctx.sub_seat(seat)
        record = {
            "seat": seat.name,
            "mailbox": mailboxes[0],
            "mailboxes": [sub, seat.name] if sub else [seat.name],
            "from": seat.root,
            "source": seat.source,
            "state": ctx.store.root,
            "seats": ctx.store.seats,
        }
        emit(json.dumps(record, sort_keys=True))
        return 0
    emit(f"seat: {seat.name}")
    if len(mailboxes) > 1:
        emit(f"mailbox: {mailboxes[0]} (shared directory; this pane's sub-seat)")
    emit(f"from: {seat.root} ({seat.source})")
    emit(f"state: {ctx.store.root}")
    return 0
