"""Everything a working session leaves in the state is in docs/files.md: each file and directory in
"Layout", each header of a message file in "Message file", each field of a record in "Records".
The state is made by the installed `hail` (sends, hooks, a reply, a hold, a wait, gc), then read as
it is on disk."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from hail.message import parse
from hail.store import fs
from tests.support.docs import documented, documents_header, files_section
from tests.support.entry import hail_bin
from tests.support.procs import wait_until
from tests.support.world import World

DAY = 86400


def prompt(text: str) -> str:
    return json.dumps({"session_id": "0193a1b2-c3d4", "hook_event_name": "x", "prompt": text})


def a_working_session(world: World) -> None:
    ask = world.send("worker", "ask", "review this", body="the body")
    hook = ("deliver", "--format", "claude")
    assert world.run(*hook, cwd="worker", stdin=prompt("a person's prompt")).returncode == 0
    world.send("boss", "fyi", "--re", ask, "--scope", "src/x", "GO: fine", cwd="worker")
    world.send("worker", "hold", "--for", "1h", "--scope", "landing", "HOLD landing")
    world.send("worker", "ask", "one more", body="for the Stop hook")
    stop = world.run(*hook, "--event", "Stop", cwd="worker", stdin=prompt("x"))
    assert stop.stdout.startswith('{"decision":"block"')
    assert world.run("inbox", cwd="boss").returncode == 0
    # Read mail old enough for gc to archive it.
    cur = world.state / "seats" / "worker" / "cur"
    old = time.time() - 3 * DAY
    for path in cur.iterdir():
        os.utime(path, (old, old))
    assert world.run("gc", "--days", "1").returncode == 0


def with_a_wait(world: World) -> list[Path]:
    """The files of the state while `await --reply` waits (its record exists only then)."""
    later = world.send("worker", "ask", "waited on", body="b")
    waiting = subprocess.Popen(
        [hail_bin(), "await", "--reply", later, "--timeout", "20"],
        cwd=world.root / "boss",
        env=world.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_until(lambda: any((world.state / "waits").glob("*")))
        return sorted(world.state.rglob("*"))
    finally:
        waiting.kill()
        waiting.wait()


def test_every_path_a_session_leaves_in_the_state_is_in_the_layout(world: World) -> None:
    a_working_session(world)
    paths = with_a_wait(world)
    relative = [str(p.relative_to(world.state)) for p in paths]
    for wanted in ("archive/index", "holds", "replies", "waits", "seats/worker/stops"):
        assert any(r == wanted or r.startswith(wanted + "/") for r in relative), wanted
    assert [r for r in relative if not documented(r)] == []


def test_every_header_and_record_field_on_disk_is_on_the_files_page(world: World) -> None:
    a_working_session(world)
    paths = with_a_wait(world)
    headers = {
        key
        for p in paths
        if p.suffix == ".md" and p.is_file()
        for key in parse(p.read_text()).headers
    }
    assert {"chain", "re", "scope", "until", "ask"} <= headers
    assert sorted(k for k in headers if not documents_header(k)) == []
    fields: set[str] = set()
    for p in paths:
        where = p.relative_to(world.state).parts
        if p.is_file() and (where[0] in ("holds", "waits") or "pending" in where):
            fields |= set(fs.parse_record(p.read_text()))
    assert {"expires", "epoch", "waiter"} <= fields
    text = files_section("Records")
    assert sorted(f for f in fields if f"`{f}`" not in text) == []
