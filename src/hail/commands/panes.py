"""`seats`, and the pane verbs `read`, `type`, `keys` [docs/commands.md "seats",
docs/commands.md "read, type, keys"].

`read`/`type`/`keys` are for panes that are not agents (a shell, a gate run, a prompt waiting for
`y`): typing blind into a pane is how text lands in the wrong place, so `type` and `keys` need a
fresh read of that pane first (the read mark), and the mark is used up by one `type` or `keys`.
"""

from __future__ import annotations

import contextlib
import os
import unicodedata

from hail import policy
from hail.context import Ctx
from hail.errors import StateError, UsageError
from hail.output import emit, note, table
from hail.seat import parse_mailbox
from hail.seat_rows import (
    SEATS_COLUMNS,
    Box,
    PaneRow,
    SeatRow,
    build,
    row_json,
    seats_cells,
)
from hail.store import fs, records
from hail.transport import wake
from hail.transport.panes import DEFAULT_AGENTS
from hail.transport.resolve import pane_for, reach_or_none

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.config import Followed
    from hail.transport.panes import Pane, Panes
    from hail.transport.tmux import Tmux

# --- seats ----------------------------------------------------------------------------------------


def seats(ctx: Ctx, seat: str | None, *, as_json: bool = False) -> int:
    """Every mailbox and every seat a pane sits in: agents and their state, route, unread count,
    hook age, root, and each agent's context gauge and task line; `as_json`, the same as JSON."""
    now = ctx.now()
    rows = seat_rows(ctx, seat, now, holds=as_json)  # the table shows no holds: none read for it
    return show_rows(rows, now, ctx.home, as_json=as_json)


def show_rows(
    rows: tuple[SeatRow, ...], now: float, home: str | None, *, as_json: bool, host: str = ""
) -> int:
    """Print the rows as `hail seats` does (`host`: another machine's, as it answered)."""
    if as_json:
        import json

        document = seats_json(rows, now) | ({"host": host} if host else {})
        emit(json.dumps(document, indent=2, ensure_ascii=False))
        return 0
    cells = [list(SEATS_COLUMNS)] + [seats_cells(r, now, home) for r in rows]
    for line in table(cells):
        emit(line)
    return 0


def far_listing(ctx: Ctx, seat: str | None) -> str:
    """What another machine's `seats @<host>` is answered with: the rows as JSON (`remote-peer`)."""
    from hail.seat_rows import rows_text

    return rows_text(seat_rows(ctx, seat, ctx.now()))


#: The `--json` document's shape; bumped when a field changes meaning or goes away.
SEATS_JSON_VERSION = 1


def seats_json(rows: tuple[SeatRow, ...], now: float) -> dict[str, object]:
    """`hail seats --json` [docs/commands.md "seats"]: the rows as `hail watch --json` gives them."""
    from hail import ids

    return {
        "version": SEATS_JSON_VERSION,
        "time": ids.iso(now),
        "seats": [row_json(r) for r in rows],
    }


def seat_rows(ctx: Ctx, seat: str | None, now: float, *, holds: bool = True) -> tuple[SeatRow, ...]:
    """The rows `hail seats` shows (of `seat` alone, when given): the mailboxes and the panes
    looked at once, each agent's gauge read from its client's file (`gauge/agents.py`), the
    person's config loaded once, and with `holds` the holds in effect on each. What another
    machine's `seats @<host>` is answered with."""
    from hail.config import Followed

    tmux, panes = reach_or_none(ctx)
    names = set(ctx.store.mailbox_names())
    if panes is not None:
        names |= panes.seat_names()
    if seat is not None:
        names = {n for n in names if _seat_part(n) == seat}
        if not names:
            raise StateError(f"no seat {seat}; hail seats lists them")
    config = Followed(ctx.env)
    if config.look() is None:
        note(f"{config.refused}; until then no context is shown")
    looks = None if panes is None else _pane_rows(ctx, tmux, panes, config)
    held = records.read_holds(ctx.store.holds) if holds else []
    in_effect = [(h.id, h.to) for h in held if h.lapses_at() > now]
    by_id = {p.id: p for p in panes.panes} if panes is not None else {}

    def route_of(row: PaneRow, mailbox: str) -> str:
        return _route_cell(ctx, by_id[row.id], mailbox)

    boxes = [_box(ctx, name) for name in names]
    return build(boxes, looks, now, holds=in_effect, route_of=route_of, only=seat or "")


def _box(ctx: Ctx, name: str) -> Box:
    box = ctx.store.mailbox(name)
    root = ctx.store.bound_root(name)
    gone = root is not None and not os.path.isdir(root)
    return Box(name, box.unread_count(), box.hooked_at(), root, gone)


def _pane_rows(ctx: Ctx, tmux: Tmux | None, panes: Panes, config: Followed) -> list[PaneRow]:
    """Every pane; each agent's screen, start and figures (its route is asked per row)."""
    from hail.gauge.agents import Agents
    from hail.transport.tmux import default_socket

    socket = (tmux.socket if tmux is not None else None) or default_socket(ctx.env)
    agents = Agents(ctx.store, socket, config.config).of_panes(panes.panes, ctx.procs())
    states = AgentStates(tmux)
    out = []
    for p in panes.panes:
        if p.agent is None:
            out.append(PaneRow(p.id, p.seat, None))
            continue
        started, figures = agents[p.id]
        out.append(PaneRow(p.id, p.seat, p.agent, states.of(p), "", started, figures))
    return out


#: What `seats` shows for a screen class, where it differs.
SHOWN_STATE = {"queued": "busy", "none": "other"}


class AgentStates:
    """Each agent pane's state as a send would judge it (docs/transport.md "Screen classes"):
    `idle`, `busy` (queued text counts as busy), `draft`, `dialog`, `other` (no composer hail
    knows), or `?` for an agent whose screen hail does not know or cannot read."""

    def __init__(self, tmux: Tmux | None) -> None:
        self.tmux = tmux

    def of(self, pane: Pane) -> str:
        if self.tmux is None or pane.agent not in DEFAULT_AGENTS:
            return "?"
        verdict = wake.read_screen(self.tmux, pane.id)
        if verdict is None:
            return "?"
        return SHOWN_STATE.get(verdict.state, verdict.state)


def _seat_part(mailbox: str) -> str:
    parsed = parse_mailbox(mailbox)
    return parsed[0] if parsed is not None else mailbox


def _route_cell(ctx: Ctx, pane: Pane, mailbox: str) -> str:
    """How a send would wake the agent now, as its route shows it: `queue-10s` for a Codex
    without its daemon, which reads its queue every 10 s (a send types into its empty composer
    instead, and queues over a draft)."""
    from hail.transport.routes.status import status

    return status(ctx, pane, mailbox).shown


# --- read / type / keys ---------------------------------------------------------------------------


def read(ctx: Ctx, target: str, n: int) -> int:
    """Print the pane's last `n` lines (history included) and mark the pane as read."""
    if n < 1:
        raise UsageError(f"read takes a positive number of lines, not {n}")
    tmux, pane = pane_for(ctx, target)
    lines = [line.rstrip() for line in tmux.capture(pane, lines=n)]
    while lines and not lines[-1]:
        lines.pop()
    for line in lines[-n:]:
        emit(line)
    _set_mark(ctx, pane)
    return 0


def type_(ctx: Ctx, target: str, text: str) -> int:
    """Type one line of plain text into a pane that was just read; no Enter."""
    if not _is_one_plain_line(text):
        raise UsageError(
            "hail type sends one line of plain text; use hail keys for Enter and other keys"
        )
    tmux, pane = pane_for(ctx, target)
    _require_mark(ctx, pane)
    if not wake.type_text(tmux, pane, text):
        raise StateError(
            f"could not see the text in {pane} after {policy.TYPE_SEEN_TIMEOUT:g} s; it was typed "
            "once. "
            f"hail read {pane} to check"
        )
    _clear_mark(ctx, pane)
    return 0


def keys(ctx: Ctx, target: str, keys: list[str]) -> int:
    """Send key names (`Enter`, `Escape`, `C-c`, `Up`, …) to a pane that was just read."""
    if not keys:
        raise UsageError("keys needs at least one key name: Enter, Escape, C-c, Up, …")
    tmux, pane = pane_for(ctx, target)
    _require_mark(ctx, pane)
    wake.press_keys(tmux, pane, keys)
    _clear_mark(ctx, pane)
    return 0


def _is_one_plain_line(text: str) -> bool:
    if not text:
        return False
    return not any(unicodedata.category(c) == "Cc" or c in "\u2028\u2029" for c in text)


# --- the read mark --------------------------------------------------------------------------------


def _mark(ctx: Ctx, pane: str) -> str:
    return os.path.join(ctx.store.read_marks, pane.replace("%", "_"))


def _set_mark(ctx: Ctx, pane: str) -> None:
    ctx.store.ensure()
    fs.make_dirs(ctx.store.read_marks)
    fs.touch(_mark(ctx, pane))


def _require_mark(ctx: Ctx, pane: str) -> None:
    if not os.path.exists(_mark(ctx, pane)):
        raise StateError(f"read the pane before typing into it: hail read {pane}")


def _clear_mark(ctx: Ctx, pane: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(_mark(ctx, pane))
