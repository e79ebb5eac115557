"""hail's Codex rule as `hail setup` and the Home Manager module write it: the template in
src/hail/data/hail.rules with the paths of the hail it lets out of Codex's sandbox (docs/hooks.md
"Codex rule")."""

from __future__ import annotations

import os
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[2] / "src" / "hail" / "data" / "hail.rules"


def rules_for(*paths: str) -> str:
    """The rule file letting out the hail at these paths, in this order."""
    listed = ", ".join(f'"{p}"' for p in paths)
    return TEMPLATE.read_text().replace("@HAIL_PATHS@", listed)


def host_executable_line(*paths: str) -> str:
    listed = ", ".join(f'"{p}"' for p in paths)
    return f'host_executable(name = "hail", paths = [{listed}])\n'


def paths_of(program: str) -> tuple[str, ...]:
    """A hail at `program` and the file it links to, when that is another path."""
    real = os.path.realpath(program)
    return (program,) if real == program else (program, real)
