"""`hail watch`: every seat, message, conversation, hold and trouble at a glance [docs/watch.md].

The model behind the screen, and its two plain forms: `--once` (one frame as text) and `--json`
(the same state as JSON). `build` is pure: the state (`watch/state.py`) and the panes
(`watch/panes.py`) in, rows and trouble out, so every rule here is tested without files.
`Watch` looks again only when the sweep says something changed, or when the panes are due. The
full-screen view (`watch/app.py`) draws the same rows; nothing here imports it.

Read-only: looking never claims, types, edits or removes anything; only a jump (the view's Enter)
changes which pane tmux shows. The person's actions are the view's (`watch/actions.py`,
`watch/dialogs.py`), each on a key of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hail import diagnosis, policy, seat_rows
from hail.diagnosis import Trouble
from hail.output import age
from hail.seat_rows import Box, PaneRow, SeatRow
from hail.store.conversation import seat_of_mailbox
from hail.store.waits import blocking_path
from hail.text import clip_value
from hail.transport.screen import DIALOG
from hail.watch.panes import TYPED, PaneState, TmuxState
from hail.watch.state import HoldState, MessageState, StateView, WaitState

#: How `--once` and the view clip a headline, and a trouble line.
#: How `--once` and the view clip a headline.
HEADLINE_CHARS = 60
#: Sends to other machines the watch shows, newest first.
FAR_LINES = 10

# --- the model -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WaitRow:
    """One ask a live wait waits for; `crossing` says why the wait may never end ("" if not)."""

    waiter: str
    ask: str
    to: str
    started: float
    deadline: float
    answered: bool
    crossing: str


@dataclass(frozen=True, slots=True)
class FarSend:
    """A message sent from here to a seat on another machine, as this machine knows it."""

    id: str
    sender: str
    to: str  # <mailbox>@<host>
    kind: str
    headline: str
    receipt: str  # what `hail sent` last heard from that machine; "sent" when never asked
    replies: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FarSeats:
    """Another machine's seat rows, as `hail seats @<host>` last got them, and when."""

    host: str
    seen: float
    rows: tuple[SeatRow, ...]


@dataclass(frozen=True, slots=True)
class Snapshot:
    state: StateView
    tmux: TmuxState | None
    now: float
    only: str  # the seat the view is filtered to; "" for all
    seats: tuple[SeatRow, ...]
    messages: tuple[MessageState, ...]
    asks: tuple[MessageState, ...]  # open asks: no reply yet, newest first
    waits: tuple[WaitRow, ...]
    holds: tuple[HoldState, ...]
    trouble: tuple[Trouble, ...]
    far: tuple[FarSend, ...] = ()  # sent to other machines, newest first
    far_seats: tuple[FarSeats, ...] = ()  # other machines' seats, as last seen, by host


def build(state: StateView, tmux: TmuxState | None, now: float, only: str = "") -> Snapshot:
    """Every row the watch shows, from one state and one look at the panes; pure."""
    reachable = tmux is not None and not tmux.error
    panes = tmux.panes if tmux is not None and reachable else ()
    seats = _seat_rows(state, panes, reachable, now)
    asks = tuple(m for m in state.messages if m.kind == "ask" and not m.replies)
    waits = _wait_rows(state, asks)
    trouble = _trouble(state, seats, panes, reachable, now)
    trouble += _gauge_trouble(panes, tmux.config_refused if tmux is not None else "")
    snap = Snapshot(state, tmux, now, "", seats, state.messages, asks, waits, state.holds, trouble)
    return filtered(snap, only) if only else snap


def filtered(snap: Snapshot, seat: str) -> Snapshot:
    """Only what involves `seat` (a seat name: its sub-seats count as it)."""

    def mine(*mailboxes: str) -> bool:
        return any(_seat_of(m) == seat for m in mailboxes)

    return replace(
        snap,
        only=seat,
        seats=tuple(r for r in snap.seats if r.seat == seat),
        messages=tuple(m for m in snap.messages if mine(m.to, m.reply, m.sender)),
        asks=tuple(m for m in snap.asks if mine(m.to, m.reply, m.sender)),
        waits=tuple(w for w in snap.waits if mine(w.waiter, w.to)),
        holds=tuple(h for h in snap.holds if mine(h.issuer, h.to)),
        trouble=tuple(t for t in snap.trouble if not t.seat or mine(t.seat)),
        far=tuple(m for m in snap.far if mine(m.sender)),
    )


def _seat_of(address: str) -> str:
    """The seat of a mailbox (`seat@%N`) or of a `from:` value (`seat/%N`)."""
    return seat_of_mailbox(address.split("/", 1)[0])


def _seat_rows(
    state: StateView, panes: tuple[PaneState, ...], reachable: bool, now: float
) -> tuple[SeatRow, ...]:
    """The rows `hail seats` shows (`seat_rows.build`), from this look's state and panes."""
    boxes = [
        Box(b.name, len(b.unread), b.hooked, b.root, b.root is not None and not b.root_exists)
        for b in state.mailboxes
    ]
    looked = [
        PaneRow(p.id, p.seat, p.agent, p.state, p.route or TYPED, p.started, p.figures)
        for p in panes
    ]
    holds = [(h.id, h.to) for h in state.holds]
    return seat_rows.build(boxes, looked if reachable else None, now, holds=holds)


# --- conversations ---------------------------------------------------------------------------


def _wait_rows(state: StateView, asks: tuple[MessageState, ...]) -> tuple[WaitRow, ...]:
    """Each ask a live wait waits for, with a crossing flagged: two waits that wait on each other
    (directly or through other seats: the wait graph that refuses a crossing wait, by seat), or a
    wait on a seat whose own ask to the waiter has no reply (that seat may be waiting, or may
    wait, for an answer the waiter cannot give now)."""
    rows = []
    for wait in state.waits:
        others = [w for w in state.waits if w is not wait]
        for ask, to in zip(wait.asks, wait.targets, strict=True):
            answered = bool(state.replies.get(ask))
            crossing = "" if answered else _crossing(state, wait, ask, to, others, asks)
            rows.append(
                WaitRow(wait.waiter, ask, to, wait.started, wait.deadline, answered, crossing)
            )
    return tuple(rows)


def _crossing(
    state: StateView,
    wait: WaitState,
    ask: str,
    to: str,
    others: list[WaitState],
    asks: tuple[MessageState, ...],
) -> str:
    me, them = _seat_of(wait.waiter), _seat_of(to)
    one_ask = replace(wait, asks=(ask,), targets=(to,), any_=False)
    path = blocking_path(others, one_ask, lambda _, a: bool(state.replies.get(a)), node=_seat_of)
    if path:
        seats = [_seat_of(w.waiter) for w, _ in path]
        return f"{' waits on '.join(seats)} waits on {me}: these waits block each other"
    owed = next((m for m in asks if _seat_of(m.reply) == them and _seat_of(m.to) == me), None)
    if owed is None:
        return ""
    return (
        f"{them}'s ask {owed.id} to {me} has no reply while {me} waits on {them}; "
        f"answer it first: hail {them} fyi --re {owed.id} '<answer>'"
    )


# --- trouble: the rules are diagnosis's, shared with `hail doctor` -----------------------------


def _trouble(
    state: StateView,
    seats: tuple[SeatRow, ...],
    panes: tuple[PaneState, ...],
    reachable: bool,
    now: float,
) -> tuple[Trouble, ...]:
    rows = {r.mailbox: r for r in seats}
    out = [
        Trouble(
            "trust",
            box.name,
            f"{box.distrust}: hail reads and writes no mail there",
            f"chown -R $(id -u) {state.root} && chmod -R go-w {state.root}",
        )
        for box in state.mailboxes
        if box.distrust
    ]
    for box in state.mailboxes:
        row = rows.get(box.name)
        if box.unread and row is not None:
            found = diagnosis.unseen(_unread(row, box.unread[0], reachable), now)
            if found is not None:
                out.append(found)
    out += _late_sends(state, now)
    if state.hook_errors is not None:
        out.append(diagnosis.hook_errors_trouble(state.hook_errors, state.hook_log))
    hooked = {b.name: b.hooked for b in state.mailboxes}
    agents = [(agent_of(p), hooked.get(p.seat)) for p in panes if p.agent and p.seat]
    out += [t for a, h in agents if (t := diagnosis.silent(a, h, now)) is not None]
    out += [t for a, h in agents if (t := diagnosis.missing_waiter(a, h, now)) is not None]
    out += [
        diagnosis.waits_on_dialog(p.id, p.seat or "", p.agent)
        for p in panes
        if p.agent and p.state == DIALOG
    ]
    return tuple(out)


def _gauge_trouble(panes: tuple[PaneState, ...], refused: str) -> tuple[Trouble, ...]:
    """Agents about to compact [docs/gauge.md "Compaction"], and a config.toml that is refused."""
    from hail.config import FIX
    from hail.gauge.agents import compaction

    out = [diagnosis.config_refused(refused, FIX)] if refused else []
    for p in panes:
        found = compaction(p.id, p.seat or "", p.agent, p.figures) if p.agent else None
        trouble = diagnosis.about_to_compact(found) if found is not None else None
        if trouble is not None:
            out.append(trouble)
    return tuple(out)


def agent_of(pane: PaneState) -> diagnosis.Agent:
    """An agent pane as the diagnosis reads it, with whether a native route reaches it (one whose
    route watch does not know is not called unreachable)."""
    native = pane.native is not False
    return diagnosis.Agent(pane.id, pane.seat or "", pane.agent or "", pane.started, native)


def _unread(row: SeatRow, oldest: str, reachable: bool) -> diagnosis.Unread:
    sub_pane = row.mailbox.partition("@")[2]
    return diagnosis.Unread(
        mailbox=row.mailbox,
        seat=row.seat,
        unread=row.unread,
        oldest=oldest,
        hooked=row.hooked,
        root=row.root,
        root_gone=row.root_gone,
        looked=reachable,
        agents=len(row.agents),
        pane_gone=bool(sub_pane) and sub_pane not in row.panes,
        pane=row.jump,
    )


def _late_sends(state: StateView, now: float) -> list[Trouble]:
    out = []
    for box in state.mailboxes:
        for p in box.pending:
            span = now - p.epoch
            if span < policy.LATE_SEND_SECONDS or span > policy.PENDING_LAPSE_SECONDS:
                continue
            out.append(
                Trouble(
                    "late",
                    p.to,
                    f"{p.sender} → {p.to}: {p.kind} {p.id} has no receipt after {age(span)} "
                    f"({clip_value(p.headline, HEADLINE_CHARS)})",
                    f"hail read {p.to} 10 shows why; do not resend: it waits in the inbox",
                )
            )
    return out
