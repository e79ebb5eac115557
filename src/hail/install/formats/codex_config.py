"""Codex's config.toml [docs/hooks.md "Codex", "Codex trust"]: hail's hooks and their trust merged
among the person's settings, comments kept (`install/codex_toml`); or, once hooks.json beside it
holds hail's hooks, none of them in config.toml (Codex would run each twice), only their trust.
doctor notes the hooks Codex has not trusted yet: until then they do not run."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

from hail.errors import StateError
from hail.install import managed
from hail.install.codex_hooks_json import CODEX_HOOKS_JSON, HooksElsewhere, codex_json_holds_hail
from hail.install.codex_toml import codex_toml_holds_hail, codex_untrusted, merge_codex
from hail.install.codex_trust import CODEX_DEFAULT_TIMEOUT, codex_trust_hash, codex_trust_key
from hail.install.formats.base import ConfigFile, HooksFormat, Wanted
from hail.install.formats.codex_hooks import FORMAT as CODEX_HOOKS
from hail.install.formats.codex_hooks import NEXT_STEP_TRUSTED
from hail.install.hook_table import HOOKED_EVENTS
from hail.install.merge_rule import MergeError, error_text
from hail.install.write import read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.install.managed import Found, Parse
    from hail.output import CheckLine

#: setup's closing line while hail's Codex hooks still wait for the user's trust.
TRUST_HINT = (
    "Codex runs new or changed hooks only once trusted: hail setup --trust-codex trusts"
    " hail's own (or review them with /hooks in Codex)"
)


class CodexConfig(HooksFormat):
    name = "codex_config"

    def merge(self, cfg: ConfigFile, text: str, wanted: Wanted) -> str:
        return merge_codex(text, cfg.trust_path, wanted.trust, wanted.program, wanted.elsewhere)

    def parse(self, text: str) -> object:
        return tomllib.loads(text)

    def beside(self, cfg: ConfigFile) -> ConfigFile:
        """hooks.json beside config.toml, where Codex reads hooks too."""
        return ConfigFile(
            cfg.name,
            cfg.harness,
            cfg.directory,
            cfg.path.with_name(CODEX_HOOKS_JSON),
            str(Path(cfg.trust_path).with_name(CODEX_HOOKS_JSON)),
            CODEX_HOOKS,
        )

    def hooks_at(self, config: Path) -> list[tuple[Path, Parse]]:
        """Where Codex reads hooks, for a config.toml at `config`: that file and hooks.json."""
        return [(config, self.parse), (config.with_name(CODEX_HOOKS_JSON), CODEX_HOOKS.parse)]

    def hook_files(self, cfg: ConfigFile) -> list[tuple[Path, Parse]]:
        return self.hooks_at(cfg.path)

    def hook_program(self, cfg: ConfigFile) -> str | None:
        # hooks.json first: hail's hooks stay there once it holds them.
        for path, parse in reversed(self.hook_files(cfg)):
            program = managed.hail_program(cfg.harness, path, parse)
            if program:
                return program
        return None

    def hooks_elsewhere(
        self, cfg: ConfigFile, program: str | None, env: Mapping[str, str]
    ) -> tuple[ConfigFile, str] | None:
        """hooks.json and its text when it holds any of hail's hooks: they belong there then, not
        in config.toml, where Codex would run each a second time [docs/hooks.md "Codex"]."""
        beside = self.beside(cfg)
        if program is None:
            program = beside.format.program_in(beside, env)
        text = read(beside.path)
        try:
            holds = codex_json_holds_hail(text, program)
        except MergeError as e:
            raise StateError(error_text(beside.harness, str(beside.path), e)) from None
        return (beside, text) if holds else None

    def check(self, cfg: ConfigFile, env: Mapping[str, str]) -> list[CheckLine]:
        if self.managed_by(cfg, env) is None:
            try:
                found = self.hooks_elsewhere(cfg, None, env)
                if found is not None:
                    return self._elsewhere_lines(cfg, *found, env)
            except StateError as e:
                return [("FIX", e.message)]
        return super().check(cfg, env)

    def _elsewhere_lines(
        self, cfg: ConfigFile, beside: ConfigFile, json_text: str, env: Mapping[str, str]
    ) -> list[CheckLine]:
        """doctor's lines when hail's hooks are in hooks.json: current there, none left in
        config.toml (Codex would run each twice), and their trust, which config.toml records."""
        program = beside.format.program_in(beside, env)
        elsewhere = HooksElsewhere(json_text, beside.trust_path)
        text = read(cfg.path)
        lines: list[CheckLine] = []
        if beside.format.merged(beside, json_text, Wanted(program, env)) == json_text:
            lines += beside.format.current(beside, json_text, program)
        else:
            lines.append(("FIX", beside.format.outdated(beside)))
        if self.merged(cfg, text, Wanted(program, env, elsewhere=elsewhere)) != text:
            twice = codex_toml_holds_hail(text, program)
            lines.append(
                (
                    "FIX",
                    f"hail's hooks are in both {beside.path} and {cfg.path}, so Codex runs each"
                    f" twice: run hail setup (it removes them from {cfg.path})"
                    if twice
                    else f"{cfg.name} hooks are in {beside.path}, but {cfg.path} is not current"
                    " for them ([features] hooks = true): run hail setup",
                )
            )
        untrusted = codex_untrusted(text, cfg.trust_path, program, elsewhere)
        if untrusted:
            lines.append(("note", _untrusted_note(untrusted, beside.path)))
        return lines

    def current(self, cfg: ConfigFile, text: str, program: str) -> list[CheckLine]:
        lines = super().current(cfg, text, program)
        untrusted = codex_untrusted(text, cfg.trust_path, program)
        if untrusted:
            lines.append(("note", _untrusted_note(untrusted, cfg.path)))
        return lines

    def managed_by(self, cfg: ConfigFile, env: Mapping[str, str]) -> Path | None:
        # Codex reads hooks from config.toml and from hooks.json beside it: when either is a store
        # link, Home Manager installs Codex's hooks, and hail setup must not add a second copy.
        hooks_json = cfg.path.with_name(CODEX_HOOKS_JSON)
        if managed.store_link(hooks_json, env):  # where Home Manager's programs.codex puts hooks
            return hooks_json
        return super().managed_by(cfg, env)

    def managed_notes(
        self,
        cfg: ConfigFile,
        found: list[Found],
        tops: Mapping[Path, Mapping[str, object]],
        owned: Path,
    ) -> list[CheckLine]:
        untrusted = _untrusted_records(found, tops[cfg.path], cfg.trust_path)
        if not untrusted:
            return []
        names = " ".join(e for e in HOOKED_EVENTS if e in untrusted)
        return [
            (
                "note",
                f"Codex has not trusted hail's {names} hook{'s' if len(untrusted) > 1 else ''}"
                f" in {owned} yet; until then they do not run: set"
                " programs.hail.hooks.trustCodex = true, or trust them with /hooks in Codex",
            )
        ]

    def trust_hint(
        self, cfg: ConfigFile, text: str, program: str, elsewhere: HooksElsewhere | None
    ) -> str:
        return TRUST_HINT if codex_untrusted(text, cfg.trust_path, program, elsewhere) else ""

    def next_step(self, cfg: ConfigFile, trust: bool) -> str:
        return NEXT_STEP_TRUSTED if trust else super().next_step(cfg, trust)


def _untrusted_note(events: list[str], path: Path) -> str:
    names = " ".join(e for e in HOOKED_EVENTS if e in events)
    return (
        f"Codex has not trusted hail's {names} hook{'s' if len(events) > 1 else ''} in {path} yet;"
        " until then they do not run: run /hooks in Codex, or hail setup --trust-codex"
    )


def _untrusted_records(
    found: list[Found], config: Mapping[str, object], trust_path: str
) -> list[str]:
    """Events of hail's handlers (as Home Manager wrote them) with no matching trust record in
    config.toml."""
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
        timeout = CODEX_DEFAULT_TIMEOUT if f.timeout is None else f.timeout
        wanted = codex_trust_hash(f.spec.event, f.command, matcher=f.matcher, timeout=timeout)
        if recorded != wanted and f.spec.event not in untrusted:
            untrusted.append(f.spec.event)
    return untrusted


FORMAT = CodexConfig()
