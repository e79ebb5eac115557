"""The seat rows `hail seats`, its `--json` and `hail watch` show, built in one place [docs/commands.md
"seats", docs/watch.md "What it shows"]: one row per mailbox and per seat some pane works in, with
each agent pane's screen, route, task line and context gauge.

Plain data: `build` makes the rows from what the caller looked at (the mailboxes as `Box`, the
panes as `PaneRow`, the holds), so `hail seats` (which reads afresh) and `hail watch` (which reads
on change) show the same rows by the same rules; `row_json` writes a row as `--json` gives it, and
`row_from_json` reads one back, checked, as another machine may send it. The text cells are here
too: `context_cell` (`46k 18%`), `gauge_level` (how near its compaction point an agent is).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from hail import diagnosis, ids, policy
from hail.gauge.agents import AgentFigures, figures_from_json
from hail.output import age, tokens
from hail.text import clip_value, printable_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PaneRow:
    """A pane as the rows show it: its seat, its agent (None for none), that agent's screen
    (`idle busy draft dialog other`, `?` unknown), how a send reaches it (its route's word), when
    its process started, and its task line and gauge."""

    id: str
    seat: str | None
    agent: str | None
    state: str = ""
    route: str = ""
    started: float | None = None
    figures: AgentFigures = field(default_factory=AgentFigures)


@dataclass(frozen=True, slots=True)
class Box:
    """A mailbox as the rows show it."""

    name: str
    unread: int = 0
    hooked: float | None = None
    root: str | None = None
    root_gone: bool = False


@dataclass(frozen=True, slots=True)
class SeatRow:
    """One row per mailbox and per seat some pane works in."""

    mailbox: str
    seat: str
    agents: tuple[PaneRow, ...]  # the agent panes it lists
    routes: tuple[str, ...]  # each agent's route for a send to this mailbox
    panes: tuple[str, ...]  # every pane working in the seat
    jump: str  # the pane a jump brings up: its agent, else its only pane; "" for none
    route: str  # its one agent's route; "-" none or several; "?" tmux unreachable
    state: str  # its agents' screens; "-" no agent; "?" tmux unreachable
    hooks: str  # live, stale or never (`diagnosis.hooks_state`)
    unread: int
    hooked: float | None
    holds: tuple[str, ...]  # ids of the holds in effect on it
    root: str | None
    root_gone: bool
    looked: bool = True  # tmux was reached
    sub_pane: str = ""  # a sub-seat's pane: "" none, else `agent`, `bare` (no agent) or `gone`


def build(
    boxes: Iterable[Box],
    panes: Sequence[PaneRow] | None,
    now: float,
    *,
    holds: Iterable[tuple[str, str]] = (),
    route_of: Callable[[PaneRow, str], str] | None = None,
    only: str = "",
) -> tuple[SeatRow, ...]:
    """The rows, by mailbox name: `panes` None when tmux could not be reached; `holds` as (id, the
    mailbox or seat it holds); `route_of` an agent's route for a send to a row's mailbox (else
    each pane's own); `only` a seat whose rows alone are made."""
    by_name, looked, every = {b.name: b for b in boxes}, panes is not None, panes or ()
    by_seat = _by_seat((p.seat, p) for p in every if p.seat is not None)
    held = _by_seat((to.partition("@")[0], (i, to)) for i, to in holds)  # one lookup a row
    rows = []
    for name in sorted(set(by_name) | set(by_seat)):
        seat, _, pane = name.partition("@")
        if only and seat != only:
            continue
        in_seat = tuple(by_seat.get(seat, ()))
        agents = tuple(p for p in in_seat if p.agent is not None and (not pane or p.id == pane))
        box = by_name.get(name, Box(name))
        routes = tuple(route_of(p, name) if route_of else p.route for p in agents)
        jump = agents[0].id if agents else pane or (in_seat[0].id if len(in_seat) == 1 else "")
        rows.append(
            SeatRow(
                mailbox=name,
                seat=seat,
                agents=agents,
                routes=routes,
                panes=tuple(p.id for p in in_seat),
                jump=jump if looked else "",
                route=(routes[0] if len(agents) == 1 else "-") if looked else "?",
                state=(" ".join(p.state for p in agents) or "-") if looked else "?",
                hooks=diagnosis.hooks_state(box.hooked, now),
                unread=box.unread,
                hooked=box.hooked,
                holds=tuple(i for i, to in held.get(seat, ()) if _holds_on(to, name, seat, pane)),
                root=box.root,
                root_gone=box.root_gone,
                looked=looked,
                sub_pane=_sub_pane(pane, agents, every) if pane and looked else "",
            )
        )
    return tuple(rows)


def _by_seat(pairs: Iterable[tuple[str, T]]) -> dict[str, list[T]]:
    grouped: dict[str, list[T]] = {}
    for seat, item in pairs:
        grouped.setdefault(seat, []).append(item)
    return grouped


def _holds_on(to: str, name: str, seat: str, pane: str) -> bool:
    """A hold on a seat covers its sub-seats; a seat's row shows its sub-seats' holds too."""
    if to == name or (pane and to == seat):
        return True
    return not pane and to.partition("@")[0] == seat


def _sub_pane(pane: str, agents: tuple[PaneRow, ...], every: Sequence[PaneRow]) -> str:
    if agents:
        return "agent"
    return "bare" if any(p.id == pane for p in every) else "gone"


# --- cells -------------------------------------------------------------------------------------


def context_cell(figures: AgentFigures) -> str:
    """`46k 18%`: the tokens in context now and their share of the window; `46k` with no window;
    `-` when unknown."""
    gauge = figures.gauge
    if gauge is None or gauge.context.value is None:
        return "-"
    percent = gauge.percent()
    shown = tokens(gauge.context.value)
    return shown if percent is None else f"{shown} {round(percent)}%"


#: How near its compaction point an agent's context is [docs/gauge.md "Compaction"].
NEAR = "near"
COMPACTING = "compacting"


def gauge_level(figures: AgentFigures) -> str:
    """`compacting` when the agent is about to compact (`diagnosis.compacts_soon`), `near` past
    GAUGE_NEAR_SHARE of its compaction point, else ""."""
    gauge = figures.gauge
    if gauge is None or gauge.context.value is None or gauge.compacts_at is None:
        return ""
    if diagnosis.compacts_soon(gauge.context.value, gauge.compacts_at):
        return COMPACTING
    return NEAR if gauge.context.value >= policy.GAUGE_NEAR_SHARE * gauge.compacts_at else ""


def task_cell(row: SeatRow, chars: int) -> str:
    """Each agent's task line, clipped to `chars`; `-` for none."""
    tasks = [clip_value(p.figures.task, chars) for p in row.agents if p.figures.task]
    return " | ".join(tasks) or "-"


#: `hail seats`' columns: the first seven as before, CONTEXT and ON added.
SEATS_COLUMNS = ("SEAT", "AGENTS", "STATE", "ROUTE", "UNREAD", "HOOK", "ROOT", "CONTEXT", "ON")
#: How `hail seats` clips a task line; `--json` has it whole.
SEATS_TASK_CHARS = 60


def seats_cells(row: SeatRow, now: float, home: str | None) -> list[str]:
    """A row as `hail seats` prints it."""
    return [
        row.mailbox,
        _agents_cell(row),
        " ".join(p.state for p in row.agents) or "-",
        " ".join(row.routes) or "-",
        str(row.unread),
        "-" if row.hooked is None else age(now - row.hooked),
        root_cell(row, home),
        ", ".join(context_cell(p.figures) for p in row.agents) or "-",
        task_cell(row, SEATS_TASK_CHARS),
    ]


def _agents_cell(row: SeatRow) -> str:
    if not row.looked:
        return "?"
    if row.sub_pane == "gone":
        return "(pane gone)"
    if row.sub_pane == "bare":
        return row.mailbox.partition("@")[2]
    return " ".join(f"{p.id}:{p.agent}" for p in row.agents) or "-"


def root_cell(row: SeatRow, home: str | None) -> str:
    """The bound root, `~` for the home, `(gone)` once it no longer exists; "" when unbound."""
    if row.root is None:
        return ""
    shown = row.root
    home = (home or "").rstrip("/")
    if home and (shown == home or shown.startswith(home + "/")):
        shown = "~" + shown[len(home) :]
    return f"{shown} (gone)" if row.root_gone else shown


# --- JSON --------------------------------------------------------------------------------------


def row_json(r: SeatRow) -> dict[str, object]:
    """A row as `hail seats --json` and `hail watch --json` give it [docs/watch.md "--once and
    --json"]: times as ISO strings, every gauge figure as a number with its source."""
    return {
        "mailbox": r.mailbox,
        "seat": r.seat,
        "agents": [
            {"pane": p.id, "agent": p.agent, "state": p.state, "route": route} | p.figures.as_json()
            for p, route in zip(r.agents, r.routes, strict=True)
        ],
        "panes": list(r.panes),
        "jump": r.jump or None,
        "route": r.route,
        "state": r.state,
        "hooks": r.hooks,
        "unread": r.unread,
        "last_hook": ids.iso(r.hooked) if r.hooked else None,
        "holds": list(r.holds),
        "root": r.root,
        "root_gone": r.root_gone,
    }


class NotARow(ValueError):
    """What another machine sent is not a seat row as `row_json` writes one."""


def row_from_json(data: object, now: float) -> SeatRow:
    """A row as `row_json` wrote it, from another machine: every value checked for its type and
    made one clean line of bounded length; NotARow for anything else. Nothing in it is run or
    opened: it is shown."""
    try:
        return _row(_mapping(data), now)
    except ValueError as e:  # a figure or a text the gauge refused
        raise NotARow(str(e)) from None


def _row(d: Mapping[str, object], now: float) -> SeatRow:
    agents, routes = [], []
    for item in _items(d.get("agents")):
        a = _mapping(item)
        agents.append(
            PaneRow(
                _text(a.get("pane")),
                _text(d.get("seat")),
                _text(a.get("agent")),
                _text(a.get("state")),
                figures=figures_from_json(a),
            )
        )
        routes.append(_text(a.get("route")))
    hooked = ids.parse_iso(_text(d.get("last_hook"))) if d.get("last_hook") is not None else None
    root = _text(d.get("root")) if d.get("root") is not None else None
    return SeatRow(
        mailbox=_text(d.get("mailbox")),
        seat=_text(d.get("seat")),
        agents=tuple(agents),
        routes=tuple(routes),
        panes=tuple(_text(p) for p in _items(d.get("panes"))),
        jump=_text(d.get("jump")) if d.get("jump") is not None else "",
        route=_text(d.get("route")),
        state=_text(d.get("state")),
        hooks=diagnosis.hooks_state(hooked, now),
        unread=_count(d.get("unread")),
        hooked=hooked,
        holds=tuple(_text(h) for h in _items(d.get("holds"))),
        root=root,
        root_gone=d.get("root_gone") is True,
    )


#: The longest value another machine's row may give, and the most agents, panes or holds.
_VALUE_MAX = policy.AGENT_FILE_MAX
_ITEMS_MAX = 1000


def _mapping(value: object) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise NotARow(f"not an object: {type(value).__name__}")
    return value


def _items(value: object) -> list[object]:
    if not isinstance(value, list) or len(value) > _ITEMS_MAX:
        raise NotARow("not a list of at most 1000 items")
    return value


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise NotARow(f"not a string: {type(value).__name__}")
    return clip_value(printable_line(value), _VALUE_MAX)


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise NotARow(f"not a count: {value!r}")
    return value


def rows_from_text(text: str, now: float) -> tuple[tuple[SeatRow, ...], int]:
    """The rows in a JSON list another machine sent (or this one kept), and how many items were no
    row (left out); NotARow when the text is no JSON list at all."""
    import json

    try:
        items = json.loads(text)
    except (ValueError, RecursionError) as e:  # bad JSON, or nested past the parser's depth
        raise NotARow(f"not JSON: {e}") from None
    rows, dropped = [], 0
    for item in _items(items):
        try:
            rows.append(row_from_json(item, now))
        except NotARow:
            dropped += 1
    return tuple(rows), dropped


def rows_text(rows: Iterable[SeatRow]) -> str:
    """The rows as the JSON list another machine is answered with (`row_json` each)."""
    import json

    return json.dumps([row_json(r) for r in rows], ensure_ascii=False)
