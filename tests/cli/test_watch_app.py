"""The full-screen `hail watch` driven in this process by Textual's Pilot (`App.run_test`), on a
real state that the installed `hail` files into: a send shows in the next frame, and the keys the
help page lists do what it says [docs/watch.md "Keys"]."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace

from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from hail import seat_rows
from hail.context import Ctx
from hail.gauge.agents import AgentFigures
from hail.gauge.base import Figure, Gauge, unknown
from hail.seat_rows import Box, PaneRow, SeatRow
from hail.watch import keys, render
from hail.watch.app import WatchApp
from hail.watch.page import Page
from tests.support.pilot import until
from tests.support.world import World

#: The view looks again every WATCH_POLL_SECONDS: a send shows well within this.
SHOWS_WITHIN = 5.0


async def _until(pilot: Pilot[None], check: Callable[[], bool]) -> bool:
    """Let the app run until `check` holds, within SHOWS_WITHIN seconds."""
    return await until(pilot, check, SHOWS_WITHIN)


def _rows(table: DataTable[object]) -> list[str]:
    return [str(key.value) for key in table.rows]


def _text(app: WatchApp, selector: str) -> str:
    return str(app.query_one(selector, Static).content)


async def _drive(world: World, first: str) -> WatchApp:
    app = WatchApp(Ctx.from_env(world.env), "")
    app.looker.tick(time.time())  # as `hail watch` does before it takes the screen
    async with app.run_test(size=(200, 50)) as pilot:
        seats = app.query_one("#seats", DataTable)
        messages = app.query_one("#messages", DataTable)
        assert await _until(pilot, lambda: _rows(messages) == [first])
        assert _rows(seats) == ["boss", "worker"]
        assert keys.KEYS in _text(app, "#status")

        # A frame after a send: the message filed meanwhile is the newest row.
        second = await asyncio.to_thread(world.send, "worker", "fyi", "the schema is frozen")
        assert await _until(pilot, lambda: _rows(messages) == [second, first])

        # ? opens the help page made from the bindings; Esc closes it.
        await pilot.press("question_mark")
        assert isinstance(app.screen, Page) and app.screen.body == keys.HELP
        await pilot.press("escape")
        assert not isinstance(app.screen, Page)

        # Tab moves to the messages, whose cursor stayed on its row when the new one came; Enter
        # opens it in full, q closes the page.
        await pilot.press("tab")
        assert app.focused is messages
        await pilot.press("enter")
        page = app.screen
        assert isinstance(page, Page) and page.heading == f"message {first}"
        assert "ask: Is the migration safe to run twice?" in page.body
        await pilot.press("q")
        assert not isinstance(app.screen, Page) and app.is_running
        await pilot.press("o")  # the same message, by its own key; ? closes a page too
        assert isinstance(app.screen, Page) and app.screen.heading == f"message {first}"
        await pilot.press("question_mark")
        assert not isinstance(app.screen, Page)

        # Back on the seats: f shows only the highlighted seat, a every seat again.
        await pilot.press("tab", "down")
        assert app.focused is seats
        await pilot.press("f")
        assert app.only == "worker" and _rows(seats) == ["worker"]
        assert _text(app, "#status").startswith("only worker (a shows all)")
        await pilot.press("a")
        assert app.only == "" and _rows(seats) == ["boss", "worker"]

        # Enter on a seat jumps to its pane; with no tmux there is none, and the status says so.
        await pilot.press("enter")
        assert "no pane works in worker" in _text(app, "#status")

        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
    return app


def test_the_view_shows_a_send_and_answers_every_key_of_its_help(world: World) -> None:
    world.run("whoami", cwd="worker")
    first = world.send("worker", "ask", "Is the migration safe to run twice?")
    app = asyncio.run(_drive(world, first))
    assert app.return_code == 0


def _gauge_rows(context: float, point: int, now: float) -> tuple[SeatRow, ...]:
    """boss's one agent, its context `context` of a 200k window that compacts at `point`."""
    gauge = Gauge(
        Figure(context, "transcript"), Figure(200_000, "hail-table"), unknown("too-long"),
        unknown("no-price"), "claude-sonnet-4-5", 0, point,
    )  # fmt: skip
    figures = AgentFigures("fix the parser", gauge)
    pane = PaneRow("%1", "boss", "claude", "idle", "wake", now - 60, figures)
    return seat_rows.build([Box("boss"), Box("worker")], [pane], now)


async def _colours(world: World) -> list[str]:
    app = WatchApp(Ctx.from_env(world.env), "")
    app.looker.tick(time.time())
    shown = []
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        seats = app.query_one("#seats", DataTable)
        column = list(seats.columns)[render.CONTEXT_COLUMN]
        snap = app.looker.snapshot(time.time())
        # The last: the same figures, another client's compaction point (the text alone is the same).
        for context, point in ((100_000, 167_000), (130_000, 167_000), (150_000, 167_000),
                               (150_000, 400_000)):  # fmt: skip
            app.draw(replace(snap, seats=_gauge_rows(context, point, snap.now)))
            cell = seats.get_cell("boss", column)
            shown.append(f"{cell.plain} [{cell.style}]")
        await pilot.press("q")
    return shown


def test_a_gauge_turns_yellow_near_its_compaction_point_and_red_about_to_compact(
    world: World,
) -> None:
    """docs/watch.md "The gauge": past 75% of the point yellow, within 20k of it red."""
    world.run("whoami", cwd="worker")
    assert asyncio.run(_colours(world)) == [
        "████░░░░ 100k 50% []",
        "█████░░░ 130k 65% [yellow]",
        "██████░░ 150k 75% [bold red]",
        "██████░░ 150k 75% []",
    ]


#: What a hostile far machine answered for `hail sent`: a retitling OSC, a screen clear, a bidi
#: override, and far more than a line.
FAR_RECEIPT = "read \x1b]2;PWNED\x07\x1b[2J\u202e" + "A" * 5000


def test_a_far_receipt_reaches_the_view_escaped_and_clipped(world: World) -> None:
    """A receipt file as a far machine's answer left it (an older hail kept it raw): the view's
    line to other machines shows it as one clean line, clipped as every other peer text."""
    from hail import policy
    from hail.message import render
    from hail.store import remote

    world.run("whoami", cwd="worker")
    msg_id = "0101T000000-abcd"
    headers = {"from": "boss", "reply": "boss", "kind": "ask", "id": msg_id}
    headers.update(time="2026-01-01T00:00:00Z", ask="which port?", to="worker@box")
    remote.record_sent(str(world.state), msg_id, render(headers, "which port?"))
    (world.state / "remote" / f"{msg_id}.receipt").write_text(FAR_RECEIPT + "\n")

    async def drive() -> str:
        app = WatchApp(Ctx.from_env(world.env), "")
        app.looker.tick(time.time())
        async with app.run_test(size=(200, 50)) as pilot:
            assert await _until(pilot, lambda: msg_id in _text(app, "#talk"))
            talk = _text(app, "#talk")
            await pilot.press("q")
        return talk

    talk = asyncio.run(drive())
    (line,) = [x for x in talk.split("\n") if msg_id in x]
    assert line.isprintable(), repr(line[:80])
    assert "A" * policy.FRAME_VALUE_MAX not in line
