"""`hail watch`'s actions as the person takes them, driven by Textual's Pilot in a process the
person runs (tests/support/person.py: a terminal of its own, outside every agent's tree), since
each action runs `hail --as person`. `python -m tests.cli.watch_person_drive OUT ASK_ID` writes what
the view said after each step to OUT as JSON; tests/cli/test_watch_actions.py reads it and the
state it left."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Select, Static

from hail.context import Ctx
from hail.watch.app import WatchApp
from hail.watch.forms import Confirm, HoldsPick, WriteForm
from hail.watch.page import Page
from tests.support.pilot import status as _status
from tests.support.pilot import until

#: An action runs hail in a process of its own; its line shows well within this.
WITHIN = 20.0


async def _until(pilot: Pilot[None], check: Callable[[], bool]) -> None:
    if not await until(pilot, check, WITHIN):
        raise TimeoutError(f"the view never showed what was expected: {_status(app_of(pilot))}")


def app_of(pilot: Pilot[None]) -> WatchApp:
    app = pilot.app
    assert isinstance(app, WatchApp)
    return app


def _to_seat(app: WatchApp, name: str) -> None:
    seats = app.query_one("#seats", DataTable)
    seats.move_cursor(row=[str(k.value) for k in seats.rows].index(name))


def _fill(app: WatchApp, fields: dict[str, str]) -> None:
    form = app.screen
    assert isinstance(form, WriteForm)
    for name, value in fields.items():
        if name == "kind":
            form.query_one("#kind", Select).value = value
        else:
            form.query_one(f"#{name}", Input).value = value
    app.notice = ""


async def _write(pilot: Pilot[None], app: WatchApp, fields: dict[str, str], *after: str) -> str:
    """Fill the open form, send it (answering its question with `after`), and wait for the line."""
    _fill(app, fields)
    await pilot.press("ctrl+s", *after)
    await _until(
        pilot, lambda: " — exit " in _status(app) or _status(app).startswith("nothing done")
    )
    return _status(app)


async def drive(ctx: Ctx, ask: str) -> dict[str, str]:
    said: dict[str, str] = {}
    app = WatchApp(ctx, "")
    app.looker.tick(time.time())
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        said["title"] = str(app.query_one("#title", Static).content)
        # n on the person's row: never typed, nothing to wake.
        _to_seat(app, "person")
        await pilot.press("n")
        said["nudge person"] = _status(app)
        # w on worker.
        _to_seat(app, "worker")
        await pilot.press("w")
        said["write"] = await _write(pilot, app, {"kind": "ask", "headline": "Is main green?"})
        # r on the agent's ask to the person.
        await pilot.press("tab")
        messages = app.query_one("#messages", DataTable)
        await _until(pilot, lambda: ask in [str(k.value) for k in messages.rows])
        messages.move_cursor(row=[str(k.value) for k in messages.rows].index(ask))
        await pilot.press("r")
        said["reply to"] = app.screen.query_one("#to", Input).value
        said["reply"] = await _write(pilot, app, {"headline": "GO: push it"})
        # A broadcast hold asks first: n sends nothing, y sends it.
        fields = {"to": "all", "kind": "hold", "span": "2h", "headline": "freeze main"}
        await pilot.press("w")
        said["hold, no"] = await _write(pilot, app, fields, "n")
        await pilot.press("w")
        _fill(app, fields)
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, Confirm)
        said["hold question"] = app.screen.question
        await pilot.press("y")
        await _until(pilot, lambda: " — exit " in _status(app))
        said["hold"] = _status(app)
        # h, x, y: the hold released (every copy of the broadcast with it).
        await _until(pilot, lambda: app.snap is not None and len(app.snap.holds) > 0)
        await pilot.press("h")
        assert isinstance(app.screen, HoldsPick)
        await pilot.press("x", "y")
        await _until(pilot, lambda: "release to" in _status(app) and " — exit " in _status(app))
        said["release"] = _status(app)
        # i: the person's inbox, as a page; what it shows is read.
        await pilot.press("i")
        await _until(pilot, lambda: isinstance(app.screen, Page))
        said["inbox"] = app.screen.body  # type: ignore[attr-defined]
        await pilot.press("escape")
        await _until(
            pilot, lambda: "person: 0 unread" in str(app.query_one("#title", Static).content)
        )
        said["title after"] = str(app.query_one("#title", Static).content)
        await pilot.press("q")
    return said


def main(out: str, ask: str) -> None:
    said = asyncio.run(drive(Ctx.from_env(os.environ), ask))
    with open(out, "w") as f:
        json.dump(said, f)


if __name__ == "__main__":
    main(*sys.argv[1:3])
