"""hail's Codex rule as the pinned Codex's own checker reads it (docs/hooks.md "Codex rule"):
`codex execpolicy check --resolve-host-executables`, the matching Codex applies to a command its
model runs, on the rules file `hail setup` wrote.

Codex matches a command that names its program by a path (`./hail`, `/tmp/x/hail`) against the
rules for the path's basename, so a rule for `hail` with no `host_executable()` would let any
program of that name out of the sandbox: one the model wrote into its writable workspace too.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .clients import execpolicy
from .world import World

#: Verbs that reach a pane other than through hail's own checks, or edit the agents' configs.
PROMPTED = {
    "read": ["read", "%1", "1000"],
    "type": ["type", "%1", "just land"],
    "keys": ["keys", "%1", "Enter"],
    "setup": ["setup", "--yes"],
}
#: hail's programs that are no model's commands: what ssh runs for another machine's hail (a
#: request on its stdin files as a seat of that machine), and Claude Code's waiter.
FORBIDDEN = {
    "remote-peer": ["remote-peer"],
    "listen": ["listen", "--format", "claude"],
}
#: What stays allowed: sends, receipts, the inbox and the other verbs.
ALLOWED = (
    ["boss", "ask", "review the parser", "a body\nof two lines"],
    ["send", "boss", "fyi", "landed"],
    ["inbox"],
    ["sent", "1130T211020-e9e0"],
    ["await", "1130T211020-e9e0"],
    ["seats"],
    ["whoami"],
    ["doctor"],
    ["show", "1130T211020-e9e0"],
)


def verdict(world: World, argv: list[str], cwd: Path | None = None) -> str | None:
    rules = world.home / ".codex" / "rules" / "hail.rules"
    return execpolicy(
        world.client_bin, [rules], argv, cwd=cwd or world.seat["worker"], home=world.home
    )


def test_the_rule_lets_out_the_installed_hail_and_no_other_program_of_that_name(
    world: World,
) -> None:
    installed = world.tool_bin / "hail"  # the hail setup ran as, named by the hooks
    real = Path(os.path.realpath(installed))
    assert real != installed
    assert verdict(world, ["hail", "inbox"]) == "allow"
    assert verdict(world, [str(installed), "inbox"]) == "allow"
    assert verdict(world, [str(real), "inbox"]) == "allow"

    # A program the model wrote under the same name, in its workspace or anywhere else.
    fake = world.seat["worker"] / "hail"
    fake.write_text("#!/bin/sh\nid\n")
    fake.chmod(0o755)
    assert verdict(world, ["./hail", "-c", "id"]) is None
    assert verdict(world, [str(fake), "-c", "id"]) is None
    assert verdict(world, ["/tmp/x/hail", "-c", "id"]) is None
    # Codex compares the path as written: a link to the real hail elsewhere is another path.
    link = world.root / "elsewhere" / "hail"
    link.parent.mkdir()
    link.symlink_to(real)
    assert verdict(world, [str(link), "inbox"]) is None


@pytest.mark.parametrize("verb", sorted(PROMPTED))
def test_verbs_that_reach_any_pane_or_edit_configs_ask_first(world: World, verb: str) -> None:
    args = PROMPTED[verb]
    assert verdict(world, ["hail", *args]) == "prompt"
    assert verdict(world, [str(world.tool_bin / "hail"), *args]) == "prompt"
    assert verdict(world, ["./hail", *args]) is None


@pytest.mark.parametrize("verb", sorted(FORBIDDEN))
def test_what_ssh_and_claude_codes_hooks_run_is_never_let_out_for_a_model(
    world: World, verb: str
) -> None:
    args = FORBIDDEN[verb]
    assert verdict(world, ["hail", *args]) == "forbidden"
    assert verdict(world, [str(world.tool_bin / "hail"), *args]) == "forbidden"
    assert verdict(world, ["hail", "api", "ask", verb]) == "allow", "a headline may say it"


def test_everything_else_hail_does_runs_outside_unprompted(world: World) -> None:
    for args in ALLOWED:
        assert verdict(world, ["hail", *args]) == "allow", args
