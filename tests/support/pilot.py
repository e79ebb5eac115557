"""Driving `hail watch`'s view with Textual's Pilot: waiting, with a deadline, until the view shows
what a test expects, and reading its status line."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Static

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.watch.app import WatchApp
    from hail.watch.dialogs import Waiting


async def until(pilot: Pilot[None], check: Callable[[], bool], within: float = 5.0) -> bool:
    """Let the app run until `check` holds; False when `within` seconds pass first."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        await pilot.pause(0.05)
    return True


def status(app: WatchApp) -> str:
    """The view's status line: the last action's line, then the keys."""
    return str(app.query_one("#status", Static).content)


async def pick_dialog(
    pilot: Pilot[None], app: WatchApp, pane: str, key: str, within: float
) -> Waiting:
    """Open the view's dialogs list (`d`), highlight `pane`'s dialog and press `key`: the view then
    asks first. The dialog as the list showed it."""
    from textual.widgets import OptionList

    from hail.watch.dialogs import Waiting
    from hail.watch.forms import Confirm, DialogsPick

    app.notice = ""
    await pilot.press("d")
    assert await until(pilot, lambda: isinstance(app.screen, DialogsPick), within), status(app)
    listed = app.screen
    assert isinstance(listed, DialogsPick)
    found = [w for w, _ in listed.items if isinstance(w, Waiting)]
    at = next(i for i, w in enumerate(found) if w.pane == pane)
    listed.query_one("#items", OptionList).highlighted = at
    await pilot.press(key)
    assert isinstance(app.screen, Confirm), status(app)
    return found[at]
