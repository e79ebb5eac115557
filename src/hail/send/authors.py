"""Who sends [docs/seats.md "Sender and from"]: the one value the send pipeline takes for it, each
kind of sender answering the same questions: which signature (`Sender`) the message carries, found
from hail's records alone or from a tmux survey; whether the sender's own state keeps a record of
it (its pending asks); and the id it chose, if another machine chose it.

- `Local`: this directory's seat (or its pane's sub-seat), the sender of every command line.
- `Peer`: a seat of another machine, as `hail remote-peer` files its send: it signs as
  `<seat>@<host>` and brings the id its sender chose.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.seat import Seat
    from hail.transport.panes import Panes
    from hail.transport.resolve import Sender
    from hail.transport.routes.records import Records


class Author:
    """Who sends: what every kind of sender answers."""

    #: The id the sender chose ("": this machine reserves one).
    given_id = ""
    #: The sender's pending record is kept here (its brief lists its asks without answers).
    keeps_pending = True

    def by_records(self, ctx: Ctx, records: Records) -> Sender | None:
        """The signature from hail's records alone, or None when only a survey can tell."""
        return None

    def surveyed(self, ctx: Ctx, panes: Panes | None) -> Sender:
        """The signature from a tmux survey (`panes`, None when no server answers)."""
        raise NotImplementedError

    def split(self, ctx: Ctx, who: Sender, panes: Panes | None) -> str | None:
        """The warning when the signature is not where the sender's hooks deliver."""
        return None

    def copy(self, n: int) -> Author:
        """Who sends copy `n` (from 0) of a broadcast: this sender, whose chosen id (if any) names
        its first copy only."""
        return self


class Local(Author):
    """This directory's seat: the sender of a command line."""

    __slots__ = ("seat",)

    def __init__(self, ctx: Ctx) -> None:
        self.seat: Seat = ctx.require_seat()

    def by_records(self, ctx: Ctx, records: Records) -> Sender | None:
        """This process's pane signs when the records name no other session in its seat, and no
        session of its pane in another seat (`resolve.identity_split`'s case); a seat with another
        session of this pane's server, or one the records cannot place, is None."""
        from hail.transport.resolve import Sender

        seat = self.seat
        reply = ctx.reading_mailboxes(seat)[0]
        if reply != seat.name:
            return Sender(seat, reply, reply, None)
        found = records.sessions(seat.name)
        if found is None:
            return None
        panes = [s.pane_id for s in found]
        if ctx.pane and not ctx.run_by_codex:
            if any(p != ctx.pane for p in panes) or records.pane_elsewhere(ctx.pane, seat.name):
                return None
            return Sender(seat, reply, f"{seat.name}/{ctx.pane}", None)
        if len(panes) > 1 or "" in panes:
            return None
        return Sender(seat, reply, f"{seat.name}/{panes[0]}" if panes else seat.name, None)

    def surveyed(self, ctx: Ctx, panes: Panes | None) -> Sender:
        from hail.transport.resolve import sender

        return sender(ctx, self.seat, panes)

    def split(self, ctx: Ctx, who: Sender, panes: Panes | None) -> str | None:
        from hail.transport.resolve import identity_split

        return identity_split(ctx, who, panes)


class Peer(Author):
    """A seat of another machine, signing as `<seat>@<host>`, with the id its sender chose; its
    pending asks are kept on its own machine."""

    __slots__ = ("given_id", "sender")

    keeps_pending = False

    def __init__(self, address: str, msg_id: str) -> None:
        from hail.seat import Seat
        from hail.transport.resolve import Sender

        self.sender = Sender(Seat(address, "", "another machine"), address, address, None)
        self.given_id = msg_id

    def surveyed(self, ctx: Ctx, panes: Panes | None) -> Sender:
        return self.sender

    def copy(self, n: int) -> Author:
        return self if n == 0 else Peer(self.sender.from_, "")
