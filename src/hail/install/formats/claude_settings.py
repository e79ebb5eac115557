"""Claude Code's settings.json [docs/hooks.md "Claude Code"]: hail's hooks merged among the
person's own settings (`install/claude_json`), for whichever harness reads hooks in its shape
(`hooks.<Event>` groups of command handlers): a harness with such a config names this format."""

from __future__ import annotations

from hail.install.claude_json import merge_claude
from hail.install.formats.base import ConfigFile, HooksFormat, Wanted


class ClaudeSettings(HooksFormat):
    name = "claude_settings"

    def merge(self, cfg: ConfigFile, text: str, wanted: Wanted) -> str:
        return merge_claude(text, program=wanted.program, harness=cfg.harness)


FORMAT = ClaudeSettings()
