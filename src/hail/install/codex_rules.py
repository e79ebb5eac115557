"""hail's Codex rule [docs/hooks.md "Codex rule"]: a rules file of hail's own that lets the hail
the hooks run out of Codex's sandbox, written whole from the template `data/hail.rules` (the file
the Nix module fills the same way) with that hail's paths.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from hail.errors import StateError

#: hail's Codex rule, shipped as a file of its own so the Nix module installs the same text.
RULES_SOURCE = Path(__file__).resolve().parent.parent / "data" / "hail.rules"
#: Where the rule lists the paths of the hail it lets out; the Nix module fills it the same way.
RULES_PATHS = "@HAIL_PATHS@"
#: What a path in the rule may not hold: it is written as a Starlark string, verbatim.
RULES_PATH_UNSAFE = frozenset('"\\') | frozenset(map(chr, range(32))) | {chr(127)}
#: Where Codex finds it: every `*.rules` file in `rules/` beside its config is read at startup.
RULES_NAME = "hail.rules"


def _rules_template() -> str:
    try:
        return RULES_SOURCE.read_text(encoding="utf-8")
    except OSError as e:
        raise StateError(
            f"cannot read hail's Codex rule {RULES_SOURCE}: {e.strerror or e}; reinstall hail"
        ) from None


def codex_rules(paths: Sequence[str]) -> str:
    """hail's Codex rule file, letting out the hail at `paths` (and a bare `hail`).

    Codex refuses a relative path, and a path that cannot be written verbatim as a string is left
    out: that hail then leaves the sandbox only by its bare name, never under another path.
    """
    listed = ", ".join(f'"{p}"' for p in paths if _rule_path_ok(p))
    return _rules_template().replace(RULES_PATHS, listed)


def _rule_path_ok(path: str) -> bool:
    return os.path.isabs(path) and not RULES_PATH_UNSAFE.intersection(path)


def rule_paths_in(text: str) -> list[str] | None:
    """The paths a rules file lets out when it is hail's current rule for them, else None."""
    head, _, tail = _rules_template().partition(RULES_PATHS)
    if len(text) < len(head) + len(tail) or not (text.startswith(head) and text.endswith(tail)):
        return None
    listed = text[len(head) : len(text) - len(tail)]
    paths = listed[1:-1].split('", "') if listed else []
    return paths if codex_rules(paths) == text else None
