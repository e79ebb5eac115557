"""Gemini CLI's settings.json [docs/hooks.md "Gemini CLI"]: hooks in the shape Claude Code reads
(`hooks.<Event>` groups of command handlers), so the merge is Claude Code's with Gemini's events
(`data/harness_hooks.json`); and a setting of its own that turns every hook off."""

from __future__ import annotations

import json

from hail.install.formats.base import ConfigFile
from hail.install.formats.claude_settings import ClaudeSettings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.output import CheckLine


def hooks_disabled(text: str) -> bool:
    """Whether the settings turn every hook off (`hooksConfig.enabled: false`; on by default)."""
    try:
        root = json.loads(text) if text.strip() else {}
    except ValueError:
        return False
    config = root.get("hooksConfig") if isinstance(root, dict) else None
    return isinstance(config, dict) and config.get("enabled") is False


class GeminiSettings(ClaudeSettings):
    name = "gemini_settings"

    def current(self, cfg: ConfigFile, text: str, program: str) -> list[CheckLine]:
        lines = super().current(cfg, text, program)
        if hooks_disabled(text):
            lines.append(
                (
                    "FIX",
                    f"{cfg.path} turns every hook off (hooksConfig.enabled is false): hail's hooks"
                    " do not run; remove that setting",
                )
            )
        return lines


FORMAT = GeminiSettings()
