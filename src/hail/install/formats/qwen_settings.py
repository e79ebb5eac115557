"""Qwen Code's settings.json [docs/hooks.md "Qwen Code"]: hail's hooks in Claude Code's shape and
under its event names (`data/harness_hooks.json`), and one rule of Qwen's own permission system,
`"permissions":{"allow":["Bash(hail *)"]}`, so the agent's `hail` commands run without its
classifier's call or a confirmation dialog (in its default Auto mode both stand between the agent
and any command it has not been allowed).

The rule is added once, beside the person's own rules, and never removed: a person who takes it
out gets it back from the next `hail setup`, as with the hooks.
"""

from __future__ import annotations

import json
from typing import cast

from hail.install.claude_json import EXPECTED, merge_claude, parse_json
from hail.install.formats.base import ConfigFile, Wanted
from hail.install.formats.claude_settings import ClaudeSettings
from hail.install.merge_rule import MergeError

#: Qwen's rule for the shell commands hail's skill has the agent run (`hail …`, by name).
ALLOW_RULE = "Bash(hail *)"


def allow_hail(text: str) -> str:
    """The settings' text with ALLOW_RULE among `permissions.allow`; unchanged when it is there.
    MergeError when `permissions` or its `allow` has another shape than Qwen's."""
    loaded, root = parse_json(text)
    permissions = root.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise MergeError('"permissions" is not an object', parse=False, expected=EXPECTED)
    allow = cast(dict[str, object], permissions).setdefault("allow", [])
    if not isinstance(allow, list):
        raise MergeError('"permissions.allow" is not an array', parse=False, expected=EXPECTED)
    if ALLOW_RULE in allow:
        return text
    allow.append(ALLOW_RULE)
    if loaded is None:
        return json.dumps(root, indent=2, ensure_ascii=False) + "\n"
    return loaded.dumps(root) + "\n"


class QwenSettings(ClaudeSettings):
    name = "qwen_settings"
    manages = "hail hooks and hail's permission rule"

    def merge(self, cfg: ConfigFile, text: str, wanted: Wanted) -> str:
        return allow_hail(merge_claude(text, program=wanted.program, harness=cfg.harness))

    def ok_line(self, cfg: ConfigFile, where: str) -> str:
        return f"{cfg.name} hooks and {ALLOW_RULE} current ({where})"


FORMAT = QwenSettings()
