"""hail's Codex rule [docs/hooks.md "Codex rule"]: a rules file of hail's own that lets the hail
Codex's hooks run out of its sandbox, written whole from the template `data/hail.rules` (the file
the Nix module fills the same way) with that hail's paths."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from hail.errors import StateError
from hail.harnesses import codex
from hail.install import managed
from hail.install.formats.base import ConfigFile, OwnFile, Wanted
from hail.install.formats.codex_config import FORMAT as CODEX_CONFIG
from hail.install.program import hook_program, rule_paths

#: hail's Codex rule, shipped as a file of its own so the Nix module installs the same text.
RULES_SOURCE = Path(__file__).resolve().parents[2] / "data" / "hail.rules"
#: Where the rule lists the paths of the hail it lets out; the Nix module fills it the same way.
RULES_PATHS = "@HAIL_PATHS@"
#: What a path in the rule may not hold: it is written as a Starlark string, verbatim.
RULES_PATH_UNSAFE = frozenset('"\\') | frozenset(map(chr, range(32))) | {chr(127)}
#: After writing hail's Codex rule: Codex reads rules when it starts.
NEXT_STEP_RULE = "a new Codex session may run hail outside its sandbox"


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


class CodexRule(OwnFile):
    name = "codex_rule"
    manages = "hail's rule"

    def merge(self, cfg: ConfigFile, text: str, wanted: Wanted) -> str:
        # hail's own file: its whole text is hail's, letting out the hail the hooks run.
        return codex_rules(rule_paths(wanted.program, wanted.env))

    def program_in(self, cfg: ConfigFile, env: Mapping[str, str]) -> str:
        """The hail Codex's hooks run, else the one setup would name now."""
        for path, parse in CODEX_CONFIG.hooks_at(cfg.directory / codex.CONFIG):
            program = managed.hail_program(cfg.harness, path, parse)
            if program is not None:
                return program
        return hook_program(env, sys.argv[0])

    def ok_line(self, cfg: ConfigFile, where: str) -> str:
        return f"Codex may run hail outside its sandbox (rule {where})"

    def outdated(self, cfg: ConfigFile) -> str:
        return (
            f"hail's Codex rule is missing or outdated in {cfg.path}: Codex runs hail in its"
            " sandbox, where it cannot send: run hail setup"
        )

    def is_current(self, text: str) -> bool:
        return rule_paths_in(text) is not None  # the store path is the module's

    def managed_outdated(self, owned: Path) -> str:
        return (
            f"hail's Codex rule is missing or outdated in {owned}, which Home Manager owns: "
            + managed.USE_THE_MODULE
        )

    def next_step(self, cfg: ConfigFile, trust: bool) -> str:
        return NEXT_STEP_RULE


FORMAT = CodexRule()
