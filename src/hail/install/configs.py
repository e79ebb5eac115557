"""The harness files hail manages, where they are, and the diff setup shows of them.

Each harness names its config files in its record (`harnesses/base.ConfigPlace`): a folder in the
home (or where a variable moves it), a file in it, and the format it is edited in, by name
(`formats/registry`). A format may read more files beside its own: Codex's config.toml reads its
hooks.json (`formats/codex_config`).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from pathlib import Path

from hail.errors import StateError
from hail.harnesses import registry
from hail.install.formats import registry as formats
from hail.install.formats.base import ConfigFile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.harnesses.base import ConfigPlace


def config_files(env: Mapping[str, str]) -> list[ConfigFile]:
    """The configs setup and doctor handle, in the order they report them: by harness, as the
    registry lists them, and by each harness's places, as it lists them.

    `~/.claude/settings.json`, then `$CLAUDE_CONFIG_DIR/settings.json` when that names another
    directory (sessions on one machine may use either), then `$CODEX_HOME/config.toml`
    (default `~/.codex/config.toml`) and hail's Codex rule, Gemini CLI's settings.json and
    hail's opencode plugin.
    """
    home = env.get("HOME", "")
    if not home:
        raise StateError("HOME is not set; set it to your home directory, then rerun hail setup")
    files: list[ConfigFile] = []
    for harness in registry.every():
        for place in harness.configs:
            fmt = formats.get(place.format)
            for folder, spelled in _folders(place, env, home):
                files.append(
                    ConfigFile(
                        harness.title,
                        harness.name,
                        folder,
                        folder / place.file,
                        str(Path(spelled) / place.file),
                        fmt,
                    )
                )
    return files


def _folders(place: ConfigPlace, env: Mapping[str, str], home: str) -> list[tuple[Path, str]]:
    """The place's folders, each with its path as the harness spells it."""
    named = _variable(env, place.variable)
    if named:
        # A harness canonicalises a folder it is given (Codex keys its hooks' trust by that path).
        return [(Path(named).absolute(), os.path.realpath(named))]
    parent = _variable(env, place.parent_variable) or os.path.join(home, place.parent)
    folder = Path(os.path.join(parent, place.folder))
    found = [(folder, str(folder))]
    other = _variable(env, place.also_variable)
    if other and os.path.realpath(other) != os.path.realpath(folder):
        found.append((Path(other).absolute(), str(Path(other).absolute())))
    return found


def _variable(env: Mapping[str, str], name: str) -> str:
    """The variable's value; "" when it is unset or empty, or when no variable is named."""
    return env.get(name, "") if name else ""


def unified_diff(old: str, new: str, path: str) -> str:
    """A unified diff old → new, both headers naming `path`; every line newline-terminated."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=path, tofile=path
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
