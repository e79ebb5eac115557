"""hail's opencode plugin: the file setup writes into opencode's plugin folder [docs/hooks.md
"opencode"].

opencode has no command hooks; it loads JavaScript plugins. hail's plugin (`data/opencode/hail.js`)
implements nothing of the store: each of its hooks runs the `hail` command of the hook table
(`data/harness_hooks.json`, harness `opencode`) and hands what it printed to opencode. setup fills
the template with the program and those commands, so the file is hail's whole, like Codex's rule.
Pure, apart from reading the template shipped beside this module.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from hail.harnesses import opencode
from hail.harnesses.opencode import HARNESS as OPENCODE
from hail.install.hook_table import DEFAULT_PROGRAM, hook_specs

TEMPLATE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", OPENCODE.name, "hail.js"
)
PROGRAM_SLOT = '"@HAIL_PROGRAM@"'
HOOKS_SLOT = "@HAIL_HOOKS@"
#: The plugin's file name in opencode's plugin folder.
FILE_NAME = "hail.js"


def plugin_dir(env: Mapping[str, str]) -> str:
    """`$XDG_CONFIG_HOME/opencode/plugins`, else `~/.config/opencode/plugins`: where opencode
    loads a user's plugins from."""
    config = env.get("XDG_CONFIG_HOME") or os.path.join(env.get("HOME", ""), ".config")
    return os.path.join(config, OPENCODE.name, opencode.PLUGINS)


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
