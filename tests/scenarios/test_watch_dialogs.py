"""A permission dialog answered from `hail watch`, on a scratch tmux server [docs/watch.md
"Answering a dialog"]: two stand-in agents (`dialog_screen.py`, under the names `claude` and
`codex`) show real clients' dialogs as captured, and record every byte their terminal receives.
The view, driven by Textual's Pilot, lists both with their text; the key picked reaches the one
pane, alone; a dialog that changed between the list and the yes gets nothing, and the status line
says so."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from hail.context import Ctx
from hail.watch.app import WatchApp
from hail.watch.dialogs import Waiting
from tests.scenarios.conftest import Scene, script_command
from tests.support.pilot import pick_dialog, until
from tests.support.pilot import status as _status
from tests.support.procs import wait_until

HERE = Path(__file__).resolve().parent
SCREENS = HERE.parent / "data" / "screens"
STANDIN = HERE / "dialog_screen.py"
#: The view looks at the panes every 2 s; a key reaches a pane well within this.
WITHIN = 15.0


class Standin:
    """A stand-in agent's pane, and the bytes its terminal received."""

    def __init__(self, scene: Scene, name: str, seat: str, screen: str, other: str) -> None:
        self.scene = scene
        self.log = scene.root / f"keys-{name}"
        launcher = script_command(scene.root, name, STANDIN)
        argv = [str(launcher), str(SCREENS / screen), str(SCREENS / other), str(self.log)]
        self.pane = scene.new_pane(scene.seat_dir(seat), *argv)
        assert wait_until(self.log.exists, 10)

    def shows(self, text: str) -> bool:
        return text in self.scene.screen(self.pane)

    def received(self) -> bytes:
        return self.log.read_bytes()

    def change(self) -> None:
        """The dialog on its screen is replaced by another."""
        pid = int(self.scene.server.display(self.pane, "#{pane_pid}"))
        os.kill(pid, signal.SIGUSR1)


async def _until(pilot: Pilot[None], check: Callable[[], bool]) -> bool:
    return await until(pilot, check, WITHIN)


def _states(app: WatchApp) -> list[str]:
    """Each agent pane's state as the view last looked."""
    tmux = app.snap.tmux if app.snap is not None else None
    return [p.state for p in tmux.panes if p.agent] if tmux is not None else []


async def _pick(pilot: Pilot[None], app: WatchApp, pane: str, *keys: str) -> Waiting:
    """Pick `pane`'s dialog in the list, press a key and answer its question with the rest."""
    shown = await pick_dialog(pilot, app, pane, keys[0], WITHIN)
    await pilot.press(*keys[1:])
    return shown


def test_a_dialog_is_answered_from_the_view_and_a_changed_one_is_left_alone(scene: Scene) -> None:
    claude = Standin(
        scene, "claude", "worker", "claude-dialog.ansi.txt", "cc24-permission-dialog.txt"
    )
    codex = Standin(scene, "codex", "boss", "codex-dialog.ansi.txt", "cx09-approval-dialog.txt")
    assert wait_until(lambda: claude.shows("Do you want to proceed?"), 10)
    assert wait_until(lambda: codex.shows("Would you like to run the following command?"), 10)
    env = {**scene.env, "HAIL_SOCKET": scene.socket, "HAIL_AGENT_COMMANDS": "claude,codex"}

    async def drive() -> list[str]:
        seen = []
        app = WatchApp(Ctx.from_env(env), "")
        app.looker.tick(time.time())
        async with app.run_test(size=(200, 50)) as pilot:
            assert await _until(pilot, lambda: _states(app) == ["dialog", "dialog"]), _states(app)
            assert app.snap is not None
            waiting = sorted(t.seat for t in app.snap.trouble if t.kind == "dialog")
            assert waiting == ["boss", "worker"], "each shows as trouble, with d as its fix"

            # Claude Code's dialog: option 1, after a yes. Its text is the screen's.
            shown = await _pick(pilot, app, claude.pane, "1", "y")
            assert "Do you want to proceed?" in shown.dialog.text
            assert shown.dialog.keys == ("1", "2", "3", "4", "Enter", "Escape")
            assert await _until(pilot, lambda: claude.received() != b""), _status(app)
            seen.append(_status(app))

            # Codex's dialog changes between the list and the yes: nothing is sent.
            await _pick(pilot, app, codex.pane, "s")
            codex.change()
            assert wait_until(lambda: codex.shows("outside the sandbox"), 10)
            await pilot.press("y")
            assert await _until(pilot, lambda: "nothing sent" in _status(app)), _status(app)
            seen.append(_status(app))

            # Listed again, the dialog now on its screen takes Enter.
            await _pick(pilot, app, codex.pane, "s", "y")
            assert await _until(pilot, lambda: codex.received() != b""), _status(app)
            seen.append(_status(app))
            await pilot.press("q")
        return seen

    answered, changed, entered = asyncio.run(drive())
    assert f"sent 1 to {claude.pane}'s dialog (claude in worker)" in answered
    assert claude.received() == b"1", "the one key, alone"
    assert f"{codex.pane}'s dialog changed since it was shown: nothing sent" in changed
    assert f"sent Enter to {codex.pane}'s dialog (codex in boss)" in entered
    assert codex.received() == b"\r", "Enter alone, only after the dialog was listed again"
