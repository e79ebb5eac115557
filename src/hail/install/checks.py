"""`hail doctor`'s lines about the harness files [docs/commands.md "doctor"]: each config's hooks
current or not (from the same merges `hail setup` writes), Codex's trust in them, hail's Codex
rule, the files Home Manager owns, and the hook programs doctor then runs (`hook_check`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from hail.errors import StateError
from hail.harnesses.codex import HARNESS as CODEX
from hail.install import gemini_settings, managed, opencode_plugin
from hail.install.codex_hooks_json import HooksElsewhere
from hail.install.codex_rules import rule_paths_in
from hail.install.codex_toml import codex_toml_holds_hail, codex_untrusted
from hail.install.configs import ConfigFile, ConfigKind, config_files, hooks_json, read
from hail.install.hook_table import HOOKED_EVENTS
from hail.install.plan import hail_hooks_json, merged, program_in

if TYPE_CHECKING:
    from hail.output import CheckLine


def doctor_hook_lines(env: Mapping[str, str]) -> list[CheckLine]:
    """`hail doctor`'s hook lines: (`ok` | `FIX` | `note`, text), one or two per handled file.

    Current ⇒ `ok`; missing, outdated or unreadable ⇒ `FIX` naming the fix; hail hooks Codex has
    not trusted yet ⇒ a `note`. Harnesses whose directory does not exist are not reported.
    """
    try:
        files = config_files(env)
    except StateError as e:
        return [("FIX", e.message)]
    lines: list[CheckLine] = []
    for cfg in files:
        if cfg.installed:
            lines += _file_lines(cfg, env)
    return lines


def _file_lines(cfg: ConfigFile, env: Mapping[str, str]) -> list[CheckLine]:
    """Doctor's lines for one file of an installed harness."""
    owned = managed.managed_path(cfg, env)
    if owned is not None:
        return _managed_lines(cfg, owned)
    try:
        found = hail_hooks_json(cfg, None, env)
        if found is not None:
            return _hooks_json_lines(cfg, *found, env)
        text = read(cfg.path)
        program = program_in(cfg, env)
        current = merged(cfg, text, False, program, env) == text
    except StateError as e:
        return [("FIX", e.message)]
    if not current:
        return [("FIX", _outdated(cfg))]
    if cfg.kind is ConfigKind.CODEX_RULE:
        return [("ok", f"Codex may run hail outside its sandbox (rule {cfg.path})")]
    if cfg.kind is ConfigKind.OPENCODE_PLUGIN:
        return [("ok", f"opencode plugin current ({cfg.path})")]
    lines: list[CheckLine] = [("ok", f"{cfg.name} hooks current ({cfg.path})")]
    if cfg.harness == CODEX.name:
        untrusted = codex_untrusted(text, cfg.trust_path, program)
        if untrusted:
            lines.append(("note", _untrusted_note(untrusted, cfg.path)))
    if cfg.kind is ConfigKind.GEMINI_SETTINGS and gemini_settings.hooks_disabled(text):
        lines.append(
            (
                "FIX",
                f"{cfg.path} turns every hook off (hooksConfig.enabled is false): hail's hooks do"
                " not run; remove that setting",
            )
        )
    return lines


def _hooks_json_lines(
    cfg: ConfigFile, beside: ConfigFile, json_text: str, env: Mapping[str, str]
) -> list[CheckLine]:
    """Doctor's lines for Codex when hail's hooks are in its hooks.json: current there, none left
    in config.toml (Codex would run each twice), and their trust, which config.toml records."""
    program = program_in(beside, env)
    elsewhere = HooksElsewhere(json_text, beside.trust_path)
    text = read(cfg.path)
    lines: list[CheckLine] = []
    if merged(beside, json_text, False, program, env) == json_text:
        lines.append(("ok", f"{cfg.name} hooks current ({beside.path})"))
    else:
        lines.append(("FIX", _outdated(beside)))
    if merged(cfg, text, False, program, env, elsewhere) != text:
        twice = codex_toml_holds_hail(text, program)
        lines.append(
            (
                "FIX",
                f"hail's hooks are in both {beside.path} and {cfg.path}, so Codex runs each twice:"
                f" run hail setup (it removes them from {cfg.path})"
                if twice
                else f"{cfg.name} hooks are in {beside.path}, but {cfg.path} is not current for"
                " them ([features] hooks = true): run hail setup",
            )
        )
    untrusted = codex_untrusted(text, cfg.trust_path, program, elsewhere)
    if untrusted:
        lines.append(("note", _untrusted_note(untrusted, beside.path)))
    return lines


def installed_hook_programs(env: Mapping[str, str]) -> list[tuple[ConfigFile, str]]:
    """Each hook config holding hail's hooks, with the program they run (doctor runs it); for
    Codex, its hooks.json first (where hail's hooks go when that file has them)."""
    found: list[tuple[ConfigFile, str]] = []
    for cfg in config_files(env):
        if cfg.installed and cfg.kind.holds_hooks:
            places = [cfg.path]
            if cfg.harness == CODEX.name:
                places.insert(0, hooks_json(cfg).path)
            program = next(
                (p for p in (managed.hail_program(cfg.harness, at) for at in places) if p), None
            )
            if program is not None:
                found.append((cfg, program))
    return found


def _managed_lines(cfg: ConfigFile, owned: Path) -> list[CheckLine]:
    """Doctor's lines for a file Home Manager owns: checked, never pointed at hail setup."""
    if cfg.kind is ConfigKind.OPENCODE_PLUGIN:
        return _managed_plugin_lines(owned)
    if cfg.kind.holds_hooks:
        return managed.doctor_lines(cfg.name, cfg.harness, cfg.path, cfg.trust_path, owned)
    try:
        current = rule_paths_in(read(owned)) is not None  # the store path is the module's
    except StateError as e:
        return [("FIX", e.message)]
    if current:
        return [("ok", f"Codex may run hail outside its sandbox (rule {owned}, from Home Manager)")]
    return [
        (
            "FIX",
            f"hail's Codex rule is missing or outdated in {owned}, which Home Manager owns: "
            + managed.USE_THE_MODULE,
        )
    ]


def _managed_plugin_lines(owned: Path) -> list[CheckLine]:
    try:
        current = opencode_plugin.program_in(read(owned)) is not None
    except StateError as e:
        return [("FIX", e.message)]
    if current:
        return [("ok", f"opencode plugin current ({owned}, from Home Manager)")]
    return [("FIX", f"hail's opencode plugin is outdated in {owned}: {managed.USE_THE_MODULE}")]


def _outdated(cfg: ConfigFile) -> str:
    if cfg.kind is ConfigKind.OPENCODE_PLUGIN:
        return f"hail's opencode plugin is missing or outdated in {cfg.path}: run hail setup"
    if cfg.kind is ConfigKind.CODEX_RULE:
        return (
            f"hail's Codex rule is missing or outdated in {cfg.path}: Codex runs hail in its"
            " sandbox, where it cannot send: run hail setup"
        )
    return f"{cfg.name} hooks missing or outdated in {cfg.path}: run hail setup"


def _untrusted_note(events: list[str], path: Path) -> str:
    names = " ".join(e for e in HOOKED_EVENTS if e in events)
    return (
        f"Codex has not trusted hail's {names} hook{'s' if len(events) > 1 else ''} in {path} yet;"
        " until then they do not run: run /hooks in Codex, or hail setup --trust-codex"
    )
