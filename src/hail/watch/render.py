"""`hail watch`'s plain forms, from the model's rows: the cells the view and `--once` share, the
frame `--once` prints, and the JSON `--json` prints [docs/watch.md "--once and --json"].
"""

from __future__ import annotations

import time
from dataclasses import replace

from hail import ids
from hail.context import Ctx
from hail.output import age, emit, table
from hail.reserved import PERSON
from hail.seat_rows import (
    COMPACTING,
    NEAR,
    SeatRow,
    context_cell,
    gauge_level,
    row_json,
    task_cell,
)
from hail.text import clip_value
from hail.watch.follow import Watch, check_state
from hail.watch.model import HEADLINE_CHARS, FarSend, Snapshot, WaitRow
from hail.watch.state import HoldState, MessageState

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.gauge.agents import AgentFigures

#: How `--once` and the view clip a trouble line.
TROUBLE_CHARS = 160
#: Open asks and holds shown, newest first, and troubles; the view and `--once` count the rest
#: (`--json` has them all). A state of 1 000 holds would otherwise be a page of its own.
LIST_LINES = 10
TROUBLE_LINES = 20
#: The JSON document's shape; bumped when a field changes meaning or goes away.
JSON_VERSION = 1


# --- cells, shared by --once and the view ------------------------------------------------------


SEAT_COLUMNS = ("SEAT", "AGENTS", "ROUTE", "STATE", "UNREAD", "HOOK", "HOLDS", "CONTEXT", "ON")
MESSAGE_COLUMNS = ("TIME", "FROM → TO", "KIND", "HEADLINE", "RECEIPT", "THREAD")
#: CONTEXT's column, which the view colours by how near its compaction point an agent is.
CONTEXT_COLUMN = SEAT_COLUMNS.index("CONTEXT")
#: How the view and `--once` clip a task line; `--json` has it whole.
TASK_CHARS = 48
#: The gauge's bar: this many cells, filled in proportion to the window in use.
BAR_CELLS = 8


def seat_cells(row: SeatRow, now: float) -> list[str]:
    agents = " ".join(f"{p.id}:{p.agent}" for p in row.agents) or "-"
    state = row.state if row.hooks == "live" else f"{row.state}, no hooks"
    hook = "-" if row.hooked is None else age(now - row.hooked)
    holds = " ".join(row.holds) or "-"
    gauges = ", ".join(gauge_cell(p.figures) for p in row.agents) or "-"
    return [
        row.mailbox,
        agents,
        row.route,
        state,
        str(row.unread),
        hook,
        holds,
        gauges,
        task_cell(row, TASK_CHARS),
    ]


def level(row: SeatRow) -> str:
    """How near its compaction point the row's nearest agent is (`seat_rows.gauge_level`)."""
    levels = {gauge_level(p.figures) for p in row.agents}
    return next((lv for lv in (COMPACTING, NEAR) if lv in levels), "")


def gauge_cell(figures: AgentFigures) -> str:
    """An agent's gauge: a bar of the window in use and `46k 18%` (`seat_rows.context_cell`); the
    figures alone when the share is unknown, `-` when the context is."""
    shown = context_cell(figures)
    percent = figures.gauge.percent() if figures.gauge is not None else None
    if percent is None:
        return shown
    filled = min(BAR_CELLS, round(percent / 100 * BAR_CELLS))
    return "█" * filled + "░" * (BAR_CELLS - filled) + " " + shown


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
            f" ({age(now - m.sent) if m.sent else '?'})"
            for m in snap.asks[: LIST_LINES + 1]
        ],
        len(snap.asks),
    )
    lines.append(f"waits ({len(snap.waits)})")
    for w in snap.waits:
        done = ", answered" if w.answered else ""
        lines.append(
            f"  {w.waiter} waits on {w.to} for {w.ask} ({age(now - w.started)}, "
            f"ends in {age(w.deadline - now)}{done})"
        )
        if w.crossing:
            lines.append(f"  ⚠ crossing: {w.crossing}")
    lines.append(f"holds ({len(snap.holds)})")
    holds = []
    for h in snap.holds[: LIST_LINES + 1]:
        scope = f" [{h.scope}]" if h.scope else ""
        holds.append(
            f"  {h.id} {h.issuer} → {h.to}{scope}: {clip_value(h.headline, HEADLINE_CHARS)} "
            f"(until {ids.iso(h.lapses)}, lapses in {age(h.lapses - now)})"
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
    for far in snap.far_seats:
        seen = age(snap.now - far.seen)
        lines += [
            "",
            f"SEATS ON {far.host} ({len(far.rows)}; as hail seats @{far.host} saw them {seen} ago)",
        ]
        rows = [list(SEAT_COLUMNS)] + [seat_cells(r, snap.now) for r in far.rows]
        lines += ["  " + line for line in table(rows)] if far.rows else ["  (none)"]
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


def far_rows(snap: Snapshot) -> tuple[SeatRow, ...]:
    """Other machines' rows as the view lists them beside this one's: each named as it is
    addressed (`<seat>@<host>`, `<seat>@%N@<host>`), with no pane to bring up here."""
    return tuple(
        replace(r, mailbox=f"{r.mailbox}@{f.host}", jump="") for f in snap.far_seats for r in f.rows
    )


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
        "seats": [row_json(r) for r in snap.seats],
        "messages": [_message_json(m) for m in snap.messages],
        "messages_total": snap.state.total,
        "open_asks": [m.id for m in snap.asks],
        "waits": [_wait_json(w) for w in snap.waits],
        "holds": [_hold_json(h, snap.now) for h in snap.holds],
        "trouble": [
            {"kind": t.kind, "seat": t.seat or None, "text": t.text, "fix": t.fix}
            for t in snap.trouble
        ],
        "far": [
            {
                "id": m.id,
                "from": m.sender,
                "to": m.to,
                "kind": m.kind,
                "headline": m.headline,
                "receipt": m.receipt,
                "replies": list(m.replies),
            }
            for m in snap.far
        ],
        "far_seats": [
            {"host": f.host, "seen": ids.iso(f.seen), "seats": [row_json(r) for r in f.rows]}
            for f in snap.far_seats
        ],
        "person": person_json(snap),
    }


def person_json(snap: Snapshot) -> dict[str, object]:
    """The person's seat as `--json` lists it [docs/watch.md "The person"]: its unread count, the
    open asks to it (each also in `messages` and `open_asks`) and the shown messages to it."""
    row = next((r for r in snap.seats if r.mailbox == PERSON), None)
    return {
        "mailbox": PERSON,
        "unread": row.unread if row is not None else 0,
        "open_asks": [m.id for m in snap.asks if m.to == PERSON],
        "messages": [m.id for m in snap.messages if m.to == PERSON],
    }


def _iso(t: float | None) -> str | None:
    return ids.iso(t) if t else None


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
