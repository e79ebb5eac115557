"""A send by hail's records alone [docs/transport.md "By the records alone"]: when the recipient's
records name its one live session, that session's pane and this tmux server, and it is between
turns with a wake that works, the send wakes it and reports with no tmux call and imports no tmux
library. Otherwise it surveys tmux as before.
"""

from __future__ import annotations

from hail.store.presence.base import socket_id
from hail.transport.resolve import Recipient
from hail.transport.routes import registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from hail.context import Ctx
    from hail.process.base import Processes
    from hail.seat import Addr
    from hail.store.store import Store
    from hail.transport.resolve import Sender
    from hail.transport.routes.base import Session


def server_socket(env: Mapping[str, str]) -> str:
    """The socket of the tmux server a hail run here talks to (`Tmux.from_env`'s choice)."""
    from hail.transport.tmux import default_socket

    return env.get("HAIL_SOCKET", "") or env.get("TMUX", "").split(",", 1)[0] or default_socket(env)


class Records:
    """hail's presence records as one send reads them, and the tmux server the send talks to, told
    by its socket's device and inode."""

    __slots__ = ("home", "procs", "server", "store")

    def __init__(self, ctx: Ctx) -> None:
        self.procs: Processes = ctx.procs()
        self.store: Store = ctx.store
        self.home = ctx.home
        self.server = socket_id(server_socket(ctx.env))

    def holds(self, socket: str) -> bool:
        """A record's server is this one (a record of another server, or of none, is not)."""
        return self.server is not None and socket_id(socket) == self.server

    def sessions(self, mailbox: str) -> list[Session] | None:
        """The running sessions every native route's records name for `mailbox`; None when one
        route cannot tell without tmux."""
        found: list[Session] = []
        for route in registry.native():
            got = route.sessions(self, mailbox)
            if got is None:
                return None
            found += got
        return found

    def pane_elsewhere(self, pane: str, seat: str) -> bool:
        """A running session of `pane` (on this server) reads another seat than `seat`."""
        for route in registry.native():
            for session in route.sessions(self, None) or []:
                here = session.pane_id == pane and self.holds(session.server)
                if here and seat not in session.mailboxes():
                    return True
        return False


def send_by_records(
    ctx: Ctx, addr: Addr, sign: Callable[[Records], Sender | None]
) -> tuple[Sender, Recipient, Session] | None:
    """The signature, the recipient and the native session of a send to a seat or sub-seat, from
    hail's records alone, when they tell what a tmux survey would: who sends (`sign`, from the
    records), and the recipient's one live session, its pane on this tmux server, between turns.
    None otherwise: the send then surveys tmux as before."""
    if not addr.seat or (addr.pane and not addr.sub):
        return None  # a pane target: tmux resolves it
    if not addr.sub and not ctx.store.mailbox(addr.seat).exists():
        return None
    records = Records(ctx)
    who = sign(records)
    if who is None:
        return None
    found = by_records(ctx, records, addr.mailbox, addr.pane if addr.sub else "")
    if found is None:
        return None
    return who, Recipient(addr.mailbox, addr.seat, None), found


def by_records(ctx: Ctx, records: Records, mailbox: str, pane: str = "") -> Session | None:
    """The one session of `mailbox` (in `pane`, for a sub-seat) when hail's records name it, its
    pane and this tmux server, and it is between turns with a wake that works; else None, and the
    send looks at tmux as before."""
    found = records.sessions(mailbox)
    if found is None or len(found) != 1:
        return None  # none, unknown, or a shared seat: tmux tells
    (only,) = found
    if not only.pane_id or not records.holds(only.server):
        return None
    if pane and (only.pane_id != pane or not only.serves_sub_seats()):
        return None
    if only.route.wakes_itself:
        return only  # it waits for its own session to be idle
    if not only.wakes_now(ctx):
        return None
    return only if only.between_turns(ctx, mailbox) else None
