"""hail's Home Manager module inside the real Home Manager (every module of its module set, option
checks on) with the real nixpkgs `lib`; only the package set is a stand-in
(`tests/nix/home-manager/pkgs.nix`). Each test evaluates one home configuration with
`tests/nix/home-manager/eval.nix` and reads what Home Manager would install: the generated
settings.json, hooks.json and config.toml, rule and skill links, and the activation step, which
one test runs with Home Manager's own `run` and `warnEcho`.

scripts/nix-check runs these with HAIL_HM_SOURCE (Home Manager's source) and HAIL_HM_NIXPKGS (a
directory with nixpkgs' lib/ and nixos/modules/misc/), from the offline snapshots or the test
flake's inputs (`tests.support.home_manager`); without them or nix the tests are skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.support import home_manager
from tests.support.rules import host_executable_line, rules_for

from hail.install.codex_trust import codex_trust_hash
from hail.install.hook_table import hook_groups

REPO = Path(__file__).resolve().parents[2]
PACKAGE = "/nix/store/00000000000000000000000000000000-hail-0.7.0"
PROGRAM = PACKAGE + "/bin/hail"
SKILL = PACKAGE + "/share/hail/skills/hail"
HOME = "/home/alice"

pytestmark = pytest.mark.skipif(
    not home_manager.available(),
    reason="needs nix and Home Manager's sources (scripts/nix-check, or the snapshots in shared/vendor)",
)

USER_HOOK = {"hooks": [{"type": "command", "command": "my-own-hook"}]}
USER_BASH_HOOK = {"matcher": "Bash", "hooks": [{"type": "command", "command": "fmt-on-save"}]}
# The user's own hooks, in Nix, for both agents: a Stop hook and a PostToolUse hook.
USER_HOOKS_NIX = """{
  Stop = [ { hooks = [ { type = "command"; command = "my-own-hook"; } ]; } ];
  PostToolUse = [ { matcher = "Bash"; hooks = [ { type = "command"; command = "fmt-on-save"; } ]; } ];
}"""
USER_HOOKS: dict[str, list[Any]] = {"Stop": [USER_HOOK], "PostToolUse": [USER_BASH_HOOK]}

BOTH_MANAGED = f"""
  programs.claude-code.enable = true;
  programs.claude-code.settings = {{ model = "opus"; hooks = {USER_HOOKS_NIX}; }};
  programs.codex.enable = true;
  programs.codex.settings.model = "gpt-5.5";
  programs.codex.hooks = {USER_HOOKS_NIX};
"""


Evaluation = home_manager.EvaluationError


def evaluate(config: str, package: str = PACKAGE) -> dict[str, Any]:
    """The observed home configuration of `{ <config> }` (see eval.nix)."""
    return home_manager.evaluate(config, package)


def merged(harness: str, user: dict[str, list[Any]], program: str = PROGRAM) -> dict[str, Any]:
    """The user's hooks with hail's groups after them, event by event."""
    hooks = {event: list(groups) for event, groups in user.items()}
    for event, groups in hook_groups(harness, program).items():
        hooks.setdefault(event, []).extend(groups)
    return hooks


def trust_records(hooks_json: str, user: dict[str, list[Any]]) -> dict[str, Any]:
    """What `hail setup --trust-codex` computes for hail's handlers placed after `user`'s."""
    snake = {
        "SessionStart": "session_start",
        "UserPromptSubmit": "user_prompt_submit",
        "PostToolUse": "post_tool_use",
        "Stop": "stop",
    }
    records = {}
    for event, groups in hook_groups("codex", PROGRAM).items():
        group = groups[0]
        command = group["hooks"][0]["command"]  # type: ignore[index]
        key = f"{hooks_json}:{snake[event]}:{len(user.get(event, []))}:0"
        records[key] = {
            "trusted_hash": codex_trust_hash(event, command, matcher=group.get("matcher"))  # type: ignore[arg-type]
        }
    return records


def script_of(source: str) -> str:
    """The build script of a stand-in derivation (its output path is the script's store file)."""
    return Path(source).read_text()


# --- both agents managed by Home Manager ----------------------------------------------------------


def test_both_managed_keep_the_users_hooks_and_add_hails_by_store_path() -> None:
    home = evaluate("programs.hail.enable = true;" + BOTH_MANAGED)
    files = home["files"]

    claude = files[".claude/settings.json"]["value"]
    assert claude["model"] == "opus"
    assert claude["hooks"] == merged("claude", USER_HOOKS)
    assert claude["hooks"]["Stop"][0] == USER_HOOK, "the user's own hook stays first"

    codex = files[".codex/hooks.json"]["value"]
    assert codex == {"hooks": merged("codex", USER_HOOKS)}
    assert files[".codex/config.toml"]["value"] == {"model": "gpt-5.5"}, "no trust unless asked"

    assert files[".codex/rules/hail.rules"]["content"] == rules_for(PROGRAM)
    # Gemini CLI has no module: the step still runs, and setup leaves the store links alone.
    assert "hailHooks" in home["activation"]
    assert "hail-0.7.0" in home["packages"]
    assert home["failedAssertions"] == []


def test_every_hook_command_names_the_package_by_store_path() -> None:
    files = evaluate("programs.hail.enable = true;" + BOTH_MANAGED)["files"]
    for target in (".claude/settings.json", ".codex/hooks.json"):
        value = files[target]["value"]
        hooks = value["hooks"]
        commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
        ours = [c for c in commands if "hail" in c]
        assert ours and all(c.startswith(PROGRAM + " ") for c in ours), commands


def test_the_codex_rule_lets_out_the_packages_hail_by_its_store_path_and_no_other() -> None:
    """Codex matches `./hail` or `/tmp/x/hail` against a rule for `hail` unless host_executable
    lists the paths it may be: the module lists the store path of the package it installs."""
    rules = evaluate("programs.hail.enable = true;" + BOTH_MANAGED)["files"][
        ".codex/rules/hail.rules"
    ]["content"]
    assert "\n" + host_executable_line(PROGRAM) in rules
    other = "/nix/store/11111111111111111111111111111111-hail-0.8.0"
    assert (
        rules_for(other + "/bin/hail")
        == evaluate("programs.hail.enable = true;" + BOTH_MANAGED, package=other)["files"][
            ".codex/rules/hail.rules"
        ]["content"]
    )
    assert (
        'pattern = ["hail", ["read", "type", "keys", "setup"]],\n    decision = "prompt"' in rules
    )


def test_trust_codex_records_setups_trust_for_hails_handlers_in_config_toml() -> None:
    home = evaluate(
        "programs.hail.enable = true; programs.hail.hooks.trustCodex = true;" + BOTH_MANAGED
    )
    config = home["files"][".codex/config.toml"]["value"]
    assert config == {
        "model": "gpt-5.5",
        "hooks": {"state": trust_records(f"{HOME}/.codex/hooks.json", USER_HOOKS)},
    }


def test_trust_keys_follow_codex_home_under_xdg_directories() -> None:
    home = evaluate(
        "programs.hail.enable = true; programs.hail.hooks.trustCodex = true;"
        " home.preferXdgDirectories = true;" + BOTH_MANAGED
    )
    files = home["files"]
    # Home Manager's target, relative to the home directory as it spells it.
    assert files["/.config/codex/hooks.json"]["value"] == {"hooks": merged("codex", USER_HOOKS)}
    state = files["/.config/codex/config.toml"]["value"]["hooks"]["state"]
    assert state == trust_records(f"{HOME}/.config/codex/hooks.json", USER_HOOKS)
    assert home["sessionVariables"]["CODEX_HOME"] == f"{HOME}/.config/codex"


# --- neither managed: the activation step ---------------------------------------------------------


def test_neither_managed_runs_hail_setup_after_home_managers_files_are_linked() -> None:
    home = evaluate("programs.hail.enable = true;")

    assert not any(t.startswith((".claude/", ".codex/")) for t in home["files"])
    step = home["activation"]["hailHooks"]
    assert "writeBoundary" in step["after"]
    order = home["activationOrder"]
    assert order.index("writeBoundary") < order.index("linkGeneration") < order.index("hailHooks")
    assert f"run --quiet {PROGRAM} setup --yes --program {PROGRAM};" in step["data"]
    assert "--trust-codex" not in step["data"]


def test_the_activation_step_trusts_codex_when_asked() -> None:
    step = evaluate("programs.hail.enable = true; programs.hail.hooks.trustCodex = true;")
    data = step["activation"]["hailHooks"]["data"]
    assert f"{PROGRAM} setup --yes --program {PROGRAM} --trust-codex;" in data


def test_one_managed_agent_still_gets_the_step_for_the_other() -> None:
    home = evaluate("programs.hail.enable = true; programs.claude-code.enable = true;")
    assert "hailHooks" in home["activation"]
    assert ".claude/settings.json" in home["files"]


def test_activation_off_leaves_the_step_out() -> None:
    home = evaluate("programs.hail.enable = true; programs.hail.hooks.activation = false;")
    assert home["activation"] == {}


def _run_step(step: str, home: Path, *, dry_run: bool = False) -> subprocess.CompletedProcess[str]:
    """The step as Home Manager's activation script runs it: bash, `set -eu -o pipefail`, its own
    `run` and `warnEcho` (lib/bash/home-manager.sh), DRY_RUN set for a dry run."""
    sources = home_manager.sources()
    assert sources is not None
    script = (
        "set -eu -o pipefail\n"
        f"source {sources.home_manager}/lib/bash/home-manager.sh\n"
        + ("DRY_RUN=1\n" if dry_run else "")
        + step
        + "echo activation goes on\n"
    )
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "NO_COLOR": "1",
    }
    return subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A package directory whose bin/hail is the hail under test."""
    bin_dir = tmp_path / "package" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "hail").symlink_to(Path(sys.executable).parent / "hail")
    return bin_dir.parent


def test_the_activation_step_installs_hails_hooks_keeps_the_users_and_is_idempotent(
    tmp_path: Path, package: Path
) -> None:
    program = str(package / "bin" / "hail")
    step = evaluate("programs.hail.enable = true;", package=str(package))["activation"]
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"model": "opus", "hooks": {"Stop": [USER_HOOK]}}))

    first = _run_step(step["hailHooks"]["data"], home)

    assert first.returncode == 0, first
    assert first.stdout.endswith("activation goes on\n"), "--quiet: setup's report is not shown"
    written = json.loads(settings.read_text())
    assert written["model"] == "opus"
    assert written["hooks"] == merged("claude", {"Stop": [USER_HOOK]}, program)
    assert settings.with_name("settings.json.hail-backup").exists()

    before = settings.read_bytes()
    again = _run_step(step["hailHooks"]["data"], home)
    assert again.returncode == 0, again
    assert settings.read_bytes() == before, "a second activation changes nothing"


def test_the_next_generations_activation_rewrites_the_hooks_to_its_package(
    tmp_path: Path, package: Path
) -> None:
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    first = evaluate("programs.hail.enable = true;", package=str(package))["activation"]
    assert _run_step(first["hailHooks"]["data"], home).returncode == 0
    newer = tmp_path / "newer"
    (newer / "bin").mkdir(parents=True)
    (newer / "bin" / "hail").symlink_to(package / "bin" / "hail")
    second = evaluate("programs.hail.enable = true;", package=str(newer))["activation"]

    result = _run_step(second["hailHooks"]["data"], home)

    assert result.returncode == 0, result
    hooks = json.loads(settings.read_text())["hooks"]
    assert hooks == merged("claude", {}, str(newer / "bin" / "hail")), "rewritten in place, once"


def test_a_dry_run_activation_only_prints_the_command(tmp_path: Path, package: Path) -> None:
    step = evaluate("programs.hail.enable = true;", package=str(package))["activation"]
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)

    dry = _run_step(step["hailHooks"]["data"], home, dry_run=True)

    assert dry.returncode == 0, dry
    program = str(package / "bin" / "hail")
    assert f"{program} setup --yes --program {program}" in dry.stdout
    assert not (home / ".claude" / "settings.json").exists()


def test_a_failing_setup_never_fails_the_activation(tmp_path: Path, package: Path) -> None:
    step = evaluate("programs.hail.enable = true;", package=str(package))["activation"]
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{ not json")

    result = _run_step(step["hailHooks"]["data"], home)

    assert result.returncode == 0, result
    assert "hail: could not install hail's hooks" in result.stdout
    assert result.stdout.endswith("activation goes on\n")
    assert "is not a JSON object" in result.stderr, "setup's own error is shown"
    assert settings.read_text() == "{ not json"


# --- hooks disabled, hail disabled ----------------------------------------------------------------


def test_hooks_disabled_installs_no_hook_anywhere() -> None:
    home = evaluate(
        "programs.hail.enable = true; programs.hail.hooks.enable = false;"
        " programs.hail.skill.enable = true;" + BOTH_MANAGED
    )
    files = home["files"]
    assert files[".claude/settings.json"]["value"]["hooks"] == USER_HOOKS
    assert files[".codex/hooks.json"]["value"] == {"hooks": USER_HOOKS}
    assert home["activation"] == {}
    assert ".claude/skills/hail" in files, "the skill does not depend on the hooks"
    assert "hail-0.7.0" in home["packages"]


def test_hooks_disabled_without_agent_modules_has_no_activation_step() -> None:
    home = evaluate("programs.hail.enable = true; programs.hail.hooks.enable = false;")
    assert home["activation"] == {}


def test_hail_disabled_leaves_nothing_of_hail_anywhere() -> None:
    home = evaluate(
        'programs.hail.hooks.trustCodex = true; programs.hail.skill.targets = [ "x/hail" ];'
        + BOTH_MANAGED
    )
    files = home["files"]
    assert files[".claude/settings.json"]["value"]["hooks"] == USER_HOOKS
    assert files[".codex/hooks.json"]["value"] == {"hooks": USER_HOOKS}
    assert files[".codex/config.toml"]["value"] == {"model": "gpt-5.5"}
    assert not any("hail" in target for target in files), sorted(files)
    assert home["activation"] == {}
    assert not any(p.startswith("hail") for p in home["packages"])
    assert "hail" not in json.dumps(home["sessionVariables"])


# --- the skill, through each route ----------------------------------------------------------------


def test_skill_without_agent_modules_is_linked_at_its_targets() -> None:
    files = evaluate("programs.hail.enable = true; programs.hail.skill.enable = true;")["files"]
    assert files[".agents/skills/hail"]["source"] == SKILL
    assert not any(t.startswith((".claude/", ".codex/")) for t in files)


def test_skill_through_programs_claude_code_skills() -> None:
    files = evaluate(
        "programs.hail.enable = true; programs.hail.skill.enable = true;"
        " programs.claude-code.enable = true;"
    )["files"]
    link = files[".claude/skills/hail"]
    assert SKILL in script_of(link["source"]), "Claude Code's skill entry links hail's skill"
    assert files[".agents/skills/hail"]["source"] == SKILL, "Codex is not managed: .agents"


def test_skill_through_programs_codex_skills() -> None:
    files = evaluate(
        "programs.hail.enable = true; programs.hail.skill.enable = true;"
        " programs.codex.enable = true;"
    )["files"]
    assert SKILL in script_of(files[".codex/skills/hail"]["source"])
    assert ".agents/skills/hail" not in files, "Codex reads the skill from its own directory"


def test_skill_disabled_links_nothing() -> None:
    files = evaluate("programs.hail.enable = true;" + BOTH_MANAGED)["files"]
    assert not any(t.endswith("skills/hail") for t in files)


def test_skill_targets_can_be_added_to_the_agent_modules_routes() -> None:
    files = evaluate(
        "programs.hail.enable = true; programs.hail.skill.enable = true;"
        ' programs.hail.skill.targets = [ "my/skills/hail" ];' + BOTH_MANAGED
    )["files"]
    assert files["my/skills/hail"]["source"] == SKILL
    assert ".claude/skills/hail" in files and ".codex/skills/hail" in files


def test_a_home_manager_without_the_agent_modules_still_evaluates_the_module() -> None:
    home = evaluate(
        'disabledModules = [ "programs/claude-code" "programs/codex" ];'
        " programs.hail.enable = true; programs.hail.skill.enable = true;"
    )
    assert "hailHooks" in home["activation"]
    assert home["files"][".agents/skills/hail"]["source"] == SKILL


# --- the options' other checks ----------------------------------------------------------------------


def test_envelope_max_is_exported() -> None:
    home = evaluate("programs.hail.enable = true; programs.hail.envelopeMax = 400;")
    assert home["sessionVariables"]["HAIL_ENVELOPE_MAX"] == "400"


def test_a_package_of_ones_own_is_installed_and_named_in_the_hooks() -> None:
    other = "/nix/store/11111111111111111111111111111111-hail-other"
    home = evaluate("programs.hail.enable = true;" + BOTH_MANAGED, package=other)
    hooks = home["files"][".claude/settings.json"]["value"]["hooks"]
    assert hooks == merged("claude", USER_HOOKS, other + "/bin/hail")


@pytest.mark.parametrize("value", ["0", "(-5)"])
def test_envelope_max_must_be_positive(value: str) -> None:
    with pytest.raises(Evaluation) as failed:
        evaluate(f"programs.hail.enable = true; programs.hail.envelopeMax = {value};")
    assert "positive integer" in failed.value.stderr


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            "programs.hail.skill.enable = true;",
            "programs.hail.skill.enable requires programs.hail.enable = true",
        ),
        (
            "programs.hail.enable = true; programs.hail.skill.enable = true;"
            " programs.hail.skill.targets = [ ];",
            "programs.hail.skill.targets must not be empty",
        ),
        (
            "programs.hail.enable = true; programs.hail.skill.enable = true;"
            ' programs.hail.skill.targets = [ "/abs/hail" ];',
            'programs.hail.skill.targets must be relative to the home directory: ["/abs/hail"]',
        ),
        (
            "programs.hail.enable = true; programs.hail.skill.enable = true;"
            ' programs.hail.skill.targets = [ "a/hail" "a/hail" ];',
            'programs.hail.skill.targets must not repeat a path: ["a/hail"]',
        ),
    ],
)
def test_skill_settings_that_cannot_work_fail_an_assertion(settings: str, message: str) -> None:
    assert evaluate(settings)["failedAssertions"] == [message]


# --- opencode: the plugin as a store link ---------------------------------------------------------


def test_with_programs_opencode_hails_plugin_is_linked_into_its_plugins_folder() -> None:
    from hail.install.formats import opencode_plugin

    home = evaluate(
        "programs.hail.enable = true; programs.hail.skill.enable = true;"
        ' programs.opencode.enable = true; programs.opencode.settings.model = "fake/m";'
    )
    files = home["files"]
    plugin = files[".config/opencode/plugins/hail.js"]
    assert plugin["content"] == opencode_plugin.render(PROGRAM), "the file hail setup writes"
    assert opencode_plugin.program_in(plugin["content"]) == PROGRAM
    assert ".config/opencode/opencode.json" in files, "programs.opencode's own file stays"
    assert ".config/opencode/skills/hail" in files
    assert home["failedAssertions"] == []
