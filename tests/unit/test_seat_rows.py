"""The seat rows `hail seats`, its `--json` and `hail watch` share (docs/commands.md "seats",
docs/watch.md "What it shows"): built once from what was looked at, written as JSON and read back
from another machine with every value checked, and the CONTEXT cell."""

from __future__ import annotations

import json

import pytest

from hail import seat_rows
from hail.gauge.agents import AgentFigures
from hail.gauge.base import Figure, Gauge, unknown
from hail.seat_rows import Box, PaneRow, SeatRow

NOW = 1_796_000_000.0


def gauge(context: float | None, window: float | None = 200_000, compacts_at: int | None = 167_000) -> Gauge:  # fmt: skip
    return Gauge(
        Figure(context, "transcript") if context is not None else unknown("not-in-tail"),
        Figure(window, "hail-table") if window is not None else unknown("unknown-model"),
        Figure(90_000, "transcript"),
        unknown("no-price"),
        "claude-sonnet-4-5",
        4096,
        compacts_at,
    )


def agent(pane: str, seat: str, name: str | None = "claude", task: str = "", context: float | None = 46_000) -> PaneRow:  # fmt: skip
    figures = AgentFigures(task, gauge(context)) if name else AgentFigures()
    return PaneRow(pane, seat, name, "idle" if name else "", "wake", NOW - 60, figures)


def rows(*panes: PaneRow, boxes: tuple[Box, ...] = (), **kw: object) -> dict[str, SeatRow]:
    built = seat_rows.build(boxes, list(panes), NOW, **kw)  # type: ignore[arg-type]
    return {r.mailbox: r for r in built}


def test_a_seat_row_lists_its_agents_and_a_sub_seat_its_own_pane() -> None:
    got = rows(
        agent("%1", "api", task="fix the login"),
        agent("%2", "api", "codex", task="write docs"),
        agent("%3", "api", None),
        boxes=(Box("api", unread=2, hooked=NOW - 5, root="/w/api"), Box("api@%2"), Box("api@%9")),
    )
    api, sub, gone = got["api"], got["api@%2"], got["api@%9"]
    assert [p.id for p in api.agents] == ["%1", "%2"] and api.route == "-", "several: no route"
    assert (api.unread, api.hooks, api.panes) == (2, "live", ("%1", "%2", "%3"))
    assert [p.id for p in sub.agents] == ["%2"] and (sub.route, sub.jump) == ("wake", "%2")
    assert (gone.agents, gone.sub_pane) == ((), "gone")
    cells = seat_rows.seats_cells(api, NOW, "/home/u")
    assert cells[7:] == ["46k 23%, 46k 23%", "fix the login | write docs"]
    assert seat_rows.seats_cells(gone, NOW, None)[1] == "(pane gone)"


def test_a_sub_seats_pane_that_runs_no_agent_is_named_bare() -> None:
    got = rows(agent("%3", "api", None), boxes=(Box("api@%3"),))
    assert got["api@%3"].sub_pane == "bare"
    assert seat_rows.seats_cells(got["api@%3"], NOW, None)[1] == "%3"


def test_without_tmux_agents_routes_and_screens_are_unknown() -> None:
    (row,) = seat_rows.build([Box("boss", root="/gone")], None, NOW)
    assert (row.agents, row.route, row.state, row.jump, row.looked) == ((), "?", "?", "", False)
    assert seat_rows.seats_cells(row, NOW, None)[1:4] == ["?", "-", "-"]


def test_routes_are_asked_for_the_rows_own_mailbox() -> None:
    asked: list[tuple[str, str]] = []

    def route_of(p: PaneRow, mailbox: str) -> str:
        asked.append((p.id, mailbox))
        return "queue" if mailbox == "api" else "type"

    got = rows(agent("%4", "api"), boxes=(Box("api"), Box("api@%4")), route_of=route_of)
    assert (got["api"].routes, got["api@%4"].routes) == (("queue",), ("type",))
    assert asked == [("%4", "api"), ("%4", "api@%4")]


def test_holds_show_on_the_seat_and_its_sub_seats() -> None:
    got = rows(
        boxes=(Box("api"), Box("api@%4"), Box("boss")), holds=[("h1", "api"), ("h2", "api@%4")]
    )
    assert {k: r.holds for k, r in got.items()} == {
        "api": ("h1", "h2"),
        "api@%4": ("h1", "h2"),
        "boss": (),
    }


def test_only_one_seats_rows_are_made_when_asked() -> None:
    got = rows(agent("%1", "api"), agent("%2", "boss"), boxes=(Box("boss@%7"),), only="boss")
    assert sorted(got) == ["boss", "boss@%7"]


@pytest.mark.parametrize(
    ("context", "window", "shown"),
    [
        (46_000, 200_000, "46k 23%"),
        (812, 200_000, "812 0%"),
        (999_600, 1_000_000, "1.0M 100%"),
        (1_234_567, None, "1.2M"),
        (None, 200_000, "-"),
    ],
)
def test_the_context_cell(context: float | None, window: float | None, shown: str) -> None:
    assert seat_rows.context_cell(AgentFigures("", gauge(context, window))) == shown
    assert seat_rows.context_cell(AgentFigures()) == "-", "no record: no figure"


@pytest.mark.parametrize(
    ("context", "level"),
    [
        (100_000, ""),
        (125_250, "near"),
        (146_999, "near"),
        (147_000, "compacting"),
        (180_000, "compacting"),
    ],
)
def test_the_gauge_level_is_its_nearness_to_the_compaction_point(context: int, level: str) -> None:
    assert seat_rows.gauge_level(AgentFigures("", gauge(context))) == level
    assert seat_rows.gauge_level(AgentFigures("", gauge(context, None, None))) == ""


def test_a_row_reads_back_from_its_json() -> None:
    (row,) = seat_rows.build(
        [Box("api", 1, NOW - 30, "/w/api")], [agent("%1", "api", task="fix it")], NOW
    )
    data = json.loads(json.dumps(seat_rows.row_json(row)))
    back = seat_rows.row_from_json(data, NOW)
    assert seat_rows.row_json(back) == seat_rows.row_json(row)
    assert data["agents"][0]["gauge"]["context"] == {"value": 46_000, "source": "transcript"}
    assert data["agents"][0]["gauge"]["percent"] == 23.0


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(unread=-1),
        lambda d: d.update(unread=True),
        lambda d: d.update(agents="all of them"),
        lambda d: d["agents"][0]["gauge"]["context"].update(value="46k"),
        lambda d: d["agents"][0]["gauge"]["context"].update(value=float("inf")),
        lambda d: d["agents"][0]["gauge"].update(compacts_at=-5),
        lambda d: d["agents"][0]["gauge"]["window"].update(source="x" * 500),
        lambda d: d["agents"][0].update(task=["a list"]),
        lambda d: d.update(mailbox=None),
        lambda d: d.update(panes=["%1"] * 5000),
    ],
)
def test_a_row_from_another_machine_that_is_not_one_is_refused(change) -> None:  # type: ignore[no-untyped-def]
    (row,) = seat_rows.build([Box("api")], [agent("%1", "api")], NOW)
    data = json.loads(json.dumps(seat_rows.row_json(row)))
    change(data)
    with pytest.raises(seat_rows.NotARow):
        seat_rows.row_from_json(data, NOW)


def test_text_from_another_machine_is_one_clean_line() -> None:
    (row,) = seat_rows.build([Box("api")], [agent("%1", "api")], NOW)
    data = json.loads(json.dumps(seat_rows.row_json(row)))
    data["agents"][0]["task"] = "\x1b]0;owned\x07rm -rf /\nsecond line"
    data["root"] = "/w/\x1b[31mred"
    back = seat_rows.row_from_json(data, NOW)
    assert back.agents[0].figures.task == "rm -rf /" and back.root == "/w/[31mred"
