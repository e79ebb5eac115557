"""hail's opencode plugin: the file setup writes into opencode's plugin folder [docs/hooks.md
"opencode"].

opencode has no command hooks; it loads JavaScript plugins. hail's plugin (`data/opencode/hail.js`)
implements nothing of the store: each of its hooks runs the `hail` command of the hook table
(`data/harness_hooks.json`, harness `opencode`) and hands what it printed to opencode. setup fills
the template with the program and those commands, so the file is hail's whole, like Codex's rule.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from hail.errors import StateError
from hail.harnesses.opencode import HARNESS as OPENCODE
from hail.install import managed
from hail.install.formats.base import ConfigFile, OwnFile, Wanted
from hail.install.hook_table import DEFAULT_PROGRAM, hook_specs
from hail.install.program import hook_program
from hail.install.write import read

TEMPLATE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "data",
    OPENCODE.name,
    "hail.js",
)
PROGRAM_SLOT = '"@HAIL_PROGRAM@"'
HOOKS_SLOT = "@HAIL_HOOKS@"


def template() -> str:
    with open(TEMPLATE, encoding="utf-8") as f:
        return f.read()


def hooks_literal() -> str:
    """The hook table's opencode rows as the plugin's `HOOKS` object: event → hail's arguments,
    as Nix's `builtins.toJSON` writes it (sorted keys, compact), so the Home Manager module's
    plugin (`nix/hooks.nix`) is this very text."""
    table = {spec.event: list(spec.args) for spec in hook_specs(OPENCODE.name)}
    return json.dumps(table, sort_keys=True, separators=(",", ":"))


def render(program: str = DEFAULT_PROGRAM) -> str:
    """The plugin as setup writes it, running `program`.

    Each slot is filled once, in one pass over the template (as Nix's `builtins.replaceStrings`
    does), so a program path that itself holds a slot's marker is written as it is.
    """
    hooks = hooks_literal()
    parts = (part.replace(HOOKS_SLOT, hooks) for part in template().split(PROGRAM_SLOT))
    return json.dumps(program).join(parts)


def program_in(text: str) -> str | None:
    """The program a plugin file runs when it is hail's current plugin for it, else None."""
    head, _, _ = template().partition(PROGRAM_SLOT)
    if not text.startswith(head):
        return None
    try:
        program, _ = json.JSONDecoder().raw_decode(text, len(head))
    except ValueError:
        return None
    return program if isinstance(program, str) and render(program) == text else None


class OpencodePlugin(OwnFile):
    name = "opencode_plugin"
    manages = "hail's plugin"

    def merge(self, cfg: ConfigFile, text: str, wanted: Wanted) -> str:
        return render(wanted.program)  # hail's own file: its whole text is hail's

    def program_in(self, cfg: ConfigFile, env: Mapping[str, str]) -> str:
        """The hail the plugin runs, else the one setup would name now."""
        try:
            text = read(cfg.path)
        except StateError:
            text = ""
        return program_in(text) or hook_program(env, sys.argv[0])

    def ok_line(self, cfg: ConfigFile, where: str) -> str:
        return f"opencode plugin current ({where})"

    def outdated(self, cfg: ConfigFile) -> str:
        return f"hail's opencode plugin is missing or outdated in {cfg.path}: run hail setup"

    def is_current(self, text: str) -> bool:
        return program_in(text) is not None

    def managed_outdated(self, owned: Path) -> str:
        return f"hail's opencode plugin is outdated in {owned}: {managed.USE_THE_MODULE}"


FORMAT = OpencodePlugin()
