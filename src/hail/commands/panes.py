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
from hail.output import age, emit, table
from hail.seat import parse_mailbox
from hail.store import fs
from hail.transport import wake
from hail.transport.panes import DEFAULT_AGENTS
from hail.transport.resolve import pane_for, reach_or_none

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.transport.panes import Pane, Panes
    from hail.transport.tmux import Tmux

# --- seats ----------------------------------------------------------------------------------------


def seats(ctx: Ctx, seat: str | None) -> int:
    """Every mailbox and every seat a pane sits in: agents and their state, unread count, hook
    age, root."""
    tmux, panes = reach_or_none(ctx)
    names = set(ctx.store.mailbox_names())
    if panes is not None:
        names |= panes.seat_names()
    if seat is not None:
        names = {n for n in names if _seat_part(n) == seat}
        if not names:
            raise StateError(f"no seat {seat}; hail seats lists them")
    states = AgentStates(tmux)
    rows = [["SEAT", "AGENTS", "STATE", "ROUTE", "UNREAD", "HOOK", "ROOT"]]
    rows += [_seat_row(ctx, name, panes, states) for name in sorted(names)]
    for line in table(rows):
        emit(line)
    return 0


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


def _seat_row(ctx: Ctx, name: str, panes: Panes | None, states: AgentStates) -> list[str]:
    box = ctx.store.mailbox(name)
    agents = _agents_of(name, panes)
    return [
        name,
        _agents_cell(name, panes),
        " ".join(states.of(p) for p in agents) or "-",
        " ".join(_route_cell(ctx, p, name) for p in agents) or "-",
        str(box.unread_count()),
        _hook_age(ctx.now(), box.hooked_at()),
        _root_cell(ctx, name),
    ]


def _route_cell(ctx: Ctx, pane: Pane, mailbox: str) -> str:
    """How a send would wake the agent now, as its route shows it: `queue-10s` for a Codex
    without its daemon, which reads its queue every 10 s (a send types into its empty composer
    instead, and queues over a draft)."""
    from hail.transport.routes.status import status

    return status(ctx, pane, mailbox).shown


def _agents_cell(name: str, panes: Panes | None) -> str:
    if panes is None:
        return "?"
    pane_id = (parse_mailbox(name) or (name, ""))[1]
    if pane_id:
        pane = panes.get(pane_id)
        if pane is None:
            return "(pane gone)"
        if pane.agent is None:
            return pane.id
    return " ".join(p.label for p in _agents_of(name, panes)) or "-"


def _agents_of(name: str, panes: Panes | None) -> list[Pane]:
    """The agent panes the row's AGENTS cell lists, in its order."""
    if panes is None:
        return []
    seat, pane_id = parse_mailbox(name) or (name, "")
    if pane_id:
        pane = panes.get(pane_id)
        return [pane] if pane is not None and pane.agent is not None else []
    return panes.agents_in(seat)


def _hook_age(now: float, then: float | None) -> str:
    return "-" if then is None else age(now - then)


def _root_cell(ctx: Ctx, name: str) -> str:
    root = ctx.store.bound_root(name)
    if root is None:
        return ""
    shown = root
    if ctx.home is not None:
        home = str(ctx.home).rstrip("/")
        if home and (root == home or root.startswith(home + "/")):
            shown = "~" + root[len(home) :]
    return shown if os.path.isdir(root) else f"{shown} (gone)"


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
