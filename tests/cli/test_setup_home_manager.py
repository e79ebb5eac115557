"""`hail setup` and `hail doctor` with configs Home Manager owns (docs/nix.md): a config that is a
read-only link into the Nix store is left alone by setup, which points at hail's module, and
checked by doctor, which never advises `hail setup` for it. Also `setup --program`, which the
module's activation step uses to name hail by its store path.

The "store" is a scratch directory named by NIX_STORE_DIR; links into it are made the way Home
Manager makes them (~/.claude/settings.json → store file, mode 0444).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import tomlkit

from hail.install.checks import doctor_hook_lines
from hail.install.codex_trust import codex_trust_hash
from hail.install.formats import opencode_plugin
from hail.install.hook_table import hook_groups
from hail.install.managed import USE_THE_MODULE
from tests.support.entry import run_hail
from tests.support.rules import rules_for
from tests.support.world import SCRUBBED

PROGRAM = "/nix/store/0000-hail-0.7.0/bin/hail"
USER_HOOK = {"hooks": [{"type": "command", "command": "my-own-hook"}]}


@dataclass
class Home:
    root: Path
    home: Path
    store: Path
    env: dict[str, str]

    def link_into_store(self, target: Path, content: str) -> None:
        """`target` becomes a read-only link into the store, as Home Manager installs files."""
        stored = self.store / f"{len(list(self.store.iterdir())):032d}-{target.name}"
        stored.write_text(content)
        stored.chmod(0o444)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(stored)

    def setup(self, *args: str) -> tuple[int, str, str]:
        proc = run_hail("setup", *args, cwd=self.root, env=self.env)
        return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def hm(tmp_path: Path) -> Home:
    home = tmp_path / "home"
    store = tmp_path / "store"
    home.mkdir(exist_ok=True)  # the autouse isolation made it
    store.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env.update(
        HOME=str(home),
        XDG_STATE_HOME=str(tmp_path / "state"),
        NIX_STORE_DIR=str(store),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    )
    return Home(tmp_path, home, store, env)


def claude_settings(program: str | None) -> str:
    """settings.json as Home Manager's programs.claude-code writes it with hail's module: the
    user's own Stop hook, and hail's hooks naming `program` (none when None)."""
    hooks: dict[str, list[object]] = {"Stop": [USER_HOOK]}
    if program is not None:
        for event, groups in hook_groups("claude", program).items():
            hooks.setdefault(event, []).extend(groups)
    return json.dumps({"model": "opus", "hooks": hooks})


def codex_hooks_json(program: str) -> str:
    hooks: dict[str, list[object]] = {"Stop": [USER_HOOK]}
    for event, groups in hook_groups("codex", program).items():
        hooks[event] = [USER_HOOK, *groups]
    return json.dumps({"hooks": hooks})


def test_setup_leaves_a_settings_json_linked_into_the_store_alone(hm: Home) -> None:
    settings = hm.home / ".claude" / "settings.json"
    hm.link_into_store(settings, claude_settings(None))
    before = settings.read_text()

    rc, out, err = hm.setup("--yes")

    assert rc == 0, err
    assert (
        f"skip  Claude Code: {settings} is a read-only link into the Nix store, which Home Manager"
        " owns; hail's module installs hail there: enable programs.hail in your Home Manager"
        " configuration and switch"
    ) in out.splitlines()
    assert settings.is_symlink() and settings.read_text() == before
    assert not list(settings.parent.glob("*.hail-backup"))


def test_setup_adds_no_codex_hooks_to_config_toml_when_hooks_json_is_home_managers(
    hm: Home,
) -> None:
    config = hm.home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "x"\n')
    hm.link_into_store(config.with_name("hooks.json"), codex_hooks_json(PROGRAM))

    rc, out, err = hm.setup("--yes", "--trust-codex")

    assert rc == 0, err
    assert config.read_text() == 'model = "x"\n', "no second copy of hail's hooks"
    assert f"skip  Codex: {config.with_name('hooks.json')} is a read-only link" in out


def test_setup_leaves_a_rule_file_linked_into_the_store_alone(hm: Home) -> None:
    rules = hm.home / ".codex" / "rules" / "hail.rules"
    hm.link_into_store(rules, "prefix_rule(pattern = ['hail'], decision = 'allow')\n")
    before = rules.read_text()

    rc, out, err = hm.setup("--yes")

    assert rc == 0, err
    assert f"skip  Codex: {rules} is a read-only link" in out
    assert rules.read_text() == before


def test_doctor_checks_hails_hooks_in_a_store_linked_settings_json(hm: Home) -> None:
    settings = hm.home / ".claude" / "settings.json"
    hm.link_into_store(settings, claude_settings(PROGRAM))

    assert doctor_hook_lines(hm.env) == [
        ("ok", f"Claude Code hooks current ({settings}, from Home Manager)")
    ]


def test_doctor_points_at_the_module_not_at_setup_when_the_store_file_lacks_hails_hooks(
    hm: Home,
) -> None:
    settings = hm.home / ".claude" / "settings.json"
    hm.link_into_store(settings, claude_settings(None))

    lines = doctor_hook_lines(hm.env)

    assert lines == [
        (
            "FIX",
            "Claude Code: hail's SessionStart UserPromptSubmit PostToolUse Stop"
            " SessionStart (listen) Stop (listen) hooks missing"
            f" from {settings}, which Home Manager owns: enable programs.hail in your Home Manager"
            " configuration and switch",
        )
    ]
    assert "hail setup" not in lines[0][1]


def test_doctor_reads_codex_trust_for_hooks_json_from_config_toml(hm: Home) -> None:
    codex = hm.home / ".codex"
    hooks_json = codex / "hooks.json"
    hm.link_into_store(hooks_json, codex_hooks_json(PROGRAM))
    config = codex / "config.toml"
    config.write_text('model = "x"\n')

    untrusted = doctor_hook_lines(hm.env)
    assert untrusted[0] == ("ok", f"Codex hooks current ({hooks_json}, from Home Manager)")
    assert untrusted[1][0] == "note"
    assert "programs.hail.hooks.trustCodex = true" in untrusted[1][1]
    assert "hail setup" not in untrusted[1][1]

    # What programs.hail.hooks.trustCodex records: hail's groups follow the user's (index 1).
    state = {}
    for event, [group] in hook_groups("codex", PROGRAM).items():
        snake = "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")
        command = group["hooks"][0]["command"]  # type: ignore[index]
        matcher = group.get("matcher")
        state[f"{hooks_json}:{snake}:1:0"] = {
            "trusted_hash": codex_trust_hash(event, command, matcher=matcher)  # type: ignore[arg-type]
        }
    config.write_text(tomlkit.dumps({"model": "x", "hooks": {"state": state}}))

    trusted = doctor_hook_lines(hm.env)
    assert trusted[0] == ("ok", f"Codex hooks current ({hooks_json}, from Home Manager)")
    assert not any(status == "note" for status, _ in trusted), trusted


def test_setup_program_names_hail_by_path_and_doctor_finds_it_current(hm: Home) -> None:
    (hm.home / ".claude").mkdir()

    rc, out, err = hm.setup("--yes", "--program", PROGRAM)

    assert rc == 0, err
    hooks = json.loads((hm.home / ".claude" / "settings.json").read_text())["hooks"]
    assert hooks == hook_groups("claude", PROGRAM)
    assert doctor_hook_lines(hm.env) == [
        ("ok", f"Claude Code hooks current ({hm.home / '.claude' / 'settings.json'})")
    ]
    # Idempotent: a second run with the same program changes nothing.
    rc, out, err = hm.setup("--check", "--program", PROGRAM)
    assert rc == 0, out


def test_setup_program_is_the_hail_codexs_rule_lets_out(hm: Home) -> None:
    """The activation step names the store path: the rule lets out that hail and no other."""
    rules = hm.home / ".codex" / "rules" / "hail.rules"
    (hm.home / ".codex").mkdir()

    rc, out, err = hm.setup("--yes", "--program", PROGRAM)

    assert rc == 0, err
    assert f'host_executable(name = "hail", paths = ["{PROGRAM}"])' in rules.read_text()
    assert rules.read_text() == rules_for(PROGRAM)
    assert ("ok", f"Codex may run hail outside its sandbox (rule {rules})") in doctor_hook_lines(
        hm.env
    )
    rc, out, err = hm.setup("--check", "--program", PROGRAM)
    assert rc == 0, out


def test_doctor_checks_a_store_linked_rule_names_the_hail_it_lets_out(hm: Home) -> None:
    rules = hm.home / ".codex" / "rules" / "hail.rules"
    hm.link_into_store(rules, rules_for(PROGRAM))
    assert doctor_hook_lines(hm.env)[-1] == (
        "ok",
        f"Codex may run hail outside its sandbox (rule {rules}, from Home Manager)",
    )

    rules.unlink()
    lines = rules_for(PROGRAM).splitlines(keepends=True)
    older = "".join(line for line in lines if "host_executable(" not in line)
    hm.link_into_store(rules, older)
    status, text = doctor_hook_lines(hm.env)[-1]
    assert status == "FIX"
    assert "enable programs.hail in your Home Manager configuration and switch" in text
    assert "hail setup" not in text


@pytest.mark.parametrize("program", ["", "my hail", "hail;rm -rf ~", "$(hail)", "hail\n"])
def test_setup_program_must_be_a_plain_path(hm: Home, program: str) -> None:
    (hm.home / ".claude").mkdir()

    rc, _out, err = hm.setup("--yes", "--program", program)

    assert rc == 1
    assert "is not a plain path: give the path to hail" in err
    assert not (hm.home / ".claude" / "settings.json").exists()


def test_doctor_survives_a_timeout_of_the_wrong_type_in_a_store_file(hm: Home) -> None:
    hooks = json.loads(codex_hooks_json(PROGRAM))
    for groups in hooks["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                handler["timeout"] = "5"
    hm.link_into_store(hm.home / ".codex" / "hooks.json", json.dumps(hooks))

    lines = doctor_hook_lines(hm.env)

    assert lines[0][0] == "ok", lines


def test_doctor_notes_hails_hooks_left_in_config_toml_beside_home_managers_hooks_json(
    hm: Home,
) -> None:
    codex = hm.home / ".codex"
    codex.mkdir()
    rc, _out, err = hm.setup("--yes")  # an earlier hail setup, before Home Manager's module
    assert rc == 0, err
    hm.link_into_store(codex / "hooks.json", codex_hooks_json(PROGRAM))

    lines = doctor_hook_lines(hm.env)

    assert (
        "note",
        f"hail's hooks are also in {codex / 'config.toml'}, so each runs twice: remove hail's"
        f" hooks from {codex / 'config.toml'} (an earlier hail setup wrote them; Home Manager's"
        f" {codex / 'hooks.json'} has them now)",
    ) in lines, lines


def test_each_activation_replaces_the_last_generations_hooks_and_their_codex_trust(
    hm: Home,
) -> None:
    """Each generation's activation runs setup with its own store path: the hooks of the one
    before are rewritten in place, never added to, and Codex's trust records follow them."""
    (hm.home / ".claude").mkdir()
    (hm.home / ".codex").mkdir()
    settings = hm.home / ".claude" / "settings.json"
    config = hm.home / ".codex" / "config.toml"
    settings.write_text(json.dumps({"hooks": {"Stop": [USER_HOOK]}}))
    generations = [f"/nix/store/{n}{n}{n}{n}-hail-0.{n}.0/bin/hail" for n in range(7, 10)]
    for program in generations:
        rc, _out, err = hm.setup("--yes", "--program", program, "--trust-codex")
        assert rc == 0, err
    last = generations[-1]
    hooks = json.loads(settings.read_text())["hooks"]
    assert hooks == {
        "Stop": [USER_HOOK, *hook_groups("claude", last)["Stop"]],
        **{e: g for e, g in hook_groups("claude", last).items() if e != "Stop"},
    }
    codex = tomlkit.parse(config.read_text()).unwrap()["hooks"]
    state = codex.pop("state")
    assert codex == hook_groups("codex", last)
    assert sorted(state) == sorted(
        f"{config}:{key}:0:0"
        for key in ("session_start", "user_prompt_submit", "post_tool_use", "stop")
    )
    assert [status for status, _ in doctor_hook_lines(hm.env)] == ["ok", "ok", "ok"]


def test_setup_leaves_an_opencode_plugin_linked_into_the_store_alone_and_doctor_checks_it(
    hm: Home,
) -> None:
    plugin = hm.home / ".config" / "opencode" / "plugins" / "hail.js"
    hm.link_into_store(plugin, opencode_plugin.render(PROGRAM))

    rc, out, err = hm.setup("--yes")

    assert rc == 0, err
    assert f"skip  opencode: {plugin} is a read-only link" in out
    assert doctor_hook_lines(hm.env) == [
        ("ok", f"opencode plugin current ({plugin}, from Home Manager)")
    ]


def test_doctor_points_at_the_module_for_an_outdated_store_linked_plugin(hm: Home) -> None:
    plugin = hm.home / ".config" / "opencode" / "plugins" / "hail.js"
    hm.link_into_store(plugin, opencode_plugin.render(PROGRAM).replace("10000", "20000"))

    assert doctor_hook_lines(hm.env) == [
        ("FIX", f"hail's opencode plugin is outdated in {plugin}: {USE_THE_MODULE}")
    ]
