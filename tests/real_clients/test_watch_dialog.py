"""A real Claude Code permission dialog answered from `hail watch` [docs/watch.md "Answering a
dialog"]: the view, driven by Textual's Pilot against the scratch server, lists the agent waiting
on its dialog with the dialog's text as the screen shows it, and the key picked (option 1, after
a yes) approves it: the tool runs, and the dialog leaves the screen."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from hail.context import Ctx
from hail.watch.app import WatchApp
from hail.watch.dialogs import Waiting
from tests.support.pilot import pick_dialog, status, until

from .evidence import eventually
from .test_dialog import DIALOG
from .world import World

#: The view looks at the panes every 2 s; a dialog shows in it well within this.
WITHIN = 20.0


def test_a_claude_code_dialog_is_answered_from_watch(world: World) -> None:
    agent = world.start("claude")
    world.tmux.submit(agent.pane, "RUN_WRITE please")
    eventually(lambda: DIALOG["claude"] in agent.screen() or None, "claude shows its dialog")
    env = dict(world.env) | {"HAIL_SOCKET": world.tmux.socket}

    async def drive() -> tuple[Waiting, str]:
        app = WatchApp(Ctx.from_env(env), "")
        app.looker.tick(time.time())
        async with app.run_test(size=(200, 50)) as pilot:

            async def wait_for(check: Callable[[], bool]) -> None:
                assert await until(pilot, check, WITHIN), status(app)

            def waits() -> bool:
                tmux = app.snap.tmux if app.snap is not None else None
                return tmux is not None and any(
                    p.id == agent.pane and p.state == "dialog" for p in tmux.panes
                )

            await wait_for(waits)
            shown = await pick_dialog(pilot, app, agent.pane, "1", WITHIN)
            await pilot.press("y")
            await wait_for(lambda: "sent 1" in status(app) or "nothing sent" in status(app))
            said = status(app)
            await pilot.press("q")
        return shown, said

    shown, said = asyncio.run(drive())
    assert DIALOG["claude"] in shown.dialog.text, shown.dialog.text
    assert "1" in shown.dialog.keys and "Enter" in shown.dialog.keys
    assert f"sent 1 to {agent.pane}'s dialog (claude in worker)" in said, said
    eventually(lambda: (agent.cwd / "newfile.txt").exists() or None, "option 1 ran the tool")
    eventually(lambda: DIALOG["claude"] not in agent.screen() or None, "the dialog is answered")
