"""`hail doctor`'s lines about the harness files [docs/commands.md "doctor"]: each file's lines
from its format (current or not, by the same merges `hail setup` writes; Codex's trust in them;
the files Home Manager owns), and the hook programs doctor then runs (`hook_check`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from hail.errors import StateError
from hail.install.configs import config_files

if TYPE_CHECKING:
    from hail.install.formats.base import ConfigFile
    from hail.output import CheckLine


def doctor_hook_lines(env: Mapping[str, str]) -> list[CheckLine]:
    """`hail doctor`'s hook lines: (`ok` | `FIX` | `note`, text), one or more per handled file.

    Current ⇒ `ok`; missing, outdated or unreadable ⇒ `FIX` naming the fix; hail hooks Codex has
    not trusted yet ⇒ a `note`. Harnesses whose directory does not exist are not reported.
    """
    try:
        files = config_files(env)
    except StateError as e:
        return [("FIX", e.message)]
    return [line for cfg in files if cfg.installed for line in cfg.format.check(cfg, env)]


def installed_hook_programs(env: Mapping[str, str]) -> list[tuple[ConfigFile, str]]:
    """Each installed config holding hail's hooks, with the program they run (doctor runs it)."""
    found: list[tuple[ConfigFile, str]] = []
    for cfg in config_files(env):
        program = cfg.format.hook_program(cfg) if cfg.installed else None
        if program is not None:
            found.append((cfg, program))
    return found
