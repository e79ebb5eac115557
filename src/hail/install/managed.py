"""Agent configuration Home Manager owns: read-only links into the Nix store [docs/nix.md
"Files Home Manager owns"].

Home Manager's `programs.claude-code` and `programs.codex` install settings.json, config.toml,
hooks.json and rule files as links into the Nix store, which only a new Home Manager generation
changes; hail's hooks reach them through hail's module (`programs.hail`). `hail setup` leaves such a
file alone and says so; `hail doctor` checks the hooks in it and points at the module, never at
`hail setup`. The hooks there name hail by its store path, so a handler counts as hail's when it
is a program's path followed by the arguments of one of hail's hooks in `data/harness_hooks.json`,
as the module and `hail setup --program` write it.

What every format of hooks shares is here; each format says which files it reads hooks from and
how it parses them (`formats/base.HooksFormat`), and adds its own notes (Codex's trust).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hail.install.hook_table import HarnessName, HookSpec, hook_specs
from hail.install.recognise import hook_argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.output import CheckLine

#: Where Nix keeps its store unless NIX_STORE_DIR says otherwise.
DEFAULT_STORE_DIR = "/nix/store"
#: What a user does instead of `hail setup` for a file Home Manager owns.
USE_THE_MODULE = "enable programs.hail in your Home Manager configuration and switch"

#: How a format reads its file's top level (JSON, TOML); ValueError for a text it cannot read.
Parse = Callable[[str], object]


def store_link(path: Path, env: Mapping[str, str]) -> bool:
    """Whether `path` is a symbolic link that resolves into the Nix store (Home Manager's files)."""
    if not path.is_symlink():
        return False
    store = os.path.realpath(env.get("NIX_STORE_DIR") or DEFAULT_STORE_DIR)
    return os.path.realpath(path).startswith(store + os.sep)


def skip_line(name: str, path: Path) -> str:
    return (
        f"skip  {name}: {path} is a read-only link into the Nix store, which Home Manager owns;"
        f" hail's module installs hail there: {USE_THE_MODULE}"
    )


@dataclass(frozen=True)
class Found:
    """One of hail's handlers where a harness reads it: file, event, group and handler index."""

    source: Path
    spec: HookSpec
    group: int
    handler: int
    command: str
    matcher: str | None
    #: The timeout it names, None when it names none.
    timeout: int | None


def _runs_hail(command: str, spec: HookSpec) -> bool:
    """`<one shell word naming a program> <spec's arguments>`, exactly as hail writes it."""
    argv = hook_argv(command)
    return argv is not None and tuple(argv[1:]) == spec.args and shlex.join(argv) == command


def find_hail(harness: HarnessName, hooks: object, source: Path) -> list[Found]:
    """hail's handlers in a file's `hooks` value, in the table's order."""
    found: list[Found] = []
    if not isinstance(hooks, dict):
        return found
    for spec in hook_specs(harness):
        groups = hooks.get(spec.event)
        for gi, group in enumerate(groups if isinstance(groups, list) else []):
            if not isinstance(group, dict) or group.get("matcher") != spec.matcher:
                continue
            handlers = group.get("hooks")
            for hi, handler in enumerate(handlers if isinstance(handlers, list) else []):
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str) and _runs_hail(command, spec):
                    timeout = handler.get("timeout")
                    if not isinstance(timeout, int) or isinstance(timeout, bool):
                        timeout = None
                    found.append(Found(source, spec, gi, hi, command, spec.matcher, timeout))
    return found


def hail_program(harness: HarnessName, path: Path, parse: Parse) -> str | None:
    """The executable the first of hail's hooks in this file runs (`hail`, or a path to it, as
    Home Manager's activation step writes), or None when there is none or the file is unreadable."""
    try:
        found = find_hail(harness, load(path, parse).get("hooks"), path)
    except (OSError, ValueError):
        return None
    if not found:
        return None
    first = found[0]
    return first.command[: -len(" ".join(first.spec.args)) - 1]


def load(path: Path, parse: Parse) -> dict[str, object]:
    """A file's top level as `parse` reads it; a missing file is empty. Raises ValueError or
    OSError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        value = parse(text)
    except RecursionError:  # valid, but nested deeper than the parser can go
        raise ValueError("it is nested too deeply to read") from None
    if not isinstance(value, dict):
        raise ValueError("the top level is not an object")
    return value


def missing_line(name: str, harness: HarnessName, found: list[Found], owned: Path) -> str | None:
    """`hail doctor`'s fix when one of hail's hooks is in none of the files the harness reads
    (`owned` is the store link that makes them Home Manager's), else None."""
    missing = [_label(s) for s in hook_specs(harness) if not any(f.spec == s for f in found)]
    if not missing:
        return None
    return (
        f"{name}: hail's {' '.join(missing)} hook{'s' if len(missing) > 1 else ''} missing"
        f" from {owned}, which Home Manager owns: {USE_THE_MODULE}"
    )


def twice_notes(found: list[Found], owned: Path) -> list[CheckLine]:
    """A note when hail's hooks are also in a file besides Home Manager's: each then runs twice."""
    twice = sorted({f.source for f in found} - {owned})
    if not twice:
        return []
    return [
        (
            "note",
            f"hail's hooks are also in {twice[0]}, so each runs twice: remove hail's hooks"
            f" from {twice[0]} (an earlier hail setup wrote them; Home Manager's {owned}"
            " has them now)",
        )
    ]


def _label(spec: HookSpec) -> str:
    """An event's name, and the verb of a hook that runs beside hail's other one there (the
    waiter: `Stop (listen)`)."""
    ordinary = spec.args[0] in ("brief", "deliver")
    return spec.event if ordinary else f"{spec.event} ({spec.args[0]})"
