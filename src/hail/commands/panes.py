"""`whoami`, `seats`, and the pane verbs `read`, `type`, `keys` [docs/commands.md "whoami",
docs/commands.md "seats", docs/commands.md "read, type, keys"].

`read`/`type`/`keys` are for panes that are not agents (a shell, a gate run, a prompt waiting for
`y`): typing blind into a pane is how text lands in the wrong place, so `type` and `keys` need a
fresh read of that pane first (the read mark), and the mark is used up by one `type` or `keys`.
"""

from __future__ import annotations

import contextlib
import os
import unicodedata

from hail.context import Ctx
from hail.errors import SeatError, StateError, UsageError
from hail.output import emit, table
from hail.seat import Addr, parse_mailbox, parse_target
from hail.store import fs
from hail.transport import wake
from hail.transport.panes import Pane, Panes, survey
from hail.transport.tmux import SocketError, Tmux, TmuxError

# --- whoami ---------------------------------------------------------------------------------------


def whoami(ctx: Ctx) -> int:
    """The seat of this directory, where it comes from, and the state root. Filesystem only."""
    seat = ctx.require_seat()  # binds a directory seat; a HAIL_SEAT seat creates nothing
    emit(f"seat: {seat.name}")
    mailboxes = ctx.reading_mailboxes(seat)
    if len(mailboxes) > 1:
        emit(f"mailbox: {mailboxes[0]} (shared directory; this pane's sub-seat)")
    emit(f"from: {seat.root} ({seat.source})")
    emit(f"state: {ctx.store.root}")
    return 0


# --- seats ----------------------------------------------------------------------------------------


def seats(ctx: Ctx, seat: str | None) -> int:
    """Every mailbox and every seat a pane sits in: agents, unread count, hook age, root."""
    panes = _survey_or_none(ctx)
    names = set(ctx.store.mailbox_names())
    if panes is not None:
        names |= panes.seat_names()
    if seat is not None:
        names = {n for n in names if _seat_part(n) == seat}
        if not names:
            raise StateError(f"no seat {seat}; hail seats lists them")
    rows = [["SEAT", "AGENTS", "UNREAD", "HOOK", "ROOT"]]
    rows += [_seat_row(ctx, name, panes) for name in sorted(names)]
    for line in table(rows):
        emit(line)
    return 0


def _survey_or_none(ctx: Ctx) -> Panes | None:
    try:
        return survey(Tmux.from_env(ctx.env), ctx.env, ctx.home)
    except TmuxError:
        return None


def _seat_part(mailbox: str) -> str:
    parsed = parse_mailbox(mailbox)
    return parsed[0] if parsed is not None else mailbox


def _seat_row(ctx: Ctx, name: str, panes: Panes | None) -> list[str]:
    box = ctx.store.mailbox(name)
    return [
        name,
        _agents_cell(name, panes),
        str(box.unread_count()),
        _age(ctx.now(), box.hooked_at()),
        _root_cell(ctx, name),
    ]


def _agents_cell(name: str, panes: Panes | None) -> str:
    if panes is None:
        return "?"
    seat, pane_id = parse_mailbox(name) or (name, "")
    if pane_id:
        pane = panes.get(pane_id)
        if pane is None:
            return "(pane gone)"
        return pane.label if pane.agent is not None else pane.id
    return " ".join(p.label for p in panes.agents_in(seat)) or "-"


def _age(now: float, then: float | None) -> str:
    """`<s>s` under a minute, `<m>m` under an hour, `<h>h` under a day, else `<d>d`; `-` if never."""
    if then is None:
        return "-"
    seconds = max(0, int(now - then))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


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
    tmux, pane = _target_pane(ctx, target)
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
    tmux, pane = _target_pane(ctx, target)
    _require_mark(ctx, pane)
    if not wake.type_text(tmux, pane, text):
        raise StateError(
            f"could not see the text in {pane} after 10 s; it was typed once. "
            f"hail read {pane} to check"
        )
    _clear_mark(ctx, pane)
    return 0


def keys(ctx: Ctx, target: str, keys: list[str]) -> int:
    """Send key names (`Enter`, `Escape`, `C-c`, `Up`, …) to a pane that was just read."""
    if not keys:
        raise UsageError("keys needs at least one key name: Enter, Escape, C-c, Up, …")
    tmux, pane = _target_pane(ctx, target)
    _require_mark(ctx, pane)
    wake.press_keys(tmux, pane, keys)
    _clear_mark(ctx, pane)
    return 0


def _is_one_plain_line(text: str) -> bool:
    if not text:
        return False
    return not any(unicodedata.category(c) == "Cc" or c in "\u2028\u2029" for c in text)


# --- the pane a target names -----------------------------------------------------------------------


def _unreachable(arg: str) -> StateError:
    return StateError(f"{arg}: no tmux server answers; hail doctor says why tmux is unreachable")


def _target_pane(ctx: Ctx, arg: str) -> tuple[Tmux, str]:
    """The tmux server and the `%N` pane a read/type/keys target names [docs/commands.md
    "read, type, keys"]."""
    addr = parse_target(arg)
    try:
        tmux = Tmux.from_env(ctx.env)
        panes = survey(tmux, ctx.env, ctx.home)
    except SocketError:
        raise  # a bad HAIL_SOCKET names its own fix [docs/transport.md "Socket"]
    except TmuxError:
        raise _unreachable(arg) from None
    if addr.pane_target:
        try:
            return tmux, tmux.resolve(addr.pane_target)
        except TmuxError:
            raise StateError(f"no pane {arg}; hail seats lists seats and their panes") from None
    if addr.pane:
        return tmux, _pane_in_seat(arg, addr, panes).id
    return tmux, _seat_pane(addr.seat, panes).id


def _pane_in_seat(arg: str, addr: Addr, panes: Panes) -> Pane:
    """`seat/%N` and `seat@%N`: the pane must be live and work in that seat [docs/seats.md
    "Shared directories and sub-seats", docs/seats.md "Routing a target"]."""
    pane = panes.get(addr.pane)
    if pane is None:
        raise SeatError(f"{arg}: pane {addr.pane} is gone; hail seats lists live seats")
    if addr.sub:
        if pane.agent is None or pane.is_codex or pane.seat != addr.seat:
            raise SeatError(
                f"{arg}: {pane.id} is not a Claude pane in seat {addr.seat}; hail seats lists seats"
            )
        return pane
    if pane.seat != addr.seat:
        actual = pane.seat if pane.seat is not None else "(none)"
        raise SeatError(
            f"{arg}: pane {pane.id} is in seat {actual}, not {addr.seat}; hail seats lists seats"
        )
    return pane


def _seat_pane(seat: str, panes: Panes) -> Pane:
    """A seat's single agent pane, else its single pane."""
    agents = panes.agents_in(seat)
    if len(agents) == 1:
        return agents[0]
    if len(agents) > 1:
        raise shared_refusal(seat, agents)
    here = panes.in_seat(seat)
    if len(here) == 1:
        return here[0]
    if len(here) > 1:
        ids = " ".join(p.id for p in here)
        raise SeatError(f"seat {seat} has several panes ({ids}) and no single agent; name one")
    raise StateError(f"no pane works in seat {seat}; hail seats lists seats and their panes")


def shared_refusal(seat: str, agents: list[Pane]) -> SeatError:
    """A bare seat with several agents names none of them [docs/seats.md
    "Shared directories and sub-seats"]."""
    subs = " ".join(f"{seat}@{p.id}" for p in agents if not p.is_codex)
    text = f"seat {seat} has {len(agents)} agents; address one: {subs}"
    if any(p.is_codex for p in agents):
        text += "; a Codex pane there cannot be addressed apart: give it its own jj workspace"
    return SeatError(text)


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
