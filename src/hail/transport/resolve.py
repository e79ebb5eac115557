"""From a target to a pane, and who sends [docs/seats.md "Shared directories and sub-seats",
docs/seats.md "Sender and from", docs/seats.md "Routing a target"]: reaching tmux, the recipient
mailbox and the pane to wake for a send, the pane a `read`/`type`/`keys` target names, the mailbox
the sender signs as, and the identity-split warning. Both the send and the pane verbs resolve their
targets here, so the two agree on every address form and say the same errors.

`panes` is None when no tmux server answers: routing then relies on the state directory alone.
"""

from __future__ import annotations

from hail import policy
from hail.context import Ctx
from hail.errors import SeatError, StateError
from hail.reserved import PERSON
from hail.seat import Addr, Seat, find_seat, is_plain_name, parse_target
from hail.transport.tmux import SocketError, Tmux, TmuxError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.transport.panes import Pane, Panes


class Recipient:
    """Where a send goes: the recipient mailbox, its seat, and the pane to wake (or why there is
    none)."""

    __slots__ = ("found", "mailbox", "person", "reason", "seat", "wake")

    def __init__(
        self,
        mailbox: str,
        seat: str,
        wake: Pane | None,
        reason: str = "",
        found: Seat | None = None,
        *,
        person: bool = False,
    ) -> None:
        self.mailbox = mailbox
        self.seat = seat
        self.wake = wake
        self.reason = reason
        #: The seat a pane target was found in, for the send to bind (`route` binds nothing).
        self.found = found
        #: The person's seat: told on their terminals, never typed into [docs/seats.md "The person"].
        self.person = person

    def __repr__(self) -> str:
        return f"Recipient({self.mailbox!r}, {self.seat!r}, {self.wake!r}, {self.reason!r})"


class Sender:
    """Who signs a send: the `reply:` header (the mailbox replies and receipts go to), the `from:`
    header (that mailbox, or the seat and its pane), and the known pane."""

    __slots__ = ("from_", "pane", "reply", "seat")

    def __init__(self, seat: Seat, reply: str, from_: str, pane: Pane | None) -> None:
        self.seat = seat
        self.reply = reply
        self.from_ = from_
        self.pane = pane

    def __repr__(self) -> str:
        return f"Sender({self.reply!r}, {self.from_!r}, {self.pane!r})"


# --- reaching tmux --------------------------------------------------------------------------------


def reach(ctx: Ctx) -> tuple[Tmux, Panes]:
    """The tmux server and its panes; TmuxError (SocketError for a bad HAIL_SOCKET) when none answers."""
    tmux = Tmux.from_env(ctx.env)
    from hail.transport.panes import survey  # only with a socket to talk to: it costs imports

    return tmux, survey(tmux, ctx.env, ctx.home)


def reach_or_none(ctx: Ctx) -> tuple[Tmux | None, Panes | None]:
    """`reach`, or (None, None): to a send or a listing, no tmux only means less to say."""
    try:
        return reach(ctx)
    except TmuxError:
        return None, None


def _no_tmux(arg: str) -> StateError:
    return StateError(f"{arg}: no tmux server answers; hail doctor says why tmux is unreachable")


def _resolve(tmux: Tmux, arg: str, target: str) -> str:
    """The `%N` id of any tmux pane target."""
    try:
        return tmux.resolve(target)
    except TmuxError:
        raise StateError(f"no pane {arg}; hail seats lists seats and their panes") from None


def _wrong_seat(arg: str, pane_id: str, actual: str | None, seat: str) -> SeatError:
    return SeatError(
        f"{arg}: pane {pane_id} is in seat {actual or '(none)'}, not {seat}; hail seats lists seats"
    )


def may_hold_subseat(pane: Pane) -> bool:
    """Codex runs every command from one shared daemon, so its panes cannot be told apart."""
    return pane.agent is not None and not pane.is_codex


def shared_refusal(seat: str, agents: list[Pane]) -> SeatError:
    subs = " ".join(f"{seat}@{p.id}" for p in agents if may_hold_subseat(p))
    text = f"seat {seat} has {len(agents)} agents; address one: {subs}"
    if any(p.is_codex for p in agents):
        text += "; a Codex pane there cannot be addressed apart: give it its own jj workspace"
    return SeatError(text)


def known_seats(ctx: Ctx, panes: Panes | None) -> set[str]:
    """Mailbox directories (seats and sub-seats) plus the seats of live panes."""
    names = set(ctx.store.mailbox_names())
    if panes is not None:
        names |= panes.seat_names()
    return names


def _is_known(ctx: Ctx, panes: Panes | None, seat: str) -> bool:
    if ctx.store.mailbox(seat).exists():
        return True
    return panes is not None and seat in panes.seat_names()


def _suggest(ctx: Ctx, panes: Panes | None, arg: str) -> str:
    prefix = arg[: policy.SUGGEST_PREFIX]
    names = sorted(
        n for n in known_seats(ctx, panes) if "@" not in n and n.startswith(prefix) and n != arg
    )
    return f"; did you mean: {' '.join(names[: policy.SUGGEST_MAX])}" if names else ""


def _seat_route(seat: str, panes: Panes | None) -> Recipient:
    if panes is None:
        return Recipient(seat, seat, None, "no tmux server")
    agents = panes.agents_in(seat)
    if len(agents) > 1:
        raise shared_refusal(seat, agents)
    if not agents:
        return Recipient(seat, seat, None, f"no agent runs in seat {seat}")
    return Recipient(seat, seat, agents[0])


def _live_pane(arg: str, addr: Addr, panes: Panes) -> Pane:
    pane = panes.get(addr.pane)
    if pane is None:
        raise SeatError(f"{arg}: pane {addr.pane} is gone; hail seats lists live seats")
    return pane


def _subseat_pane(arg: str, addr: Addr, panes: Panes) -> Pane:
    """`seat@%N`: a live pane running a non-Codex agent in that seat."""
    pane = _live_pane(arg, addr, panes)
    if not may_hold_subseat(pane) or pane.seat != addr.seat:
        raise SeatError(
            f"{arg}: {addr.pane} is not a Claude pane in seat {addr.seat}; hail seats lists seats"
        )
    return pane


def _subseat_route(ctx: Ctx, arg: str, addr: Addr, panes: Panes | None) -> Recipient:
    if panes is None:
        raise _no_tmux(arg)
    return Recipient(addr.mailbox, addr.seat, _subseat_pane(arg, addr, panes))


def _pane_route(
    ctx: Ctx, arg: str, target: str, tmux: Tmux | None, panes: Panes | None
) -> Recipient:
    """A tmux pane target: the pane's seat, its sub-seat when shared, else its single agent."""
    if panes is None or tmux is None:
        raise _no_tmux(arg)
    pane_id = _resolve(tmux, arg, target)
    pane = panes.get(pane_id)
    path = pane.path if pane is not None else ""
    seat = find_seat(path, ctx.home) if path else None
    if seat is None:
        raise SeatError(
            f"pane {pane_id} is not in a seat: {path or '?'} is not in a jj workspace or git repo"
        )
    agents = panes.agents_in(seat.name)
    if len(agents) > 1:
        if pane is not None and pane in agents and may_hold_subseat(pane):
            return Recipient(f"{seat.name}@{pane.id}", seat.name, pane, found=seat)
        raise shared_refusal(seat.name, agents)
    if not agents:
        return Recipient(seat.name, seat.name, None, f"no agent runs in seat {seat.name}", seat)
    return Recipient(seat.name, seat.name, agents[0], found=seat)


def route(ctx: Ctx, arg: str, addr: Addr, tmux: Tmux | None, panes: Panes | None) -> Recipient:
    """Resolve a parsed target to a mailbox and a wake pane, with the one `Tmux` the send reached;
    exit 1 or 3 on errors [docs/seats.md "Routing a target"]. Nothing is written: a pane target's
    seat is on the route (`found`) for the send to bind."""
    if addr.seat == PERSON and not addr.pane:
        return Recipient(PERSON, PERSON, None, "the person's seat", person=True)
    if addr.sub:
        return _subseat_route(ctx, arg, addr, panes)
    if addr.pane:  # seat/%N
        found = _pane_route(ctx, arg, addr.pane, tmux, panes)
        if found.seat != addr.seat:
            raise _wrong_seat(arg, addr.pane, found.seat, addr.seat)
        return found
    if addr.pane_target:
        if is_plain_name(arg) and _is_known(ctx, panes, arg):
            return _seat_route(arg, panes)
        return _pane_route(ctx, arg, addr.pane_target, tmux, panes)
    if _is_known(ctx, panes, addr.seat):
        return _seat_route(addr.seat, panes)
    raise StateError(f"unknown seat '{arg}'{_suggest(ctx, panes, arg)} (hail seats lists them)")


# --- the pane a read, type or keys target names ----------------------------------------------------


def pane_for(ctx: Ctx, arg: str) -> tuple[Tmux, str]:
    """The tmux server and the `%N` pane a `read`/`type`/`keys` target names: any pane, agent or
    not [docs/commands.md "read, type, keys"]."""
    addr = parse_target(arg)
    try:
        tmux, panes = reach(ctx)
    except SocketError:
        raise  # a bad HAIL_SOCKET names its own fix [docs/transport.md "Socket"]
    except TmuxError:
        raise _no_tmux(arg) from None
    if addr.pane_target:
        return tmux, _resolve(tmux, arg, addr.pane_target)
    if addr.sub:
        return tmux, _subseat_pane(arg, addr, panes).id
    if addr.pane:
        pane = _live_pane(arg, addr, panes)
        if pane.seat != addr.seat:
            raise _wrong_seat(arg, pane.id, pane.seat, addr.seat)
        return tmux, pane.id
    return tmux, _only_pane(addr.seat, panes).id


def _only_pane(seat: str, panes: Panes) -> Pane:
    """A seat's single agent pane, else its single pane."""
    agents = panes.agents_in(seat)
    if len(agents) > 1:
        raise shared_refusal(seat, agents)
    here = agents or panes.in_seat(seat)
    if len(here) == 1:
        return here[0]
    if len(here) > 1:
        ids = " ".join(p.id for p in here)
        raise SeatError(f"seat {seat} has several panes ({ids}) and no single agent; name one")
    raise StateError(f"no pane works in seat {seat}; hail seats lists seats and their panes")


# --- who sends -------------------------------------------------------------------------------------


def sender(ctx: Ctx, seat: Seat, panes: Panes | None) -> Sender:
    """The sender's `reply:` mailbox and `from:` value [docs/seats.md
    "Shared directories and sub-seats", docs/seats.md "Sender and from", docs/envelope-and-frames.md
    "Envelope"]."""
    agents = panes.agents_in(seat.name) if panes is not None else []
    me = panes.get(ctx.pane) if panes is not None and ctx.pane else None
    if (
        len(agents) > 1
        and me is not None
        and me in agents
        and may_hold_subseat(me)
        and not ctx.run_by_codex
    ):
        sub_seat = f"{seat.name}@{me.id}"
        return Sender(seat, sub_seat, sub_seat, me)
    reply = ctx.reading_mailboxes(seat)[0]
    if reply != seat.name:
        return Sender(seat, reply, reply, me)
    pane: Pane | None = None
    if len(agents) == 1:
        pane = agents[0]
    elif not agents and me is not None and me.seat == seat.name:
        pane = me
    from_ = f"{seat.name}/{pane.id}" if pane is not None else seat.name
    return Sender(seat, reply, from_, pane)


def identity_split(ctx: Ctx, who: Sender, panes: Panes | None) -> str | None:
    """The warning when this process's pane works in another seat than its directory [docs/seats.md
    "Sender and from"]."""
    if panes is None or ctx.run_by_codex or not ctx.pane:
        return None
    me = panes.get(ctx.pane)
    if me is None or me.agent is None or me.is_codex or me.seat in (None, who.seat.name):
        return None
    where = me.seat
    if len(panes.agents_in(me.seat)) > 1:
        where = f"{me.seat}@{me.id}"
    return (
        f"this sends as {who.reply} (from this directory), but your pane {me.id} works in "
        f"{me.path}, seat {where}, where your hooks deliver: replies to {who.reply} will not "
        f"reach you. Run hail from {me.path}, or start the session in {who.seat.root}"
    )
