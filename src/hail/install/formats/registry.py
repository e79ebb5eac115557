"""The config formats, written once, and each format by name (what a harness's `ConfigPlace`
names): one module of this package per format, holding its `FORMAT`."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.install.formats.base import ConfigFormat

#: Every format hail edits: each is a module of this package holding its `FORMAT`.
NAMES = (
    "claude_settings",
    "codex_config",
    "codex_hooks",
    "codex_rule",
    "copilot_hooks",
    "gemini_settings",
    "opencode_plugin",
    "qwen_settings",
)


def get(name: str) -> ConfigFormat:
    """The format `name`; KeyError for a name hail does not know."""
    if name not in NAMES:
        raise KeyError(name)
    module = __import__(f"hail.install.formats.{name}", fromlist=["FORMAT"])
    found: ConfigFormat = module.FORMAT
    return found
