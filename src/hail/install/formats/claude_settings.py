"""Claude Code's settings.json [docs/hooks.md "Claude Code"]: hail's hooks merged among the
person's own settings (`install/claude_json`), for whichever harness reads hooks in its shape
(`hooks.<Event>` groups of command handlers): a harness with such a config names this format."""

from __future__ import annotations

from collections.abc import Mapping

from hail.install.claude_json import merge_claude
from hail.install.formats.base import ConfigFile, HooksFormat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.install.codex_hooks_json import HooksElsewhere


class ClaudeSettings(HooksFormat):
    name = "claude_settings"

    def merge(
        self,
        cfg: ConfigFile,
        text: str,
        program: str,
        env: Mapping[str, str],
        *,
        trust: bool = False,
        elsewhere: HooksElsewhere | None = None,
    ) -> str:
        return merge_claude(text, program=program, harness=cfg.harness)


FORMAT = ClaudeSettings()
