"""The harness files hail manages, where they are, and their text as setup reads it.

Claude Code's settings.json (in `~/.claude`, and in `$CLAUDE_CONFIG_DIR` when that is another
directory), Codex's config.toml and hail's Codex rule in `$CODEX_HOME` (default `~/.codex`), and
Codex's hooks.json beside config.toml, which holds hail's Codex hooks when it already has them,
Gemini CLI's settings.json (`~/.gemini`, or under `$GEMINI_CLI_HOME`) and hail's opencode plugin in
opencode's plugin folder.
"""

from __future__ import annotations

import difflib
import enum
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hail.errors import StateError
from hail.harnesses import claude, codex, gemini
from hail.harnesses.claude import HARNESS as CLAUDE
from hail.harnesses.codex import HARNESS as CODEX
from hail.harnesses.gemini import HARNESS as GEMINI
from hail.harnesses.opencode import HARNESS as OPENCODE
from hail.install import gemini_settings, opencode_plugin
from hail.install.codex_hooks_json import CODEX_HOOKS_JSON
from hail.install.codex_rules import RULES_NAME
from hail.install.hook_table import Harness
from hail.install.write import Seen, look


class ConfigKind(enum.Enum):
    """Which harness file a `ConfigFile` is: how setup merges it and what doctor says of it."""

    #: Claude Code's settings.json: hail's hooks merged in.
    CLAUDE_SETTINGS = enum.auto()
    #: Codex's config.toml: hail's hooks merged in, or only their trust when hooks.json has them.
    CODEX_CONFIG = enum.auto()
    #: Codex's hooks.json beside config.toml, once it holds hail's hooks.
    CODEX_HOOKS_JSON = enum.auto()
    #: hail's Codex rule: a file of hail's own, written whole.
    CODEX_RULE = enum.auto()
    #: Gemini CLI's settings.json: hail's hooks merged in, in Claude Code's shape.
    GEMINI_SETTINGS = enum.auto()
    #: hail's opencode plugin: a file of hail's own, written whole.
    OPENCODE_PLUGIN = enum.auto()

    @property
    def holds_hooks(self) -> bool:
        """A config hail merges its hooks into (not one of hail's own files)."""
        return self not in (ConfigKind.CODEX_RULE, ConfigKind.OPENCODE_PLUGIN)


@dataclass(frozen=True)
class ConfigFile:
    """One harness file hail manages: a config holding hail's hooks, or Codex's rule file."""

    name: str
    harness: Harness
    directory: Path
    path: Path
    #: How Codex spells this config's path in its trust keys (unused for Claude).
    trust_path: str
    kind: ConfigKind

    @property
    def what(self) -> str:
        if self.kind is ConfigKind.OPENCODE_PLUGIN:
            return "hail's plugin"
        return "hail hooks" if self.kind.holds_hooks else "hail's rule"

    @property
    def installed(self) -> bool:
        """A harness is handled only when its config directory exists."""
        return self.directory.is_dir()


def config_files(env: Mapping[str, str]) -> list[ConfigFile]:
    """The configs setup and doctor handle, in the order they report them.

    `~/.claude/settings.json`, then `$CLAUDE_CONFIG_DIR/settings.json` when that names another
    directory (sessions on one machine may use either), then `$CODEX_HOME/config.toml`
    (default `~/.codex/config.toml`).
    """
    home = env.get("HOME", "")
    if not home:
        raise StateError("HOME is not set; set it to your home directory, then rerun hail setup")
    claude_dir = Path(home) / claude.CONFIG_DIR
    dirs = [claude_dir]
    other = env.get(claude.CONFIG_DIR_VARIABLE, "")
    if other and os.path.realpath(other) != os.path.realpath(claude_dir):
        dirs.append(Path(other).absolute())
    files = [
        ConfigFile(
            CLAUDE.title,
            CLAUDE.name,
            d,
            d / claude.SETTINGS,
            str(d / claude.SETTINGS),
            ConfigKind.CLAUDE_SETTINGS,
        )
        for d in dirs
    ]
    return files + _codex_files(env, home) + _gemini_and_opencode_files(env)


def _gemini_and_opencode_files(env: Mapping[str, str]) -> list[ConfigFile]:
    gemini_dir = Path(gemini_settings.settings_dir(env))
    plugins = Path(opencode_plugin.plugin_dir(env))
    return [
        ConfigFile(
            GEMINI.title,
            GEMINI.name,
            gemini_dir,
            gemini_dir / gemini.SETTINGS,
            "",
            ConfigKind.GEMINI_SETTINGS,
        ),
        ConfigFile(
            OPENCODE.title,
            OPENCODE.name,
            plugins.parent,
            plugins / opencode_plugin.FILE_NAME,
            "",
            ConfigKind.OPENCODE_PLUGIN,
        ),
    ]


def _codex_files(env: Mapping[str, str], home: str) -> list[ConfigFile]:
    codex_home = env.get(codex.HOME_VARIABLE, "")
    if codex_home:
        codex_dir = Path(codex_home).absolute()
        # Codex canonicalises a CODEX_HOME it is given, and keys its hook trust by that path.
        trust_dir = os.path.realpath(codex_home)
    else:
        codex_dir = Path(home) / codex.CONFIG_DIR
        trust_dir = str(codex_dir)
    config = ConfigFile(
        CODEX.title,
        CODEX.name,
        codex_dir,
        codex_dir / codex.CONFIG,
        str(Path(trust_dir) / codex.CONFIG),
        ConfigKind.CODEX_CONFIG,
    )
    rule = ConfigFile(
        CODEX.title,
        CODEX.name,
        codex_dir,
        codex_dir / "rules" / RULES_NAME,
        "",
        ConfigKind.CODEX_RULE,
    )
    return [config, rule]


def hooks_json(cfg: ConfigFile) -> ConfigFile:
    """Codex's hooks.json beside its config.toml, where Codex reads hooks too."""
    return ConfigFile(
        cfg.name,
        cfg.harness,
        cfg.directory,
        cfg.path.with_name(CODEX_HOOKS_JSON),
        str(Path(cfg.trust_path).with_name(CODEX_HOOKS_JSON)),
        ConfigKind.CODEX_HOOKS_JSON,
    )


def read(path: Path) -> str:
    """The config's text; a missing file counts as empty."""
    return read_seen(path)[0]


def read_seen(path: Path) -> tuple[str, Seen]:
    """The config's text, and the file as it was read (for the compare before a write)."""
    try:
        seen = look(path)
    except OSError as e:
        raise StateError(
            f"cannot read {path}: {e.strerror or e}; fix it, then rerun hail setup"
        ) from None
    data = seen.data
    try:
        return data.decode("utf-8"), seen
    except UnicodeDecodeError as e:
        raise StateError(
            f"{path} is not UTF-8 text ({e.reason} at byte {e.start}); "
            "fix it, then rerun hail setup"
        ) from None


def unified_diff(old: str, new: str, path: str) -> str:
    """A unified diff old → new, both headers naming `path`; every line newline-terminated."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=path, tofile=path
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
