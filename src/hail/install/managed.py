"""Agent configuration Home Manager owns: read-only links into the Nix store [docs/nix.md
"Files Home Manager owns"].

Home Manager's `programs.claude-code` and `programs.codex` install settings.json, config.toml,
hooks.json and rule files as links into the Nix store, which only a new Home Manager generation
changes; hail's hooks reach them through hail's module (`programs.hail`). `hail setup` leaves such a
file alone and says so; `hail doctor` checks the hooks in it and points at the module, never at
`hail setup`. The hooks there name hail by its store path, so a handler counts as hail's when it
is a program's path followed by the arguments of one of hail's hooks in `data/harness_hooks.json`,
as the module and `hail setup --program` write it.
"""

from __future__ import annotations

import json
import os
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hail.harnesses.codex import HARNESS as CODEX
from hail.install.codex_hooks_json import CODEX_HOOKS_JSON
from hail.install.codex_trust import CODEX_DEFAULT_TIMEOUT, codex_trust_hash, codex_trust_key
from hail.install.configs import ConfigFile, ConfigKind
from hail.install.hook_table import HOOKED_EVENTS, Harness, HookSpec, hook_specs
from hail.install.recognise import hook_argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.output import CheckLine

#: Where Nix keeps its store unless NIX_STORE_DIR says otherwise.
DEFAULT_STORE_DIR = "/nix/store"
#: What a user does instead of `hail setup` for a file Home Manager owns.
USE_THE_MODULE = "enable programs.hail in your Home Manager configuration and switch"


def store_link(path: Path, env: Mapping[str, str]) -> bool:
    """Whether `path` is a symbolic link that resolves into the Nix store (Home Manager's files)."""
    if not path.is_symlink():
        return False
    store = os.path.realpath(env.get("NIX_STORE_DIR") or DEFAULT_STORE_DIR)
    return os.path.realpath(path).startswith(store + os.sep)


def managed_path(cfg: ConfigFile, env: Mapping[str, str]) -> Path | None:
    """The file that makes this config Home Manager's, or None when hail setup may edit it.

    Codex reads hooks from config.toml and from hooks.json beside it: when either is a store link,
    Home Manager installs Codex's hooks, and hail setup must not add a second copy to config.toml.
    """
    if cfg.kind is ConfigKind.CODEX_CONFIG:
        hooks_json = cfg.path.with_name(CODEX_HOOKS_JSON)
        if store_link(hooks_json, env):  # where Home Manager's programs.codex puts hooks
            return hooks_json
    return cfg.path if store_link(cfg.path, env) else None


def skip_line(name: str, path: Path) -> str:
    return (
        f"skip  {name}: {path} is a read-only link into the Nix store, which Home Manager owns;"
        f" hail's module installs hail there: {USE_THE_MODULE}"
    )


@dataclass(frozen=True)
class _Found:
    """One of hail's handlers where a harness reads it: file, event, group and handler index."""

    source: Path
    spec: HookSpec
    group: int
    handler: int
    command: str
    matcher: str | None
    timeout: int


def _runs_hail(command: str, spec: HookSpec) -> bool:
    """`<one shell word naming a program> <spec's arguments>`, exactly as hail writes it."""
    argv = hook_argv(command)
    return argv is not None and tuple(argv[1:]) == spec.args and shlex.join(argv) == command


def _find(harness: Harness, hooks: object, source: Path) -> list[_Found]:
    found: list[_Found] = []
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
                        timeout = CODEX_DEFAULT_TIMEOUT
                    found.append(_Found(source, spec, gi, hi, command, spec.matcher, timeout))
    return found


def hail_program(harness: Harness, path: Path) -> str | None:
    """The executable the first of hail's hooks in this file runs (`hail`, or a path to it, as
    Home Manager's activation step writes), or None when there is none or the file is unreadable."""
    try:
        found = _find(harness, _load(path).get("hooks"), path)
    except (OSError, ValueError):
        return None
    if not found:
        return None
    first = found[0]
    return first.command[: -len(" ".join(first.spec.args)) - 1]


def _load(path: Path) -> dict[str, object]:
    """A JSON or TOML file's top level; a missing file is empty. Raises ValueError or OSError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        value = (
            tomllib.loads(text)
            if path.suffix == ".toml"
            else json.loads(text)
            if text.strip()
            else {}
        )
    except RecursionError:  # valid, but nested deeper than the parser can go
        raise ValueError("it is nested too deeply to read") from None
    if not isinstance(value, dict):
        raise ValueError("the top level is not an object")
    return value


def doctor_lines(
    name: str, harness: Harness, config: Path, trust_path: str, owned: Path
) -> list[CheckLine]:
    """`hail doctor`'s lines for a harness whose hooks Home Manager installs (`owned` is the
    store link that says so): hail's hooks present by any store path, and Codex's trust."""
    sources = [config]
    if harness == CODEX.name:
        sources.append(config.with_name(CODEX_HOOKS_JSON))
    found: list[_Found] = []
    tops: dict[Path, dict[str, object]] = {}
    try:
        for source in sources:
            tops[source] = _load(source)
            found += _find(harness, tops[source].get("hooks"), source)
    except (OSError, ValueError) as e:
        return [("FIX", f"cannot read {source} ({e}); {USE_THE_MODULE}")]
    missing = [_label(s) for s in hook_specs(harness) if not any(f.spec == s for f in found)]
    if missing:
        return [
            (
                "FIX",
                f"{name}: hail's {' '.join(missing)} hook{'s' if len(missing) > 1 else ''} missing"
                f" from {owned}, which Home Manager owns: {USE_THE_MODULE}",
            )
        ]
    lines: list[CheckLine] = [("ok", f"{name} hooks current ({owned}, from Home Manager)")]
    twice = sorted({f.source for f in found} - {owned})
    if twice:
        lines.append(
            (
                "note",
                f"hail's hooks are also in {twice[0]}, so each runs twice: remove hail's hooks"
                f" from {twice[0]} (an earlier hail setup wrote them; Home Manager's {owned}"
                " has them now)",
            )
        )
    if harness == CODEX.name:
        untrusted = _untrusted(found, tops[config], trust_path)
        if untrusted:
            names = " ".join(e for e in HOOKED_EVENTS if e in untrusted)
            lines.append(
                (
                    "note",
                    f"Codex has not trusted hail's {names} hook{'s' if len(untrusted) > 1 else ''}"
                    f" in {owned} yet; until then they do not run: set"
                    " programs.hail.hooks.trustCodex = true, or trust them with /hooks in Codex",
                )
            )
    return lines


def _label(spec: HookSpec) -> str:
    """An event's name, and the verb of a hook that runs beside hail's other one there (the
    waiter: `Stop (listen)`)."""
    ordinary = spec.args[0] in ("brief", "deliver")
    return spec.event if ordinary else f"{spec.event} ({spec.args[0]})"


def _untrusted(found: list[_Found], config: Mapping[str, object], trust_path: str) -> list[str]:
    """Events of hail's Codex handlers with no matching trust record in config.toml."""
    hooks = config.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    records = state if isinstance(state, dict) else {}
    trust_dir = os.path.dirname(trust_path)
    untrusted: list[str] = []
    for f in found:
        key = codex_trust_key(
            os.path.join(trust_dir, f.source.name), f.spec.event, f.group, f.handler
        )
        record = records.get(key)
        recorded = record.get("trusted_hash") if isinstance(record, dict) else None
        wanted = codex_trust_hash(f.spec.event, f.command, matcher=f.matcher, timeout=f.timeout)
        if recorded != wanted and f.spec.event not in untrusted:
            untrusted.append(f.spec.event)
    return untrusted
