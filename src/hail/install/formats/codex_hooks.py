"""Codex's hooks.json beside its config.toml [docs/hooks.md "Codex"]: once it holds hail's hooks,
they stay there (`codex_config` finds it and keeps config.toml free of them). Claude Code's JSON
shape, merged as settings.json is (`install/codex_hooks_json`); Codex trusts its hooks by the
records config.toml keeps."""

from __future__ import annotations

from hail.install.codex_hooks_json import merge_codex_json
from hail.install.formats.base import ConfigFile, HooksFormat, Wanted

#: The note when `--trust-codex` recorded the trust itself, so no `/hooks` review is due.
NEXT_STEP_TRUSTED = "hail's hooks are trusted; a new session picks them up"


class CodexHooks(HooksFormat):
    name = "codex_hooks"

    def merge(self, cfg: ConfigFile, text: str, wanted: Wanted) -> str:
        return merge_codex_json(text, wanted.program)

    def next_step(self, cfg: ConfigFile, trust: bool) -> str:
        return NEXT_STEP_TRUSTED if trust else super().next_step(cfg, trust)


FORMAT = CodexHooks()
