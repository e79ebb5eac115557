"""The person's actions in `hail watch`, driven by Textual's Pilot on a real state that the
installed `hail` files into [docs/watch.md "Acting", "Answering a dialog"]: every action's key, its
form or list, its question, and what its run left on the status line. No tmux here (HAIL_SOCKET
points nowhere): a dialog answered from the view is sent on a scratch server in
tests/scenarios/test_watch_dialogs.py."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from pathlib import Path

from textual.widgets import Input, Static

from hail import ids
from hail.context import Ctx
from hail.transport.dialog import dialog_of
from hail.watch.app import WatchApp
from hail.watch.dialogs import Waiting
from hail.watch.forms import Confirm, DialogsPick, HoldsPick, WriteForm
from tests.support.person import launch_as_person, without_agents
from tests.support.pilot import status as _status
from tests.support.pilot import until as _until
from tests.support.world import World

REPO = Path(__file__).resolve().parents[2]
SCREENS = REPO / "tests" / "data" / "screens"
#: An action runs hail in a process of its own: its line shows well within this.
DONE_WITHIN = 30.0


def _app(world: World) -> WatchApp:
    app = WatchApp(Ctx.from_env(world.env), "")
    app.looker.tick(time.time())
    return app


def _waiting(pane: str, seat: str, screen: str) -> Waiting:
    lines = (SCREENS / screen).read_text().split("\n")
    found = dialog_of(lines)
    assert found is not None, screen
    return Waiting(pane, seat, "claude", found)


def test_nudge_wakes_a_seat_with_unread_mail_and_says_the_send_s_exit_status(world: World) -> None:
    world.run("whoami", cwd="worker")
    msg_id = world.send("worker", "ask", "Is the migration safe to run twice?")

    async def drive() -> tuple[str, str]:
        app = _app(world)
        async with app.run_test(size=(200, 50)) as pilot:
            await pilot.press("n")  # boss, the first row: nothing unread
            nothing = _status(app)
            await pilot.press("down", "n")
            assert await _until(pilot, lambda: "exit" in _status(app), DONE_WITHIN)
            said = _status(app)
            await pilot.press("q")
        return nothing, said

    nothing, said = asyncio.run(drive())
    assert "boss has no unread mail: nothing to nudge" in nothing
    # No tmux answers: the wake that did not take is the send's exit 5, the message still unread.
    assert f"nudge worker {msg_id} — exit 5 (in the inbox, not woken: do not resend)" in said
    assert "delivered to worker's inbox; not typed" in said
    assert (world.state / "seats" / "worker" / "new" / f"{msg_id}.md").exists()


def test_the_form_says_what_is_missing_and_esc_drops_it(world: World) -> None:
    world.run("whoami", cwd="worker")
    msg_id = world.send("worker", "ask", "Which port?")

    async def drive() -> list[str]:
        seen = []
        app = _app(world)
        async with app.run_test(size=(200, 50)) as pilot:
            await pilot.press("down", "w")  # write to the highlighted seat
            form = app.screen
            assert isinstance(form, WriteForm)
            assert form.query_one("#to", Input).value == "worker"
            await pilot.press("ctrl+s")  # no headline: nothing is sent
            seen.append(str(form.query_one("#problem", Static).content))
            await pilot.press("enter")  # Enter in a field sends nothing either
            assert app.screen is form
            await pilot.press("escape")
            assert not isinstance(app.screen, WriteForm)
            await pilot.press("tab", "r")  # reply to the highlighted message
            reply = app.screen
            assert isinstance(reply, WriteForm)
            seen += [reply.query_one(f"#{f}", Input).value for f in ("to", "re")]
            await pilot.press("escape")
            await pilot.press("h")  # no hold in effect
            seen.append(_status(app))
            await pilot.press("q")
        return seen

    problem, to, re, holds = asyncio.run(drive())
    assert problem == "headline: a message needs one"
    assert (to, re) == ("boss", msg_id)
    assert "no hold is in effect" in holds


def test_no_move_acts(world: World) -> None:
    """watch is safe to leave open: the moves (arrows, j, k, Tab, PgUp, PgDn, Esc, Enter on a row)
    open no form or list and run nothing, with unread mail, a hold and a message to act on."""
    world.run("whoami", cwd="worker")
    world.send("worker", "ask", "Which port?")
    proc = world.run("worker", "hold", "--no-wake", "freeze the schema", cwd="boss")
    assert proc.returncode == 5, proc.stderr
    before = sorted(p.name for p in world.state.rglob("*"))

    async def drive() -> list[str]:
        seen = []
        app = _app(world)
        async with app.run_test(size=(200, 50)) as pilot:
            await pilot.pause()
            moves = ["down", "up", "j", "k", "pagedown", "pageup", "tab", "enter", "escape"]
            for key in moves * 2:
                await pilot.press(key)
                if app.screen is not app.screen_stack[0]:
                    await pilot.press("escape")  # Enter opened the message: a page, no action
                seen.append(type(app.screen).__name__)
            await pilot.pause(0.5)
            seen.append(str(app.query_one("#status", Static).content))
            await pilot.press("q")
        return seen

    seen = asyncio.run(drive())
    assert set(seen[:-1]) == {"Screen"}, seen
    assert " — exit " not in seen[-1]
    assert sorted(p.name for p in world.state.rglob("*")) == before, "nothing was written"


def test_the_dialogs_list_sends_only_an_offered_key_and_only_after_a_yes(world: World) -> None:
    """Without tmux `d` finds no dialog; a list of dialogs (read from captured screens) takes only
    the keys its highlighted dialog offers, asks first, and does nothing on n or Esc."""

    async def drive() -> list[str]:
        seen = []
        app = _app(world)
        async with app.run_test(size=(200, 50)) as pilot:
            await pilot.press("d")
            assert await _until(pilot, lambda: "dialog" in _status(app) or "tmux" in _status(app))
            seen.append(_status(app))
            found = [
                _waiting("%7", "worker", "claude-dialog.ansi.txt"),
                _waiting("%8", "boss", "gemini-dialog.ansi.txt"),
            ]
            for keys in (["9"], ["1", "n"], ["down", "x", "escape"], ["s", "y"]):
                app.push_screen(DialogsPick(found), app._answer)
                await pilot.pause()
                await pilot.press(*keys)
                await _until(pilot, lambda: not isinstance(app.screen, Confirm | DialogsPick))
                seen.append(type(app.screen).__name__ + ": " + _status(app))
                if isinstance(app.screen, DialogsPick):
                    await pilot.press("escape")  # a list closes on Esc, sending nothing
            await pilot.press("q")
        return seen

    nothing, no_9, no, esc, yes = asyncio.run(drive())
    assert "no agent waits on a permission dialog" in nothing or "tmux" in nothing
    assert no_9.startswith("DialogsPick"), "Claude Code's dialog offers no 9: the list stays"
    assert no.startswith("Screen: nothing done") and esc.startswith("Screen: nothing done")
    # A yes: the pane is captured again first; no tmux answers here, so nothing is sent.
    assert "nothing sent to %7:" in yes and "HAIL_SOCKET" in yes


def test_a_hold_is_released_from_its_list_only_after_a_yes(world: World) -> None:
    """The holds list (h) releases the highlighted hold on x, after a yes; n does nothing."""
    world.run("whoami", cwd="worker")
    proc = world.run("worker", "hold", "--no-wake", "freeze the schema", cwd="boss")
    assert proc.returncode == 5, proc.stderr
    hold = proc.stdout.strip().removeprefix("id=")

    async def drive() -> list[str]:
        seen = []
        app = _app(world)
        async with app.run_test(size=(200, 50)) as pilot:
            await pilot.press("h", "escape")  # the list closes, releasing nothing
            assert not isinstance(app.screen, HoldsPick)
            await pilot.press("h")
            assert isinstance(app.screen, HoldsPick)
            await pilot.press("x")
            assert isinstance(app.screen, Confirm)
            seen.append(app.screen.question)
            await pilot.press("n")
            seen.append(_status(app))
            await pilot.press("h", "x", "y")
            assert await _until(pilot, lambda: "exit" in _status(app), DONE_WITHIN)
            seen.append(_status(app))
            await pilot.press("q")
        return seen

    question, no, done = asyncio.run(drive())
    assert question == f"release hold {hold} (boss → worker)?"
    assert no.startswith("nothing done")
    assert (world.state / "holds" / hold).exists() == (
        "exit 0" not in done and "exit 5" not in done
    )
    assert "release to worker" in done, done


def test_the_person_writes_replies_broadcasts_a_hold_releases_it_and_reads_the_inbox(
    world: World,
) -> None:
    """The view run as the person runs it (its own terminal, outside every agent), each action a
    real `hail --as person` whose ids and exit status the status line shows."""
    world.run("whoami", cwd="worker")
    asked = world.run("person", "ask", "May I push main?", cwd="worker")
    assert asked.returncode == 0, asked.stderr
    ask = asked.stdout.strip().removeprefix("id=")
    out = world.root / "said.json"
    env = without_agents({**world.env, "PYTHONPATH": str(REPO)})
    done = launch_as_person(
        [sys.executable, "-m", "tests.cli.watch_person_drive", str(out), ask],
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(out.read_text())

    assert "person: 1 unread (i)" in said["title"]
    assert said["nudge person"].startswith("the person's mail is never typed: i reads it")
    # w: an ask to worker, signed by the person; not woken without tmux (exit 5).
    (sent,) = re.findall(r"ask to worker (\S+) — exit 5 \(in the inbox", said["write"])
    assert "from: person\n" in (world.state / "seats" / "worker" / "new" / f"{sent}.md").read_text()
    # r: to the asker, --re its ask.
    assert said["reply to"] == "worker"
    (reply,) = re.findall(r"fyi to worker (\S+) — exit", said["reply"])
    assert f"re: {ask}\n" in (world.state / "seats" / "worker" / "new" / f"{reply}.md").read_text()
    # A broadcast hold: n sends nothing; y files one copy per seat but the person's.
    assert said["hold, no"].startswith("nothing done")
    assert said["hold question"] == "send hold to all: freeze main?"
    (held,) = re.findall(r"hold to all (\S+) \(batch=", said["hold"])
    until = re.findall(
        r"^until: (\S+)$",
        (world.state / "seats" / "worker" / "new" / f"{held}.md").read_text(),
        re.M,
    )
    lasts = (ids.parse_iso(until[0]) or 0) - time.time()
    assert 2 * 3600 - 120 < lasts <= 2 * 3600, "held for the form's --for, 2h"
    # Released from the list: no hold is left in effect.
    assert "release to" in said["release"], said["release"]
    assert not [p for p in (world.state / "holds").iterdir() if p.is_file()]
    # i: the agent's ask, read; the title counts nothing unread any more.
    assert "May I push main?" in said["inbox"]
    assert "person: 0 unread (i)" in said["title after"]
