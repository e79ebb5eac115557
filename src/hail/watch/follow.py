"""`hail watch` following the state: the state and the panes looked at again only when the sweep
says something changed or the panes are due, and what this machine knows of sends to others.
"""

from __future__ import annotations

import time
from dataclasses import replace

from hail import policy
from hail.context import Ctx
from hail.watch.model import FAR_LINES, FarSeats, FarSend, Snapshot, build, filtered
from hail.watch.panes import Surveyor, TmuxState
from hail.watch.state import Reader, StateView


class Watch:
    """The state and the panes, looked at again only when something changed or the panes are due."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.reader = Reader(ctx.store)
        self.surveyor = Surveyor(ctx.env, ctx.home, ctx)
        self.state: StateView | None = None
        self.tmux: TmuxState | None = None
        self._panes_at = 0.0
        #: Seconds until the next sweep: more for a state whose sweep takes long.
        self.interval = policy.WATCH_POLL_SECONDS

    def tick(self, now: float) -> bool:
        """Sweep, read what changed, look at the panes when due; whether anything is new."""
        began = time.monotonic()
        changed = self.reader.changed(now) or self.state is None
        swept = time.monotonic() - began
        self.interval = max(policy.WATCH_POLL_SECONDS, swept / policy.WATCH_SWEEP_SHARE)
        if changed:
            self.state = self.reader.read(now)
        if self.tmux is None or now - self._panes_at >= policy.WATCH_PANES_SECONDS:
            tmux = self.surveyor.look()
            self._panes_at = now
            changed = changed or tmux != self.tmux
            self.tmux = tmux
        return changed

    def snapshot(self, now: float, only: str = "") -> Snapshot:
        if self.state is None:
            self.tick(now)
        assert self.state is not None
        root = self.state.root
        snap = replace(
            build(self.state, self.tmux, now), far=far_sent(root), far_seats=far_seats(root, now)
        )
        return filtered(snap, only) if only else snap


def check_state(ctx: Ctx) -> None:
    """A state another user could write is refused, as every verb refuses it [docs/files.md
    "State root"]; a missing one is watched until it appears."""
    ctx.store.check_trusted([])


def far_sent(root: str) -> tuple[FarSend, ...]:
    """Messages sent from here to other machines [docs/watch.md "Other machines"]: from the copies
    kept here, with the far machine's last receipt and the replies that reached this machine."""
    from hail.store import remote
    from hail.store.conversation import replies_of
    from hail.store.store import Store

    out = []
    for msg_id in remote.sent_ids(root)[:FAR_LINES]:
        msg = remote.sent(root, msg_id)
        if msg is not None:
            replies = tuple(r for r, _ in replies_of(Store(root), msg_id))
            receipt = remote.last_receipt(root, msg_id) or "sent"
            out.append(
                FarSend(
                    msg_id,
                    msg.get("reply"),
                    msg.get("to"),
                    msg.kind,
                    msg.headline,
                    receipt,
                    replies,
                )
            )
    return tuple(out)


def far_seats(root: str, now: float) -> tuple[FarSeats, ...]:
    """Other machines' seats as `hail seats @<host>` last got them [docs/watch.md "Other
    machines"]: watch itself never runs ssh. Rows kept in a shape hail no longer reads are left
    out."""
    from hail.seat_rows import NotARow, rows_from_text
    from hail.store import remote

    out = []
    for host, seen, text in remote.far_seats(root):
        try:
            rows, _ = rows_from_text(text, now)
        except NotARow:
            continue
        out.append(FarSeats(host, seen, rows))
    return tuple(out)
