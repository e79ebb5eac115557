"""One definition of hail's hooks: `hail setup` (Python) and the Home Manager module
(`nix/hooks.nix`) build the same hook groups and the same Codex trust records from
`data/harness_hooks.json`. The Nix side is evaluated with `nix-instantiate` (skipped without nix)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import cast

import pytest
import tomlkit

from hail import policy
from hail.install.claude_json import merge_claude
from hail.install.codex_toml import merge_codex
from hail.install.codex_trust import codex_trust_hash
from hail.install.hook_table import TABLE_PATH, HarnessName, hook_groups, hook_specs

REPO = Path(__file__).resolve().parents[2]
HOOKS_NIX = REPO / "nix" / "hooks.nix"
PROGRAM = "/nix/store/00000000000000000000000000000000-hail-0.7.0/bin/hail"
HOOKS_JSON = "/home/u/.codex/hooks.json"
HARNESSES: tuple[HarnessName, ...] = ("claude", "codex")

needs_nix = pytest.mark.skipif(
    shutil.which("nix-instantiate") is None, reason="nix-instantiate is not on PATH"
)


def nix_eval(expr: str, **args: str) -> object:
    """Evaluate `expr`, a function of `hooks` (nix/hooks.nix) and the given string arguments."""
    argv = ["nix-instantiate", "--eval", "--strict", "--json", "--expr", expr]
    argv += ["--arg", "hooks", f"import {HOOKS_NIX}"]
    for name, value in args.items():
        argv += ["--argstr", name, value]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_table_names_every_hook_once_per_harness() -> None:
    table = json.loads(Path(TABLE_PATH).read_text(encoding="utf-8"))
    for harness in HARNESSES:
        hooks = [(entry["event"], entry["args"][0]) for entry in table[harness]]
        assert len(hooks) == len(set(hooks)), harness
        assert all(entry["args"] for entry in table[harness]), harness


def test_the_waiter_is_claudes_async_rewake_hook_with_a_timeout_past_its_life() -> None:
    waiters = [s for s in hook_specs("claude") if s.args[0] == "listen"]
    assert [s.event for s in waiters] == ["SessionStart", "Stop"]
    for spec in waiters:
        handler = dict(spec.handler)
        assert handler["asyncRewake"] is True
        assert handler["timeout"] == policy.WAITER_HOOK_TIMEOUT
        assert handler["timeout"] > policy.WAITER_LIFE_SECONDS, "it ends itself before the client"
        assert handler["rewakeSummary"] == "hail: new mail"
    assert not [s for s in hook_specs("codex") if s.args[0] == "listen"], "Codex has no rewake"


@pytest.mark.parametrize("harness", HARNESSES)
def test_setup_adds_exactly_the_tables_groups_to_an_empty_config(harness: HarnessName) -> None:
    if harness == "claude":
        installed = json.loads(merge_claude("", program=PROGRAM))["hooks"]
    else:
        doc = tomlkit.parse(merge_codex("", "/home/u/.codex/config.toml", False, PROGRAM))
        installed = cast(dict[str, object], doc.unwrap()["hooks"])
    assert installed == hook_groups(harness, PROGRAM)
    assert list(installed) == list(dict.fromkeys(spec.event for spec in hook_specs(harness)))


@needs_nix
@pytest.mark.parametrize("harness", HARNESSES)
def test_setup_and_the_nix_module_build_the_same_hooks(harness: HarnessName) -> None:
    assert "readFile ../src/hail/data/harness_hooks.json" in HOOKS_NIX.read_text()
    from_nix = nix_eval(
        "{ hooks, harness, program }: hooks.groups harness program",
        harness=harness,
        program=PROGRAM,
    )
    assert from_nix == hook_groups(harness, PROGRAM)


def _codex_hooks_after_a_users_own() -> dict[str, list[dict[str, object]]]:
    """A user's own group first in every event (one with a timeout), then hail's."""
    hooks: dict[str, list[dict[str, object]]] = {}
    for event, groups in hook_groups("codex", PROGRAM).items():
        mine: dict[str, object] = {
            "hooks": [{"type": "command", "command": "my-tool", "timeout": 5}]
        }
        hooks[event] = [mine, *groups]
    return hooks


@needs_nix
def test_codex_trust_records_of_the_nix_module_are_setups() -> None:
    hooks = _codex_hooks_after_a_users_own()
    # setup records trust for hail's handlers where they stand in the file it is given.
    text = tomlkit.dumps({"features": {"hooks": True}, "hooks": hooks})
    merged = tomlkit.parse(merge_codex(text, HOOKS_JSON, True, PROGRAM)).unwrap()
    from_setup = merged["hooks"]["state"]

    from_nix = nix_eval(
        "{ hooks, path, program, json }: hooks.codexTrust"
        " { inherit path program; hooks = builtins.fromJSON json; }",
        path=HOOKS_JSON,
        program=PROGRAM,
        json=json.dumps(hooks),
    )

    assert from_nix == from_setup
    assert sorted(from_setup) == sorted(
        f"{HOOKS_JSON}:{event}:1:0"
        for event in ("session_start", "user_prompt_submit", "post_tool_use", "stop")
    )


@needs_nix
@pytest.mark.parametrize(
    ("event", "command", "matcher", "timeout"),
    [
        ("SessionStart", PROGRAM + " brief --hook", None, 600),
        ("PostToolUse", PROGRAM + " deliver --format codex --event PostToolUse", ".*", 600),
        ("Stop", 'say "done" \\ now', "Bash|Edit", 30),
        ("UserPromptSubmit", "héllo → wörld", None, 600),
    ],
)
def test_the_nix_trust_hash_is_setups(
    event: str, command: str, matcher: str | None, timeout: int
) -> None:
    expr = (
        "{ hooks, event, command, matcher, timeout }: hooks.trustedHash"
        " { inherit event command; timeout = builtins.fromJSON timeout;"
        ' matcher = if matcher == "" then null else matcher; }'
    )
    from_nix = nix_eval(
        expr, event=event, command=command, matcher=matcher or "", timeout=str(timeout)
    )
    assert from_nix == codex_trust_hash(event, command, matcher=matcher, timeout=timeout)


@pytest.mark.parametrize(
    ("program", "word"),
    [
        ("hail", "hail"),
        ("/usr/local/bin/hail", "/usr/local/bin/hail"),
        (PROGRAM, PROGRAM),
        ("'/home/u/my tools/hail'", "/home/u/my tools/hail"),
        ("'/home/u/a;b/hail'", "/home/u/a;b/hail"),
        ("~/.local/bin/hail", "~/.local/bin/hail"),
        ("true;/hail", None),
        ("$(touch x)/hail", None),
        ("`touch x`/hail", None),
        ("/bin/hail&&touch x&&/hail", None),
        ('"/home/u/my tools/hail"', None),  # not how setup quotes: a shell would expand `$` in it
        ("'/home/u/a'b/hail", None),
        ("/usr/bin/hail2", None),
        ("/usr/bin/hail --version;", None),
        ("~u/hail", None),
        ("'unbalanced/hail", None),
        ("", None),
    ],
)
def test_only_hails_own_shape_is_a_hook_program(program: str, word: str | None) -> None:
    from hail.install.program import hook_word

    assert hook_word(program) == word
