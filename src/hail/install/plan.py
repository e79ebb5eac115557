"""What each harness file becomes: its merge by its kind, where hail's Codex hooks sit, and the
hail a file's hooks run. `hail setup` writes these merges and `hail doctor` compares with them, so
the two verbs never disagree [docs/commands.md "doctor"].
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass

from hail.errors import StateError
from hail.harnesses import codex
from hail.install import gemini_settings, managed, opencode_plugin
from hail.install.claude_json import merge_claude
from hail.install.codex_hooks_json import (
    CODEX_HOOKS_JSON,
    HooksElsewhere,
    codex_json_holds_hail,
    merge_codex_json,
)
from hail.install.codex_rules import codex_rules
from hail.install.codex_toml import merge_codex
from hail.install.configs import ConfigFile, ConfigKind, hooks_json, read
from hail.install.hook_table import DEFAULT_PROGRAM
from hail.install.merge_rule import MergeError, error_text
from hail.install.program import hook_program, rule_paths


@dataclass(frozen=True)
class Plan:
    """One file's text as read (`old`) and as hail's merge makes it (`new`)."""

    cfg: ConfigFile
    old: str
    new: str
    #: For config.toml when hail's hooks are in hooks.json: that file, as the merge saw it.
    elsewhere: HooksElsewhere | None = None


def merged(
    cfg: ConfigFile,
    text: str,
    trust_codex: bool,
    program: str,
    env: Mapping[str, str],
    elsewhere: HooksElsewhere | None = None,
) -> str:
    """The file's text with hail's hooks (or hail's rule) as they should be; StateError naming the
    file and the fix when it is a config hail cannot merge into."""
    if cfg.kind is ConfigKind.CODEX_RULE:
        # hail's own file: its whole text is hail's, letting out the hail the hooks run.
        return codex_rules(rule_paths(program, env))
    if cfg.kind is ConfigKind.OPENCODE_PLUGIN:
        return opencode_plugin.render(program)  # hail's own file too
    try:
        if cfg.kind is ConfigKind.CLAUDE_SETTINGS:
            return merge_claude(text, program=program)
        if cfg.kind is ConfigKind.GEMINI_SETTINGS:
            return gemini_settings.merge_gemini(text, program)
        if cfg.kind is ConfigKind.CODEX_HOOKS_JSON:
            return merge_codex_json(text, program)
        return merge_codex(text, cfg.trust_path, trust_codex, program, elsewhere)
    except MergeError as e:
        raise StateError(error_text(cfg.harness, str(cfg.path), e)) from None


def hail_hooks_json(
    cfg: ConfigFile, program: str | None, env: Mapping[str, str]
) -> tuple[ConfigFile, str] | None:
    """Codex's hooks.json and its text when it holds any of hail's hooks: they belong there then,
    not in config.toml, where Codex would run each a second time [docs/hooks.md "Codex"].

    `program` is the one setup writes; None (doctor) takes the one the file's hooks name."""
    if cfg.kind is not ConfigKind.CODEX_CONFIG:
        return None
    beside = hooks_json(cfg)
    if program is None:
        program = program_in(beside, env)
    text = read(beside.path)
    try:
        holds = codex_json_holds_hail(text, program)
    except MergeError as e:
        raise StateError(error_text(beside.harness, str(beside.path), e)) from None
    return (beside, text) if holds else None


def program_in(cfg: ConfigFile, env: Mapping[str, str]) -> str:
    """The hail the file's hooks run (Home Manager's activation step names its store path); for
    Codex's rule, the hail Codex's hooks run, else the one setup would name now."""
    if cfg.kind.holds_hooks:
        return managed.hail_program(cfg.harness, cfg.path) or DEFAULT_PROGRAM
    if cfg.kind is ConfigKind.OPENCODE_PLUGIN:
        try:
            text = read(cfg.path)
        except StateError:
            text = ""
        return opencode_plugin.program_in(text) or hook_program(env, sys.argv[0])
    config = cfg.directory / codex.CONFIG
    for path in (config, config.with_name(CODEX_HOOKS_JSON)):
        program = managed.hail_program(cfg.harness, path)
        if program is not None:
            return program
    return hook_program(env, sys.argv[0])
