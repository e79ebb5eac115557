"""Gemini CLI's settings.json: where it is, and hail's hooks merged into it [docs/hooks.md
"Gemini CLI"].

Gemini CLI reads hooks in the shape Claude Code does (`hooks.<Event>` groups of command handlers),
so the merge is Claude Code's with Gemini's events (`data/harness_hooks.json`). Pure.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from hail.harnesses import gemini
from hail.harnesses.gemini import HARNESS as GEMINI
from hail.install.claude_json import merge_claude
from hail.install.hook_table import DEFAULT_PROGRAM


def settings_dir(env: Mapping[str, str]) -> str:
    """`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini` (user settings; project and system settings
    are left to their owners)."""
    return os.path.join(env.get(gemini.HOME_VARIABLE) or env.get("HOME", ""), gemini.CONFIG_DIR)


def merge_gemini(text: str, program: str = DEFAULT_PROGRAM) -> str:
    """Merge hail's hooks into the text of Gemini CLI's settings.json (MergeError as for Claude's)."""
    return merge_claude(text, program=program, harness=GEMINI.name)


def hooks_disabled(text: str) -> bool:
    """Whether the settings turn every hook off (`hooksConfig.enabled: false`; on by default)."""
    try:
        root = json.loads(text) if text.strip() else {}
    except ValueError:
        return False
    config = root.get("hooksConfig") if isinstance(root, dict) else None
    return isinstance(config, dict) and config.get("enabled") is False
