"""`hail whoami --json`: the seat and the mailboxes its pane's hooks read, in the form a program
reads (opencode's plugin watches each of them) [docs/commands.md "whoami"]. Paths come whole,
a space included; the pane's sub-seat is named before its mailbox exists."""

from __future__ import annotations

import json

from tests.support.world import World


def test_whoami_json_names_every_mailbox_of_the_pane_whatever_the_paths_hold(world: World) -> None:
    state = world.root / "state with space"
    env = {"XDG_STATE_HOME": str(state), "TMUX_PANE": "%7"}
    proc = world.run("whoami", "--json", cwd="worker", env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("\n") == 1, "one line"
    who = json.loads(proc.stdout)
    assert who["state"] == str(state / "hail")
    assert who["seats"] == str(state / "hail" / "seats")
    assert (who["seat"], who["mailbox"]) == ("worker", "worker")
    assert who["mailboxes"] == ["worker@%7", "worker"], "the sub-seat a later send may make"


def test_whoami_json_run_by_codex_names_only_the_seat(world: World) -> None:
    env = {"TMUX_PANE": "%7", "CODEX_THREAD_ID": "t-1"}
    proc = world.run("whoami", "--json", cwd="worker", env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["mailboxes"] == ["worker"]
