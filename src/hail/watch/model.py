"""`hail watch`: every seat, message, conversation, hold and trouble at a glance [docs/watch.md].

The model behind the screen, and its two plain forms: `--once` (one frame as text) and `--json`
(the same state as JSON). `build` is pure: the state (`watch/state.py`) and the panes
(`watch/panes.py`) in, rows and trouble out, so every rule here is tested without files.
`Watch` looks again only when the sweep says something changed, or when the panes are due. The
full-screen view (`watch/app.py`) draws the same rows; nothing here imports it.

Read-only: watch never claims, types, edits or removes anything; only a jump (the view's Enter)
changes which pane tmux shows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from hail import ids, policy
from hail.context import Ctx
from hail.output import emit, table
from hail.store.conversation import seat_of_mailbox
from hail.text import clip_value
from hail.watch.panes import PaneState, Surveyor, TmuxState
from hail.watch.state import HoldState, MessageState, Reader, StateView, WaitState

#: How `--once` and the view clip a headline, and a trouble line.
HEADLINE_CHARS = 60
TROUBLE_CHARS = 160
#: Open asks and holds shown, newest first, and troubles; the view and `--once` count the rest
#: (`--json` has them all). A state of 1 000 holds would otherwise be a page of its own.
LIST_LINES = 10
TROUBLE_LINES = 20
#: The JSON document's shape; bumped when a field changes meaning or goes away.
JSON_VERSION = 1


# --- the model -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatRow:
    """One row per mailbox and per seat some pane works in, as `hail seats` lists them."""

    mailbox: str
    seat: str
    agents: tuple[PaneState, ...]
    panes: tuple[str, ...]  # every pane working in the seat
    jump: str  # the pane Enter brings up: the row's agent, else its only pane; "" for none
    route: str  # how a send reaches it: typed; "-" none; "?" tmux unreachable
    state: str  # its agents' screens: idle busy draft dialog other ?; "-" no agent
    hooks: str  # live, stale (none for 7 days) or never
    unread: int
    hooked: float | None
    holds: tuple[str, ...]  # ids of the holds in effect on it
    root: str | None
    root_gone: bool


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
class Trouble:
    """Something that keeps mail from being read, with the command that fixes it."""

    kind: str  # trust, unread, late, hook-errors, hooks
    seat: str  # the mailbox it concerns; "" for the whole state
    text: str
    fix: str


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


def build(state: StateView, tmux: TmuxState | None, now: float, only: str = "") -> Snapshot:
    """Every row the watch shows, from one state and one look at the panes; pure."""
    reachable = tmux is not None and not tmux.error
    panes = tmux.panes if tmux is not None and reachable else ()
    seats = _seat_rows(state, panes, reachable, now)
    asks = tuple(m for m in state.messages if m.kind == "ask" and not m.replies)
    waits = _wait_rows(state, asks)
    trouble = _trouble(state, seats, panes, reachable, now)
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
    boxes = {b.name: b for b in state.mailboxes}
    by_seat: dict[str, list[PaneState]] = {}
    for p in panes:
        if p.seat is not None:
            by_seat.setdefault(p.seat, []).append(p)
    holds: dict[str, list[HoldState]] = {}
    for h in state.holds:
        holds.setdefault(seat_of_mailbox(h.to), []).append(h)
    rows = []
    for name in sorted(set(boxes) | set(by_seat)):
        seat, _, pane = name.partition("@")
        in_seat = tuple(by_seat.get(seat, ()))
        if pane:
            agents = tuple(p for p in in_seat if p.id == pane and p.agent is not None)
        else:
            agents = tuple(p for p in in_seat if p.agent is not None)
        box = boxes.get(name)
        hooked = box.hooked if box is not None else None
        if not reachable:
            route, shown = "?", "?"
        else:
            route = _ROUTE_WORDS.get(agents[0].route, "typed") if len(agents) == 1 else "-"
            shown = " ".join(p.state for p in agents) or "-"
        jump = agents[0].id if agents else pane or (in_seat[0].id if len(in_seat) == 1 else "")
        rows.append(
            SeatRow(
                mailbox=name,
                seat=seat,
                agents=agents,
                panes=tuple(p.id for p in in_seat),
                jump=jump if reachable else "",
                route=route,
                state=shown,
                hooks=_hooks(hooked, now),
                unread=len(box.unread) if box is not None else 0,
                hooked=hooked,
                holds=tuple(h.id for h in holds.get(seat, ()) if _holds_on(h, name, seat, pane)),
                root=box.root if box is not None else None,
                root_gone=box is not None and box.root is not None and not box.root_exists,
            )
        )
    return tuple(rows)


def _hooks(hooked: float | None, now: float) -> str:
    if hooked is None:
        return "never"
    return "live" if now - hooked <= policy.HOOKED_FRESH_SECONDS else "stale"


def _holds_on(hold: HoldState, name: str, seat: str, pane: str) -> bool:
    """A hold on a seat covers its sub-seats; a seat's row shows its sub-seats' holds too."""
    if hold.to == name or (pane and hold.to == seat):
        return True
    return not pane and seat_of_mailbox(hold.to) == seat


# --- conversations ---------------------------------------------------------------------------


def _wait_rows(state: StateView, asks: tuple[MessageState, ...]) -> tuple[WaitRow, ...]:
    """Each ask a live wait waits for, with a crossing flagged: two waits that wait on each other
    (directly or through other seats), or a wait on a seat whose own ask to the waiter has no
    reply (that seat may be waiting, or may wait, for an answer the waiter cannot give now)."""
    blocked = _blocked(state)
    rows = []
    for wait in state.waits:
        for ask, to in zip(wait.asks, wait.targets, strict=True):
            answered = bool(state.replies.get(ask))
            crossing = "" if answered else _crossing(wait, to, blocked, asks)
            rows.append(
                WaitRow(wait.waiter, ask, to, wait.started, wait.deadline, answered, crossing)
            )
    return tuple(rows)


def _blocked(state: StateView) -> dict[str, set[str]]:
    """Seat to the seats its live waits are blocked on (asks without a reply yet)."""
    edges: dict[str, set[str]] = {}
    for wait in state.waits:
        open_ = [
            t for a, t in zip(wait.asks, wait.targets, strict=True) if not state.replies.get(a)
        ]
        if not open_ or (wait.any_ and len(open_) < len(wait.asks)):
            continue  # a wait with --any ends at its first reply
        edges.setdefault(_seat_of(wait.waiter), set()).update(_seat_of(t) for t in open_)
    return edges


def _crossing(
    wait: WaitState, to: str, blocked: dict[str, set[str]], asks: tuple[MessageState, ...]
) -> str:
    me, them = _seat_of(wait.waiter), _seat_of(to)
    path = _path(them, me, blocked)
    if path:
        return f"{' waits on '.join(path)} waits on {me}: these waits block each other"
    owed = next((m for m in asks if _seat_of(m.reply) == them and _seat_of(m.to) == me), None)
    if owed is None:
        return ""
    return (
        f"{them}'s ask {owed.id} to {me} has no reply while {me} waits on {them}; "
        f"answer it first: hail {them} fyi --re {owed.id} '<answer>'"
    )


def _path(start: str, goal: str, edges: dict[str, set[str]]) -> list[str]:
    """Seats from `start` along blocked waits to one blocked on `goal`; [] when none leads there."""
    seen = {start}
    frontier = [[start]]
    while frontier:
        path = frontier.pop(0)
        for nxt in sorted(edges.get(path[-1], ())):
            if nxt == goal:
                return path
            if nxt not in seen:
                seen.add(nxt)
                frontier.append([*path, nxt])
    return []


# --- trouble ---------------------------------------------------------------------------------


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
            found = _unseen(row, box.unread[0], reachable)
            if found is not None:
                out.append(found)
    out += _late_sends(state, now)
    if state.hook_errors is not None:
        e = state.hook_errors
        out.append(
            Trouble(
                "hook-errors",
                "",
                f"hook-errors.log has {e.count} errors since {e.since}; the last: {e.last}",
                "hail doctor",
            )
        )
    out += _silent_agents(state, panes, now)
    out += _missing_waiters(state, panes, now)
    return tuple(out)


def _unseen(row: SeatRow, oldest: str, reachable: bool) -> Trouble | None:
    """Unread mail that no hook, agent or pane will pick up, and what makes it read."""
    where = row.root or "its directory"
    reasons = []
    if row.root_gone:
        reasons.append(f"its workspace {row.root} is gone")
    if row.hooks != "live":
        reasons.append("no hook has read it lately" if row.hooks == "stale" else "no hook ever ran")
    if reachable and not row.agents:
        gone = row.mailbox != row.seat and row.mailbox.partition("@")[2] not in row.panes
        reasons.append("its pane is gone" if gone else "no agent sits there")
    if not reasons:
        return None
    if row.root_gone or (reachable and not row.agents):
        fix = f"start its agent in {where}, or read it there: cd {where} && hail inbox"
    else:
        fix = f"hail setup, then start a new session in {row.jump or where} (hail doctor says more)"
    text = f"{row.mailbox} has {row.unread} unread (oldest {oldest}) and {' and '.join(reasons)}"
    return Trouble("unread", row.mailbox, text, fix)


def _late_sends(state: StateView, now: float) -> list[Trouble]:
    out = []
    for box in state.mailboxes:
        for p in box.pending:
            age = now - p.epoch
            if age < policy.LATE_SEND_SECONDS or age > policy.PENDING_LAPSE_SECONDS:
                continue
            out.append(
                Trouble(
                    "late",
                    p.to,
                    f"{p.sender} → {p.to}: {p.kind} {p.id} has no receipt after {_age(age)} "
                    f"({clip_value(p.headline, HEADLINE_CHARS)})",
                    f"hail read {p.to} 10 shows why; do not resend: it waits in the inbox",
                )
            )
    return out


def _silent_agents(state: StateView, panes: tuple[PaneState, ...], now: float) -> list[Trouble]:
    """Agent panes whose seat had no hook since the agent started (as `hail doctor` says)."""
    hooked = {b.name: b.hooked for b in state.mailboxes}
    out = []
    for p in panes:
        if p.agent not in ("claude", "codex") or p.seat is None or p.started is None:
            continue
        if now - p.started < policy.DOCTOR_AGENT_GRACE_SECONDS:
            continue
        last = hooked.get(p.seat)
        if last is not None and last >= p.started:
            continue
        text = f"{p.agent} in {p.id} (seat {p.seat}) started {_age(now - p.started)} ago and no hail hook ran there since"
        if p.agent == "codex":
            fix = "hail setup --trust-codex (Codex runs new hooks once trusted, the first at its first prompt)"
        else:
            fix = f"hail setup, then restart the agent in {p.id} (hail doctor says why hooks do not run)"
        out.append(Trouble("hooks", p.seat, text, fix))
    return out


def _missing_waiters(state: StateView, panes: tuple[PaneState, ...], now: float) -> list[Trouble]:
    """Claude Code agents whose hooks run but whose waiter does not listen (as `hail doctor`
    notes): a send can only type into them, and not at all while a person drafts."""
    hooked = {b.name: b.hooked for b in state.mailboxes}
    out = []
    for p in panes:
        if p.agent != "claude" or p.seat is None or p.started is None or p.route != "type":
            continue
        last = hooked.get(p.seat)
        if now - p.started < policy.DOCTOR_AGENT_GRACE_SECONDS or last is None or last < p.started:
            continue  # too young to judge, or no hook at all (`_silent_agents` says so)
        text = f"claude in {p.id} (seat {p.seat}) has no live waiter: a send can only type into it"
        fix = f"hail setup (it installs the waiter), then restart the agent in {p.id}"
        out.append(Trouble("waiter", p.seat, text, fix))
    return out


# --- cells, shared by --once and the view ------------------------------------------------------


SEAT_COLUMNS = ("SEAT", "AGENTS", "ROUTE", "STATE", "UNREAD", "HOOK", "HOLDS")
MESSAGE_COLUMNS = ("TIME", "FROM → TO", "KIND", "HEADLINE", "RECEIPT", "THREAD")


def seat_cells(row: SeatRow, now: float) -> list[str]:
    agents = " ".join(f"{p.id}:{p.agent}" for p in row.agents) or "-"
    state = row.state if row.hooks == "live" else f"{row.state}, no hooks"
    hook = "-" if row.hooked is None else _age(now - row.hooked)
    holds = " ".join(row.holds) or "-"
    return [row.mailbox, agents, row.route, state, str(row.unread), hook, holds]


def message_cells(m: MessageState, headline_chars: int = HEADLINE_CHARS) -> list[str]:
    when = time.strftime("%H:%M:%S", time.gmtime(m.sent)) if m.sent else "?"
    return [
        when,
        f"{m.sender or '?'} → {m.to}",
        m.kind,
        clip_value(m.headline, headline_chars),
        receipt_cell(m),
        thread_cell(m),
    ]


def receipt_cell(m: MessageState) -> str:
    if m.received is None:
        return m.status
    if m.sent is None:
        return m.status
    return f"{m.status} +{max(0, round(m.received - m.sent))}s"


def thread_cell(m: MessageState) -> str:
    parts = []
    if m.re:
        parts.append(f"re {m.re}")
    if m.replies:
        more = f" +{len(m.replies) - 1}" if len(m.replies) > 1 else ""
        parts.append(f"replied {m.replies[-1]}{more}")
    return ", ".join(parts)


def talk_lines(snap: Snapshot) -> list[str]:
    """Open asks, who waits on whom (a crossing flagged), holds with their lapse time; the newest
    LIST_LINES of the asks and holds (every wait, since each may be crossed)."""
    now = snap.now
    lines = [f"open asks ({len(snap.asks)})"]
    lines += _capped(
        [
            f"  {m.id} {m.reply or m.sender} → {m.to}: {clip_value(m.headline, HEADLINE_CHARS)}"
            f" ({_age(now - m.sent) if m.sent else '?'})"
            for m in snap.asks[: LIST_LINES + 1]
        ],
        len(snap.asks),
    )
    lines.append(f"waits ({len(snap.waits)})")
    for w in snap.waits:
        done = ", answered" if w.answered else ""
        lines.append(
            f"  {w.waiter} waits on {w.to} for {w.ask} ({_age(now - w.started)}, "
            f"ends in {_age(w.deadline - now)}{done})"
        )
        if w.crossing:
            lines.append(f"  ⚠ crossing: {w.crossing}")
    lines.append(f"holds ({len(snap.holds)})")
    holds = []
    for h in snap.holds[: LIST_LINES + 1]:
        scope = f" [{h.scope}]" if h.scope else ""
        holds.append(
            f"  {h.id} {h.issuer} → {h.to}{scope}: {clip_value(h.headline, HEADLINE_CHARS)} "
            f"(until {ids.iso(h.lapses)}, lapses in {_age(h.lapses - now)})"
        )
    lines += _capped(holds, len(snap.holds))
    if snap.far:
        lines.append(f"to other machines ({len(snap.far)}; receipts as hail sent last heard)")
        lines += far_lines(snap.far)
    return lines


def trouble_lines(snap: Snapshot) -> list[str]:
    """Each trouble and its fix; the first TROUBLE_LINES of them."""
    if not snap.trouble:
        return ["(none)"]
    lines = []
    for t in snap.trouble[:TROUBLE_LINES]:
        lines.append(clip_value(t.text, TROUBLE_CHARS))
        lines.append(f"  fix: {t.fix}")
    hidden = len(snap.trouble) - TROUBLE_LINES
    if hidden > 0:
        lines.append(f"… {hidden} more (hail watch --json lists them all)")
    return lines


def _capped(lines: list[str], total: int) -> list[str]:
    """At most LIST_LINES of a list's lines, then how many more there are."""
    if total <= LIST_LINES:
        return lines
    return [
        *lines[:LIST_LINES],
        f"  … {total - LIST_LINES} more (hail watch --json lists them all)",
    ]


def _age(seconds: float) -> str:
    """`<s>s` under a minute, `<m>m` under an hour, `<h>h<m>m` under a day, else `<d>d`."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d"


def title(snap: Snapshot) -> str:
    tmux = snap.tmux
    if tmux is None:
        where = "tmux: not looked at"
    elif tmux.error:
        where = f"no tmux: {tmux.error}"
    else:
        agents = sum(1 for p in tmux.panes if p.agent)
        where = f"tmux ({tmux.source}): {len(tmux.panes)} panes, {agents} agents"
    only = f" — only {snap.only}" if snap.only else ""
    # The time the state was read, not the clock: a title that ticks would redraw every second.
    return f"hail watch — {snap.state.root} — read {ids.iso(snap.state.taken)} — {where}{only}"


def frame(snap: Snapshot) -> list[str]:
    """The whole view as plain text lines: what `--once` prints."""
    lines = [title(snap), ""]
    lines.append(f"SEATS ({len(snap.seats)})")
    if snap.seats:
        rows = [list(SEAT_COLUMNS)] + [seat_cells(r, snap.now) for r in snap.seats]
        lines += ["  " + line for line in table(rows)]
    else:
        lines.append("  (none)")
    shown = len(snap.messages)
    lines += ["", f"MESSAGES ({shown} of {snap.state.total}, newest first, times UTC)"]
    if snap.messages:
        rows = [list(MESSAGE_COLUMNS)] + [message_cells(m) for m in snap.messages]
        lines += ["  " + line for line in table(rows)]
    else:
        lines.append("  (none)")
    lines += ["", "CONVERSATIONS AND HOLDS"]
    lines += ["  " + line for line in talk_lines(snap)]
    lines += ["", f"TROUBLE ({len(snap.trouble)})"]
    lines += ["  " + line for line in trouble_lines(snap)]
    return lines


def far_sent(root: str) -> tuple[FarSend, ...]:
    """Messages sent from here to other machines [docs/watch.md "Other machines"]: from the copies
    kept here, with the far machine's last receipt and the replies that reached this machine."""
    from hail.store import remote
    from hail.store.conversation import replies_of
    from hail.store.store import Store

    out = []
    for msg_id in remote.sent_ids(root)[:LIST_LINES]:
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


def far_lines(far: tuple[FarSend, ...]) -> list[str]:
    return [
        f"  {m.id} {m.sender} → {m.to} {m.kind}: {clip_value(m.headline, HEADLINE_CHARS)}"
        f" — {m.receipt}" + (f", replied {' '.join(m.replies)}" if m.replies else "")
        for m in far
    ]


def to_json(snap: Snapshot) -> dict[str, object]:
    """The same state as JSON: times as ISO strings, ages and spans in whole seconds."""
    tmux = None
    if snap.tmux is not None:
        tmux = {"source": snap.tmux.source or None, "error": snap.tmux.error or None}
    return {
        "version": JSON_VERSION,
        "state": snap.state.root,
        "time": ids.iso(snap.now),
        "only": snap.only or None,
        "tmux": tmux,
        "seats": [_seat_json(r) for r in snap.seats],
        "messages": [_message_json(m) for m in snap.messages],
        "messages_total": snap.state.total,
        "open_asks": [m.id for m in snap.asks],
        "waits": [_wait_json(w) for w in snap.waits],
        "holds": [_hold_json(h, snap.now) for h in snap.holds],
        "trouble": [
            {"kind": t.kind, "seat": t.seat or None, "text": t.text, "fix": t.fix}
            for t in snap.trouble
        ],
    }


def _iso(t: float | None) -> str | None:
    return ids.iso(t) if t else None


def _seat_json(r: SeatRow) -> dict[str, object]:
    return {
        "mailbox": r.mailbox,
        "seat": r.seat,
        "agents": [{"pane": p.id, "agent": p.agent, "state": p.state} for p in r.agents],
        "panes": list(r.panes),
        "jump": r.jump or None,
        "route": r.route,
        "state": r.state,
        "hooks": r.hooks,
        "unread": r.unread,
        "last_hook": _iso(r.hooked),
        "holds": list(r.holds),
        "root": r.root,
        "root_gone": r.root_gone,
    }


def _wait_json(w: WaitRow) -> dict[str, object]:
    return {
        "waiter": w.waiter,
        "ask": w.ask,
        "to": w.to,
        "started": _iso(w.started),
        "deadline": _iso(w.deadline),
        "answered": w.answered,
        "crossing": w.crossing or None,
    }


def _hold_json(h: HoldState, now: float) -> dict[str, object]:
    return {
        "id": h.id,
        "issuer": h.issuer,
        "to": h.to,
        "scope": h.scope or None,
        "headline": h.headline,
        "since": _iso(h.since),
        "until": ids.iso(h.lapses),
        "lapses_in": max(0, int(h.lapses - now)),
    }


def _message_json(m: MessageState) -> dict[str, object]:
    took = None
    if m.received is not None and m.sent is not None:
        took = max(0, round(m.received - m.sent))
    return {
        "id": m.id,
        "time": ids.iso(m.sent) if m.sent else None,
        "from": m.sender,
        "reply": m.reply,
        "to": m.to,
        "kind": m.kind,
        "headline": m.headline,
        "scope": m.scope or None,
        "re": m.re or None,
        "replies": list(m.replies),
        "receipt": {
            "status": m.status,
            "time": ids.iso(m.received) if m.received is not None else None,
            "seconds": took,
        },
    }


# --- following the state -----------------------------------------------------------------------


#: A route as the send reports it (`woken:`, `queued:`, `typed:`), from `native.route_of`'s word.
_ROUTE_WORDS = {"wake": "woken", "queue": "queued", "hooks": "hooks", "plugin": "plugin"}


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
        snap = replace(build(self.state, self.tmux, now), far=far_sent(self.state.root))
        return filtered(snap, only) if only else snap


def check_state(ctx: Ctx) -> None:
    """A state another user could write is refused, as every verb refuses it [docs/files.md
    "State root"]; a missing one is watched until it appears."""
    ctx.store.check_trusted([])


def once(ctx: Ctx, only: str | None, *, as_json: bool) -> int:
    """`--once` and `--json`: one look, printed."""
    import json

    check_state(ctx)
    now = ctx.now()
    snap = Watch(ctx).snapshot(now, only or "")
    if as_json:
        emit(json.dumps(to_json(snap), indent=2, ensure_ascii=False))
    else:
        for line in frame(snap):
            emit(line.rstrip())
    return 0
