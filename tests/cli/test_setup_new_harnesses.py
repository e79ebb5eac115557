"""`hail setup` and `hail doctor` for Gemini CLI's settings.json, opencode's plugin and Copilot
CLI's hooks file: each handled when its directory exists, the user's own hooks, settings and
plugins kept [docs/hooks.md "Gemini CLI", docs/hooks.md "opencode", docs/hooks.md "Copilot
CLI"]."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from hail.install.checks import doctor_hook_lines
from hail.install.formats import copilot_hooks, opencode_plugin
from hail.install.hook_table import hook_groups
from tests.support.entry import run_hail
from tests.support.world import SCRUBBED

USER: dict[str, Any] = {
    "model": {"name": "gemini-2.5-pro"},
    "hooks": {
        "AfterTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "fmt"}]}],
        "BeforeAgent": [{"hooks": [{"type": "command", "command": "my-hook", "timeout": 5000}]}],
    },
}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    environ = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    environ.update(
        HOME=str(home),
        XDG_STATE_HOME=str(tmp_path / "state"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{environ.get('PATH', '')}",
    )
    environ.pop("XDG_CONFIG_HOME", None)
    return environ


def setup(env: dict[str, str], *args: str) -> tuple[int, str]:
    proc = run_hail("setup", *args, "--program", "hail", cwd=Path(env["HOME"]), env=env)
    return proc.returncode, proc.stdout + proc.stderr


def test_gemini_settings_get_hails_hooks_after_the_users(env: dict[str, str]) -> None:
    settings = Path(env["HOME"]) / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(USER, indent=2) + "\n")

    rc, out = setup(env, "--yes")

    assert rc == 0, out
    assert f"done  Gemini CLI: updated {settings}" in out
    doc = json.loads(settings.read_text())
    assert doc["model"] == USER["model"]
    hooks = doc["hooks"]
    for event, groups in hook_groups("gemini").items():
        user = USER["hooks"].get(event, [])
        assert hooks[event] == [*user, *groups], event
    assert hooks["AfterTool"][1]["matcher"] == "*"
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == "hail brief --hook --format gemini"
    rc, out = setup(env, "--check")
    assert rc == 0 and f"ok    Gemini CLI: hail hooks current in {settings}" in out, out
    assert ("ok", f"Gemini CLI hooks current ({settings})") in doctor_hook_lines(env)


def test_gemini_home_is_where_gemini_cli_home_says(env: dict[str, str], tmp_path: Path) -> None:
    other = tmp_path / "gem"
    (other / ".gemini").mkdir(parents=True)
    env["GEMINI_CLI_HOME"] = str(other)
    rc, out = setup(env, "--yes")
    assert rc == 0, out
    assert "BeforeAgent" in json.loads((other / ".gemini" / "settings.json").read_text())["hooks"]


def test_doctor_says_when_gemini_settings_turn_hooks_off(env: dict[str, str]) -> None:
    settings = Path(env["HOME"]) / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooksConfig": {"enabled": False}}) + "\n")
    assert setup(env, "--yes")[0] == 0
    lines = doctor_hook_lines(env)
    assert ("ok", f"Gemini CLI hooks current ({settings})") in lines
    assert (
        "FIX",
        f"{settings} turns every hook off (hooksConfig.enabled is false): hail's hooks do not run;"
        " remove that setting",
    ) in lines


def test_a_gemini_settings_file_that_is_not_an_object_stops_setup(env: dict[str, str]) -> None:
    settings = Path(env["HOME"]) / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("[1]\n")
    rc, out = setup(env, "--yes")
    assert rc == 1
    assert f"{settings} is not a JSON object (the top level is an array)" in out
    assert settings.read_text() == "[1]\n"


def test_qwen_settings_get_hails_hooks_and_rule_and_the_diff_names_the_rule(
    env: dict[str, str],
) -> None:
    settings = Path(env["HOME"]) / ".qwen" / "settings.json"
    settings.parent.mkdir()
    user = {"permissions": {"allow": ["Bash(git *)"]}, "model": {"name": "qwen3-coder-plus"}}
    settings.write_text(json.dumps(user, indent=2) + "\n")

    rc, out = setup(env)  # no --yes, no terminal: the diff, nothing written
    assert '+      "Bash(hail *)"' in out, out
    rc, out = setup(env, "--yes")

    assert rc == 0, out
    assert f"done  Qwen Code: updated {settings}" in out
    doc = json.loads(settings.read_text())
    assert doc["permissions"]["allow"] == ["Bash(git *)", "Bash(hail *)"]
    assert doc["model"] == user["model"]
    assert doc["hooks"] == hook_groups("qwen")
    assert list(settings.parent.glob("settings.json.*")), "the user's file was backed up"
    again = settings.read_text()
    assert setup(env, "--yes")[0] == 0 and settings.read_text() == again, "merged once"
    rc, out = setup(env, "--check")
    assert rc == 0, out
    assert f"ok    Qwen Code: hail hooks and hail's permission rule current in {settings}" in out
    ok = ("ok", f"Qwen Code hooks and Bash(hail *) current ({settings})")
    assert ok in doctor_hook_lines(env)


def test_opencode_gets_hails_plugin_beside_the_users(env: dict[str, str]) -> None:
    plugins = Path(env["HOME"]) / ".config" / "opencode" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "mine.js").write_text("export const Mine = async () => ({})\n")

    rc, out = setup(env, "--yes")

    assert rc == 0, out
    plugin = plugins / "hail.js"
    assert f"done  opencode: updated {plugin}" in out
    assert plugin.read_text() == opencode_plugin.render("hail")
    assert opencode_plugin.program_in(plugin.read_text()) == "hail"
    assert (plugins / "mine.js").read_text() == "export const Mine = async () => ({})\n"
    rc, out = setup(env, "--check")
    assert rc == 0 and f"ok    opencode: hail's plugin current in {plugin}" in out, out
    assert ("ok", f"opencode plugin current ({plugin})") in doctor_hook_lines(env)


#: hail's own file of each harness that has one, its folder made, and its drift's words.
OWN_FILES = {
    "opencode": (".config/opencode/plugins/hail.js", "opencode plugin", "10000"),
    "Copilot CLI": (".copilot/hooks/hail.json", "Copilot CLI hooks file", '"timeoutSec": 30'),
}


@pytest.mark.parametrize("harness", list(OWN_FILES))
def test_an_edited_own_file_is_drift_and_setup_backs_it_up(
    env: dict[str, str], harness: str
) -> None:
    relative, words, part = OWN_FILES[harness]
    path = Path(env["HOME"]) / relative
    path.parent.mkdir(parents=True)
    assert setup(env, "--yes")[0] == 0
    written = path.read_text()
    edited = written.replace(part, part[:-1], 1)
    path.write_text(edited)
    rc, out = setup(env, "--check")
    assert rc == 1 and f"drift {harness}: run hail setup" in out, out
    fix = f"hail's {words} is missing or outdated in {path}: run hail setup"
    assert ("FIX", fix) in doctor_hook_lines(env)
    assert setup(env, "--yes")[0] == 0
    assert path.read_text() == written
    assert path.with_name(path.name + ".hail-backup").read_text() == edited


COPILOT_USER_HOOKS = (
    '{"version": 1, "hooks": {"postToolUse": [{"type": "command", "bash": "fmt"}]}}\n'
)
COPILOT_SETTINGS = (
    '{"model": "gpt-5", "hooks": {"agentStop": [{"type": "command", "bash": "x"}]}}\n'
)


def test_copilot_gets_hails_own_hooks_file_beside_the_users(env: dict[str, str]) -> None:
    copilot = Path(env["HOME"]) / ".copilot"
    (copilot / "hooks").mkdir(parents=True)
    (copilot / "hooks" / "mine.json").write_text(COPILOT_USER_HOOKS)
    (copilot / "settings.json").write_text(COPILOT_SETTINGS)

    rc, out = setup(env, "--yes")

    assert rc == 0, out
    hooks = copilot / "hooks" / "hail.json"
    assert f"done  Copilot CLI: updated {hooks}" in out
    assert f"+++ {hooks}" in out, "the diff shows the file"
    assert hooks.read_text() == copilot_hooks.render("hail")
    doc = json.loads(hooks.read_text())
    assert doc["version"] == 1
    assert doc["hooks"]["agentStop"] == [
        {"type": "command", "bash": "hail deliver --format copilot --event Stop", "timeoutSec": 30}
    ]
    assert set(doc["hooks"]) == {
        "sessionStart",
        "userPromptSubmitted",
        "preToolUse",
        "postToolUse",
        "agentStop",
    }
    assert (copilot / "hooks" / "mine.json").read_text() == COPILOT_USER_HOOKS
    assert (copilot / "settings.json").read_text() == COPILOT_SETTINGS
    rc, again = setup(env, "--yes")
    assert rc == 0 and f"done  Copilot CLI: updated {hooks}" not in again, again
    assert hooks.read_text() == copilot_hooks.render("hail"), "idempotent"
    rc, out = setup(env, "--check")
    assert rc == 0 and f"ok    Copilot CLI: hail's hooks file current in {hooks}" in out, out
    assert ("ok", f"Copilot CLI hooks current ({hooks})") in doctor_hook_lines(env)


def test_copilot_home_is_where_copilot_home_says(env: dict[str, str], tmp_path: Path) -> None:
    elsewhere = tmp_path / "copilot-home"
    elsewhere.mkdir()
    rc, out = setup({**env, "COPILOT_HOME": str(elsewhere)}, "--yes")
    assert rc == 0, out
    assert (elsewhere / "hooks" / "hail.json").read_text() == copilot_hooks.render("hail")
    assert not (Path(env["HOME"]) / ".copilot").exists()
