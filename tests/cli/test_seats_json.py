"""`hail seats` with its CONTEXT and ON columns, and `hail seats --json` (docs/commands.md
"seats"), through the installed `hail` without tmux: the agents are unknown, the mailboxes' rows
stand, a malformed config.toml is said with its fix and shows no figure."""

from __future__ import annotations

import json

from tests.support.world import World

ROW_KEYS = [
    *("mailbox", "seat", "agents", "panes", "jump", "route", "state", "hooks", "unread"),
    *("last_hook", "holds", "root", "root_gone"),
]


def test_the_table_adds_context_and_on_after_the_columns_it_had(world: World) -> None:
    world.send("worker", "ask", "one unread")
    proc = world.run("seats")
    assert (proc.returncode, proc.stderr) == (0, "")
    head, *rows = proc.stdout.splitlines()
    assert head.split() == [
        *("SEAT", "AGENTS", "STATE", "ROUTE", "UNREAD", "HOOK", "ROOT", "CONTEXT", "ON")
    ]
    worker = next(r.split() for r in rows if r.startswith("worker "))
    assert worker[1:5] == ["?", "-", "-", "1"] and worker[-2:] == ["-", "-"]


def test_json_gives_every_row_as_watch_does(world: World) -> None:
    hold = world.send("worker", "hold", "--for", "1h", "HOLD: no landing")
    proc = world.run("seats", "--json")
    assert (proc.returncode, proc.stderr) == (0, "")
    document = json.loads(proc.stdout)
    assert list(document) == ["version", "time", "seats"] and document["version"] == 1
    rows = {r["mailbox"]: r for r in document["seats"]}
    assert list(rows["worker"]) == ROW_KEYS
    assert (rows["worker"]["route"], rows["worker"]["state"], rows["worker"]["agents"]) == (
        "?",
        "?",
        [],
    )
    assert rows["worker"]["holds"] == [hold] and rows["worker"]["root"] == str(
        world.root / "worker"
    )
    watched = json.loads(world.run("watch", "--json").stdout)
    assert {r["mailbox"]: r for r in watched["seats"]} == rows, "one row builder for both"
    only = json.loads(world.run("seats", "worker", "--json").stdout)
    assert [r["mailbox"] for r in only["seats"]] == ["worker"]


def test_a_malformed_config_is_said_and_the_table_stands(world: World) -> None:
    config = world.root / "home" / ".config" / "hail" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[gauge.prices.m]\ninput = -1\noutput = 2\n")
    world.send("worker", "fyi", "hello")
    proc = world.run("seats")
    assert proc.returncode == 0 and "worker " in proc.stdout
    assert proc.stderr == (
        f"hail: {config}: gauge.prices.m.input is -1, not a price in USD per million tokens;"
        ' fix it or move it aside (docs/gauge.md "Config"); until then no context is shown\n'
    )
