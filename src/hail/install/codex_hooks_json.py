"""Codex's hooks.json beside its config.toml, where Codex reads hooks too [docs/hooks.md "Codex"]:
the merge of hail's hooks into it (Claude Code's JSON shape, merged as settings.json is), whether
it holds any of hail's hooks (they stay there then), and the handlers config.toml's trust must
name. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from hail.harnesses.codex import HARNESS as CODEX
from hail.install.claude_json import claude_handlers, merge_json, parse_json
from hail.install.codex_trust import CodexHook, wanted_codex_hooks
from hail.install.hook_table import DEFAULT_PROGRAM, wanted_hooks
from hail.install.recognise import holds_hail

#: Its file name, beside config.toml (Home Manager's programs.codex.hooks writes it too).
CODEX_HOOKS_JSON = "hooks.json"


def merge_codex_json(text: str, program: str = DEFAULT_PROGRAM) -> str:
    """Merge hail's hooks into the text of Codex's hooks.json: Codex's groups, in Claude Code's
    JSON shape (`{"hooks": {"<Event>": [groups]}}`), kept as `merge_claude` keeps settings.json."""
    return merge_json(CODEX.name, text, wanted_hooks(CODEX.name, program), program)


@dataclass(frozen=True)
class HooksElsewhere:
    """hail's Codex hooks kept in hooks.json beside config.toml [docs/hooks.md "Codex"]: that
    file's text, and its path as Codex spells it in the trust keys it files in config.toml."""

    text: str
    trust_path: str

    def present(self, program: str) -> list[CodexHook]:
        """hail's wanted handlers in the file, with their places (none when it is unreadable)."""
        try:
            root = json.loads(self.text) if self.text.strip() else {}
        except (ValueError, RecursionError):
            return []
        hooks = root.get("hooks") if isinstance(root, dict) else None
        if not isinstance(hooks, dict):
            return []
        return list(wanted_codex_hooks(hooks, program, claude_handlers))


def codex_json_holds_hail(text: str, program: str = DEFAULT_PROGRAM) -> bool:
    """Whether the text of Codex's hooks.json holds any of hail's hooks (then hail's hooks go
    there, not into config.toml). Raises MergeError for a text that is no JSON object."""
    _, root = parse_json(text)
    hooks = root.get("hooks")
    return isinstance(hooks, dict) and holds_hail(
        CODEX.name, cast(Mapping[str, object], hooks), program, claude_handlers
    )
