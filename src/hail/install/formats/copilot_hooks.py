"""Copilot CLI's hooks file of hail's own: `~/.copilot/hooks/hail.json` [docs/hooks.md "Copilot
CLI"].

Copilot CLI reads every `*.json` of its `hooks` folder (`{"version":1,"hooks":{event:[handler]}}`,
a handler `{"type":"command","bash":…,"timeoutSec":…}`), so hail keeps its hooks in a file of its
own there and writes it whole, like Codex's rule: the user's hooks files and `settings.json` are
never touched. The hooks are the hook table's `copilot` rows (`data/harness_hooks.json`); a file
is hail's current one for a program when it is exactly what `render` writes for it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

from hail.errors import StateError
from hail.harnesses.copilot import HARNESS as COPILOT
from hail.install import managed
from hail.install.formats.base import ConfigFile, OwnFile, Wanted
from hail.install.hook_table import DEFAULT_PROGRAM, hook_specs
from hail.install.program import hook_program
from hail.install.write import read

#: The version of the hooks file format Copilot CLI 1.0.102 reads (it refuses any other).
VERSION = 1


def hooks(program: str = DEFAULT_PROGRAM) -> dict[str, list[dict[str, object]]]:
    """hail's hooks running `program`, as Copilot CLI reads them: event → its handlers."""
    table: dict[str, list[dict[str, object]]] = {}
    for spec in hook_specs(COPILOT.name):
        handler: dict[str, object] = {"type": "command", "bash": spec.command(program)}
        table.setdefault(spec.event, []).append(handler | dict(spec.handler))
    return table


def render(program: str = DEFAULT_PROGRAM) -> str:
    """The file as setup writes it, running `program`."""
    return json.dumps({"version": VERSION, "hooks": hooks(program)}, indent=2) + "\n"


def program_in(text: str) -> str | None:
    """The program a hooks file runs when it is hail's current file for it, else None."""
    try:
        doc = json.loads(text)
        first = doc["hooks"][hook_specs(COPILOT.name)[0].event][0]["bash"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    if not isinstance(first, str):
        return None
    args = " " + " ".join(hook_specs(COPILOT.name)[0].args)
    program = first.removesuffix(args)
    return program if program != first and render(program) == text else None


class CopilotHooks(OwnFile):
    name = "copilot_hooks"
    manages = "hail's hooks file"

    def merge(self, cfg: ConfigFile, text: str, wanted: Wanted) -> str:
        return render(wanted.program)  # hail's own file: its whole text is hail's

    def program_in(self, cfg: ConfigFile, env: Mapping[str, str]) -> str:
        """The hail the file runs, else the one setup would name now."""
        return self.hook_program(cfg) or hook_program(env, sys.argv[0])

    def hook_program(self, cfg: ConfigFile) -> str | None:
        try:
            return program_in(read(cfg.path))
        except StateError:
            return None

    def ok_line(self, cfg: ConfigFile, where: str) -> str:
        return f"Copilot CLI hooks current ({where})"

    def outdated(self, cfg: ConfigFile) -> str:
        return f"hail's Copilot CLI hooks file is missing or outdated in {cfg.path}: run hail setup"

    def is_current(self, text: str) -> bool:
        return program_in(text) is not None

    def managed_outdated(self, owned: Path) -> str:
        return f"hail's Copilot CLI hooks file is outdated in {owned}: {managed.USE_THE_MODULE}"


FORMAT = CopilotHooks()
