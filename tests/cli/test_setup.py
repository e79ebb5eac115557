"""`hail setup` end to end (docs/hooks.md "What setup edits", docs/hooks.md "Merge rule") in a
scratch HOME.

Each test runs twice: through the installed `hail` entry point as a subprocess, and through
`run_setup` in-process (the flow the click surface calls), so the flow is checked on its own too.
Nothing here touches the real ~/.claude or ~/.codex.
"""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import tomlkit

from hail.commands.setup import run_setup
from hail.errors import HailError
from hail.install.checks import doctor_hook_lines
from hail.install.codex_toml import codex_untrusted
from hail.install.codex_trust import codex_trust_hash
from hail.install.hook_table import hook_groups, hook_specs, wanted_hooks
from tests.support.entry import hail_bin
from tests.support.rules import host_executable_line, paths_of, rules_for
from tests.support.world import SCRUBBED

OLD_LINE = '[ -n "$TMUX_PANE" ] || exit 0; hail deliver --format claude'
DROPPED_ENV = SCRUBBED
TRAILER = [
    "      SessionStart: hail brief --hook",
    "      UserPromptSubmit: hail deliver --format claude|codex",
    "      PostToolUse: hail deliver --format claude|codex --event PostToolUse",
    "      Stop: hail deliver --format claude|codex --event Stop",
    "      SessionStart: hail listen --format claude",
    "      Stop: hail listen --format claude",
]
#: With no harness installed, every harness of hail's own event names is listed.
TRAILER_NONE = [line.replace("claude|codex", "claude|codex|qwen") for line in TRAILER]
TRUST_HINT = (
    "      Codex runs new or changed hooks only once trusted: hail setup --trust-codex trusts"
    " hail's own (or review them with /hooks in Codex)"
)


@dataclass(frozen=True)
class Result:
    rc: int
    out: str
    err: str


class FakeTerminal(io.StringIO):
    """A stdin that says it is a terminal, holding the user's answers."""

    def isatty(self) -> bool:
        return True


@dataclass
class World:
    tmp: Path
    home: Path
    env: dict[str, str]
    runner: str

    @property
    def claude(self) -> Path:
        return self.home / ".claude" / "settings.json"

    @property
    def codex(self) -> Path:
        return self.home / ".codex" / "config.toml"

    @property
    def rules(self) -> Path:
        return self.home / ".codex" / "rules" / "hail.rules"

    def run(self, *args: str, answers: str | None = None) -> Result:
        """`hail setup <args>`; `answers` makes stdin a terminal holding them."""
        if self.runner == "cli":
            return self._run_cli(args, answers)
        out, err = io.StringIO(), io.StringIO()
        stdin: io.StringIO = FakeTerminal(answers) if answers is not None else io.StringIO()
        try:
            rc = run_setup(
                self.env,
                check="--check" in args,
                yes="--yes" in args,
                trust_codex="--trust-codex" in args,
                out=out,
                stdin=stdin,
                program=args[args.index("--program") + 1] if "--program" in args else None,
            )
        except HailError as e:
            err.write(f"error: {e.message}\n")
            rc = e.exit_code
        return Result(rc, out.getvalue(), err.getvalue())

    def _run_cli(self, args: tuple[str, ...], answers: str | None) -> Result:
        if answers is None:
            proc = subprocess.run(
                [hail_bin(), "setup", *args],
                env=self.env,
                cwd=self.tmp,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            return Result(proc.returncode, proc.stdout, proc.stderr)
        # A real terminal on stdin: the answers wait in the pty until hail reads them.
        primary, secondary = pty.openpty()
        try:
            os.write(primary, answers.encode())
            proc = subprocess.run(
                [hail_bin(), "setup", *args],
                env=self.env,
                cwd=self.tmp,
                stdin=secondary,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        finally:
            os.close(secondary)
            os.close(primary)
        return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(params=["cli", "inprocess"])
def sw(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    # hail where a login PATH finds it (as pip --user or uv tool put it), so hooks name it bare.
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "hail").symlink_to(hail_bin())
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.update(
        HOME=str(home),
        XDG_STATE_HOME=str(tmp_path / "state"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    )
    old_umask = os.umask(0o022)
    try:
        yield World(tmp_path, home, env, str(request.param))
    finally:
        os.umask(old_umask)


def scenario_claude() -> str:
    return (
        json.dumps(
            {
                "model": "opus",
                "hooks": {
                    "UserPromptSubmit": [
                        {"hooks": [{"type": "command", "command": "other-tool"}]},
                        {"hooks": [{"type": "command", "command": OLD_LINE}]},
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "fmt"}]},
                    ]
                },
            },
            indent=2,
        )
        + "\n"
    )


SCENARIO_CODEX = '# keep me\nmodel = "x"\n'


def install_scenario(w: World) -> None:
    w.claude.parent.mkdir()
    w.claude.write_text(scenario_claude())
    w.codex.parent.mkdir()
    w.codex.write_text(SCENARIO_CODEX)


def snapshot(*dirs: Path) -> dict[str, bytes]:
    return {
        str(p): p.read_bytes()
        for d in dirs
        if d.is_dir()
        for p in sorted(d.iterdir())
        if p.is_file()
    }


def test_setup_check_reports_drift_with_a_diff_and_writes_nothing(sw: World) -> None:
    install_scenario(sw)
    before = snapshot(sw.claude.parent, sw.codex.parent)
    r = sw.run("--check")
    assert r.rc == 1, r
    assert f"--- {sw.claude}\n+++ {sw.claude}\n" in r.out
    assert f"--- {sw.codex}\n+++ {sw.codex}\n" in r.out
    diff = r.out.splitlines()
    assert any(
        line.startswith("+") and '"command": "hail deliver --format claude"' in line
        for line in diff
    )
    assert any(line.startswith("-") and "TMUX_PANE" in line for line in diff)
    assert "drift Claude Code: run hail setup\n" in r.out
    assert "drift Codex: run hail setup\n" in r.out
    assert "SessionStart: hail brief --hook" not in r.out
    assert snapshot(sw.claude.parent, sw.codex.parent) == before


def test_setup_yes_installs_replaces_in_place_and_backs_up(sw: World) -> None:
    install_scenario(sw)
    r = sw.run("--yes")
    assert r.rc == 0, r
    assert f"done  Claude Code: updated {sw.claude}; a new session picks it up\n" in r.out
    assert (
        f"done  Codex: updated {sw.codex}; run hail setup --trust-codex (or /hooks in Codex)"
        " once to trust the changed hooks; a new session picks them up\n" in r.out
    )
    assert r.out.splitlines()[-len(TRAILER) - 1 :] == [*TRAILER, TRUST_HINT]

    claude_text = sw.claude.read_text()
    settings = json.loads(claude_text)
    groups = settings["hooks"]["UserPromptSubmit"]
    assert [h["command"] for g in groups for h in g["hooks"]] == [
        "other-tool",
        "hail deliver --format claude",
        "fmt",
    ]
    assert groups[2]["matcher"] == "Bash"
    assert settings["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "hail brief --hook"
    assert (
        settings["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
        == "hail deliver --format claude --event PostToolUse"
    )
    assert "TMUX_PANE" not in claude_text

    codex_text = sw.codex.read_text()
    assert codex_text.startswith(SCENARIO_CODEX)
    assert "hooks = true" in codex_text
    assert 'command = "hail brief --hook"' in codex_text
    assert 'command = "hail deliver --format codex --event PostToolUse"' in codex_text

    assert (sw.claude.parent / "settings.json.hail-backup").read_text() == scenario_claude()
    assert (sw.codex.parent / "config.toml.hail-backup").read_text() == SCENARIO_CODEX
    leftovers = [p.name for d in (sw.claude.parent, sw.codex.parent) for p in d.iterdir()]
    assert not [n for n in leftovers if n.endswith(".tmp")]


def test_setup_then_check_is_clean_and_a_second_yes_changes_no_byte(sw: World) -> None:
    install_scenario(sw)
    assert sw.run("--yes").rc == 0
    r = sw.run("--check")
    assert r.rc == 0, r
    assert r.out == (
        f"ok    Claude Code: hail hooks current in {sw.claude}\n"
        f"ok    Codex: hail hooks current in {sw.codex}\n"
        f"ok    Codex: hail's rule current in {sw.rules}\n"
        f"skip  Gemini CLI: {sw.home / '.gemini'} not installed\n"
        f"skip  opencode: {sw.home / '.config' / 'opencode'} not installed\n"
        f"skip  Qwen Code: {sw.home / '.qwen'} not installed\n"
        f"skip  Copilot CLI: {sw.home / '.copilot'} not installed\n"
    )
    before = snapshot(sw.claude.parent, sw.codex.parent)
    r = sw.run("--yes")
    assert r.rc == 0, r
    assert "done " not in r.out
    assert snapshot(sw.claude.parent, sw.codex.parent) == before


def test_claude_config_dir_elsewhere_is_handled_too(sw: World) -> None:
    install_scenario(sw)
    other = sw.tmp / "claude-work"
    other.mkdir()
    (other / "settings.json").write_text(scenario_claude())
    sw.env["CLAUDE_CONFIG_DIR"] = str(other)
    r = sw.run("--yes")
    assert r.rc == 0, r
    assert r.out.count("done  Claude Code: updated ") == 2
    for path in (sw.claude, other / "settings.json"):
        assert "hail deliver --format claude --event PostToolUse" in path.read_text()
    assert (other / "settings.json.hail-backup").exists()


def test_claude_config_dir_naming_the_default_is_handled_once(sw: World) -> None:
    install_scenario(sw)
    sw.env["CLAUDE_CONFIG_DIR"] = str(sw.home / ".claude")
    r = sw.run("--check")
    assert r.out.count("drift Claude Code") == 1


def test_codex_home_names_the_codex_directory(sw: World) -> None:
    codex_home = sw.tmp / "codex-home"
    codex_home.mkdir()
    sw.env["CODEX_HOME"] = str(codex_home)
    r = sw.run("--yes")
    assert r.rc == 0, r
    assert f"done  Codex: updated {codex_home / 'config.toml'};" in r.out
    assert "hail deliver --format codex" in (codex_home / "config.toml").read_text()


# --- prompting ------------------------------------------------------------------------------------


def test_a_non_terminal_without_yes_is_refused_with_the_fix(sw: World) -> None:
    install_scenario(sw)
    before = snapshot(sw.claude.parent, sw.codex.parent)
    r = sw.run()
    assert r.rc == 1, r
    assert r.err == (
        f"error: update {sw.claude}? needs a yes: rerun with --yes, or run it in a terminal\n"
    )
    assert snapshot(sw.claude.parent, sw.codex.parent) == before


def test_a_terminal_yes_writes_and_a_no_leaves_the_file(sw: World) -> None:
    install_scenario(sw)
    r = sw.run(answers="y\nn\nn\n")
    assert r.rc == 0, r
    assert f"update {sw.claude}? [y/N] done  Claude Code: updated {sw.claude};" in r.out
    assert f"update {sw.codex}? [y/N] left Codex: unchanged\n" in r.out
    assert f"update {sw.rules}? [y/N] left Codex: unchanged\n" in r.out
    assert not sw.rules.exists()
    assert "hail brief --hook" in sw.claude.read_text()
    assert sw.codex.read_text() == SCENARIO_CODEX


# --- harnesses that are missing, new files, modes -------------------------------------------------


def test_missing_harness_directories_are_skipped(sw: World) -> None:
    r = sw.run("--yes")
    assert r.rc == 0, r
    assert r.out.splitlines() == [
        f"skip  Claude Code: {sw.home / '.claude'} not installed",
        f"skip  Codex: {sw.home / '.codex'} not installed",
        f"skip  Gemini CLI: {sw.home / '.gemini'} not installed",
        f"skip  opencode: {sw.home / '.config' / 'opencode'} not installed",
        f"skip  Qwen Code: {sw.home / '.qwen'} not installed",
        f"skip  Copilot CLI: {sw.home / '.copilot'} not installed",
        *TRAILER_NONE,
    ]
    assert not (sw.home / ".claude").exists()
    assert not (sw.home / ".codex").exists()


def test_a_missing_file_is_created_0600_and_an_existing_file_keeps_its_mode(sw: World) -> None:
    sw.claude.parent.mkdir()
    sw.claude.write_text("{}\n")
    sw.claude.chmod(0o640)
    sw.codex.parent.mkdir()
    r = sw.run("--yes")
    assert r.rc == 0, r
    assert sw.codex.stat().st_mode & 0o777 == 0o600
    assert sw.claude.stat().st_mode & 0o777 == 0o640
    # An empty old file is not backed up.
    assert not (sw.codex.parent / "config.toml.hail-backup").exists()
    assert (sw.claude.parent / "settings.json.hail-backup").read_text() == "{}\n"


# --- invalid configs are never overwritten --------------------------------------------------------


@pytest.mark.parametrize(
    ("claude", "codex", "message"),
    [
        ('{"hooks": ', SCENARIO_CODEX, "{claude} is not a JSON object ("),
        ('{"hooks": []}', SCENARIO_CODEX, '{claude} is not a JSON object ("hooks" is an array'),
        ("[]", SCENARIO_CODEX, "{claude} is not a JSON object (the top level is an array)"),
        ("{}", "model = = 1\n", "{codex} is not valid TOML ("),
        ("{}", "hooks = 1\n", "{codex} cannot take hail's hooks (hooks is not a table)"),
    ],
)
def test_an_invalid_config_is_reported_and_nothing_is_written(
    sw: World, claude: str, codex: str, message: str
) -> None:
    sw.claude.parent.mkdir()
    sw.claude.write_text(claude)
    sw.codex.parent.mkdir()
    sw.codex.write_text(codex)
    before = snapshot(sw.claude.parent, sw.codex.parent)
    for args in (["--yes"], ["--check"]):
        r = sw.run(*args)
        assert r.rc == 1, r
        expected = message.format(claude=sw.claude, codex=sw.codex)
        assert r.err.startswith("error: " + expected), r.err
        assert r.err.endswith("; fix it, then rerun hail setup\n")
        assert snapshot(sw.claude.parent, sw.codex.parent) == before


# --- Codex trust ----------------------------------------------------------------------------------


def test_trust_codex_records_trusted_hashes_for_hails_hooks(sw: World) -> None:
    install_scenario(sw)
    r = sw.run("--yes", "--trust-codex")
    assert r.rc == 0, r
    assert f"done  Codex: updated {sw.codex}; hail's hooks are trusted;" in r.out
    text = sw.codex.read_text()
    hooks = tomlkit.parse(text).unwrap()["hooks"]
    key = f"{sw.codex}:post_tool_use:0:0"
    assert hooks["state"][key] == {
        "trusted_hash": codex_trust_hash(
            "PostToolUse", "hail deliver --format codex --event PostToolUse", matcher=".*"
        )
    }
    assert f'[hooks.state."{key}"]' in text
    assert sw.run("--check", "--trust-codex").rc == 0
    assert sw.run("--check").rc == 0


def test_check_with_trust_codex_reports_missing_trust_as_drift(sw: World) -> None:
    install_scenario(sw)
    assert sw.run("--yes").rc == 0
    r = sw.run("--check", "--trust-codex")
    assert r.rc == 1, r
    assert "drift Codex: run hail setup" in r.out
    assert "ok    Claude Code: hail hooks current" in r.out


# --- doctor's hook lines --------------------------------------------------------------------------


def test_doctor_hook_lines_follow_setup(sw: World) -> None:
    if sw.runner == "cli":
        pytest.skip("doctor's lines are checked in-process")
    assert doctor_hook_lines(sw.env) == []
    install_scenario(sw)
    assert doctor_hook_lines(sw.env) == [
        ("FIX", f"Claude Code hooks missing or outdated in {sw.claude}: run hail setup"),
        ("FIX", f"Codex hooks missing or outdated in {sw.codex}: run hail setup"),
        (
            "FIX",
            f"hail's Codex rule is missing or outdated in {sw.rules}: Codex runs hail in its"
            " sandbox, where it cannot send: run hail setup",
        ),
    ]
    assert sw.run("--yes").rc == 0
    lines = doctor_hook_lines(sw.env)
    assert lines[:2] == [
        ("ok", f"Claude Code hooks current ({sw.claude})"),
        ("ok", f"Codex hooks current ({sw.codex})"),
    ]
    assert lines[2][0] == "note"
    assert "SessionStart UserPromptSubmit PostToolUse Stop hooks" in lines[2][1]
    assert "hail setup --trust-codex" in lines[2][1]
    assert lines[3] == ("ok", f"Codex may run hail outside its sandbox (rule {sw.rules})")
    assert sw.run("--yes", "--trust-codex").rc == 0
    assert [status for status, _ in doctor_hook_lines(sw.env)] == ["ok", "ok", "ok"]


def test_doctor_reports_an_invalid_config_as_a_fix(sw: World) -> None:
    if sw.runner == "cli":
        pytest.skip("doctor's lines are checked in-process")
    sw.claude.parent.mkdir()
    sw.claude.write_text("{")
    assert doctor_hook_lines(sw.env) == [
        (
            "FIX",
            f"{sw.claude} is not a JSON object (Expecting property name enclosed in double"
            " quotes: line 1 column 2 (char 1)); fix it, then rerun hail setup",
        )
    ]


# --- hail's Codex rule ----------------------------------------------------------------------------


def test_setup_writes_hails_codex_rule_in_a_file_of_its_own(sw: World) -> None:
    install_scenario(sw)
    other = sw.rules.parent / "default.rules"
    other.parent.mkdir()
    other.write_text('prefix_rule(pattern = ["gh", "pr", "view"])\n')
    r = sw.run("--check")
    assert r.rc == 1, r
    assert f"--- {sw.rules}\n+++ {sw.rules}\n" in r.out
    assert '+    pattern = ["hail"],\n' in r.out
    assert "drift Codex: run hail setup\n" in r.out
    assert not sw.rules.exists()

    r = sw.run("--yes")
    assert r.rc == 0, r
    assert (
        f"done  Codex: updated {sw.rules}; a new Codex session may run hail outside its sandbox\n"
        in r.out
    )
    # The hooks name hail bare: the hail a login PATH finds, and the file that link leads to.
    paths = (str(sw.home / ".local" / "bin" / "hail"), os.path.realpath(hail_bin()))
    assert host_executable_line(*paths) in sw.rules.read_text()
    assert sw.rules.read_text() == rules_for(*paths)
    assert other.read_text() == 'prefix_rule(pattern = ["gh", "pr", "view"])\n'
    assert sorted(p.name for p in sw.rules.parent.iterdir()) == ["default.rules", "hail.rules"]


def test_the_rule_survives_reruns_byte_for_byte_and_an_edited_one_is_restored_with_a_backup(
    sw: World,
) -> None:
    install_scenario(sw)
    assert sw.run("--yes").rc == 0
    written = sw.rules.read_bytes()
    for args in (("--yes",), ("--yes", "--trust-codex"), ("--check",)):
        r = sw.run(*args)
        assert r.rc == 0, r
        assert f"ok    Codex: hail's rule current in {sw.rules}\n" in r.out
        assert sw.rules.read_bytes() == written

    edited = written.decode() + 'prefix_rule(pattern = ["rm"])\n'
    sw.rules.write_text(edited)
    r = sw.run("--check")
    assert r.rc == 1, r
    assert '-prefix_rule(pattern = ["rm"])\n' in r.out
    assert sw.run("--yes").rc == 0
    assert sw.rules.read_bytes() == written
    assert (sw.rules.parent / "hail.rules.hail-backup").read_text() == edited


def test_the_rule_names_a_hail_no_login_path_finds_by_the_path_its_hooks_run(sw: World) -> None:
    (sw.home / ".local" / "bin" / "hail").unlink()
    install_scenario(sw)
    assert sw.run("--yes").rc == 0
    assert host_executable_line(*paths_of(hail_bin())) in sw.rules.read_text()
    assert sw.rules.read_text() == rules_for(*paths_of(hail_bin()))
    assert sw.run("--check").rc == 0
    if sw.runner == "inprocess":
        assert doctor_hook_lines(sw.env)[-1] == (
            "ok",
            f"Codex may run hail outside its sandbox (rule {sw.rules})",
        )


def test_a_rule_without_hails_paths_is_outdated(sw: World) -> None:
    """An older rule let out any program named hail: setup replaces it, doctor asks for that."""
    install_scenario(sw)
    assert sw.run("--yes").rc == 0
    current = sw.rules.read_text()
    older = "".join(line for line in current.splitlines(True) if "host_executable(" not in line)
    sw.rules.write_text(older)
    r = sw.run("--check")
    assert r.rc == 1, r
    assert "+" + host_executable_line(*paths_of(str(sw.home / ".local" / "bin" / "hail"))) in r.out
    if sw.runner == "inprocess":
        assert doctor_hook_lines(sw.env)[-1][0] == "FIX"
    assert sw.run("--yes").rc == 0
    assert sw.rules.read_text() == current


def test_no_codex_directory_means_no_rule(sw: World) -> None:
    sw.claude.parent.mkdir()
    r = sw.run("--yes")
    assert r.rc == 0, r
    assert not (sw.home / ".codex").exists()
    assert TRUST_HINT not in r.out


# --- how hooks name hail --------------------------------------------------------------------------


def test_a_hail_no_login_path_finds_is_named_by_its_absolute_path(sw: World) -> None:
    """A virtual environment's hail: a harness started with a login PATH would not find a bare
    `hail`, so every hook, the summary and --check name it by its path."""
    (sw.home / ".local" / "bin" / "hail").unlink()
    install_scenario(sw)
    r = sw.run("--yes", "--trust-codex")
    assert r.rc == 0, r
    program = hail_bin()
    settings = json.loads(sw.claude.read_text())
    commands = [
        h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]
    ]
    assert f"{program} deliver --format claude" in commands
    assert f"{program} brief --hook" in commands
    assert "hail deliver --format claude" not in commands
    assert f'command = "{program} deliver --format codex --event PostToolUse"' in (
        sw.codex.read_text()
    )
    assert f"      SessionStart: {program} brief --hook" in r.out.splitlines()
    assert sw.run("--check").rc == 0
    if sw.runner == "inprocess":
        assert [s for s, _ in doctor_hook_lines(sw.env)] == ["ok", "ok", "ok"]


def test_a_rerun_from_a_stable_place_rewrites_the_absolute_path_to_the_bare_name(
    sw: World,
) -> None:
    link = sw.home / ".local" / "bin" / "hail"
    link.unlink()
    install_scenario(sw)
    assert sw.run("--yes").rc == 0
    assert hail_bin() in sw.claude.read_text()
    link.symlink_to(hail_bin())
    r = sw.run("--check")
    assert r.rc == 1, r
    assert sw.run("--yes").rc == 0
    assert hail_bin() not in sw.claude.read_text()
    assert '"command": "hail deliver --format claude"' in sw.claude.read_text()


# --- which hooks are hail's -----------------------------------------------------------------------


def _all_commands(w: World) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Every handler's command per event: Claude's settings.json, then Codex's config.toml."""
    claude = json.loads(w.claude.read_text())["hooks"]
    codex = tomlkit.parse(w.codex.read_text()).unwrap()["hooks"]
    return tuple(  # type: ignore[return-value]
        {
            event: [h["command"] for g in groups for h in g["hooks"]]
            for event, groups in hooks.items()
            if event != "state"
        }
        for hooks in (claude, codex)
    )


def test_three_programs_in_turn_leave_one_copy_of_each_hook_naming_the_last(sw: World) -> None:
    """A new --program replaces hail's entries, whatever the old program's name (a checkout's
    `hail-dev`, a wrapper `h`): they are hail's by their arguments, not by a substring."""
    install_scenario(sw)
    programs = ["/opt/one/hail", "/opt/two/hail-dev", "/opt/three/bin/h"]
    for program in programs:
        r = sw.run("--yes", "--trust-codex", "--program", program)
        assert r.rc == 0, r
    last = programs[-1]
    claude, codex = _all_commands(sw)
    for harness, commands in (("claude", claude), ("codex", codex)):
        for event in wanted_hooks(harness, last):
            # every hook of that event once (SessionStart and Stop carry Claude's waiter too)
            want = [s.command(last) for s in hook_specs(harness) if s.event == event]
            hails = [c for c in commands[event] if c.split()[0] in programs]
            assert hails == want, (harness, event, commands[event])
    assert claude["UserPromptSubmit"] == ["other-tool", f"{last} deliver --format claude", "fmt"]
    # Codex's trust follows the rewritten handlers: one record each, for the last program.
    state = tomlkit.parse(sw.codex.read_text()).unwrap()["hooks"]["state"]
    assert len(state) == 4, state
    assert codex_untrusted(sw.codex.read_text(), str(sw.codex), last) == []
    assert sw.run("--check", "--trust-codex", "--program", last).rc == 0
    if sw.runner == "inprocess":  # doctor checks the hooks against the program they name
        assert [s for s, _ in doctor_hook_lines(sw.env)] == ["ok", "ok", "ok"]


@pytest.mark.parametrize(
    "theirs", ["echo hail deliver", "/opt/other/hailstorm deliver", "notify --about 'hail brief'"]
)
def test_another_tools_hook_that_mentions_hail_is_kept(sw: World, theirs: str) -> None:
    sw.claude.parent.mkdir()
    hook = {"hooks": [{"type": "command", "command": theirs}]}
    sw.claude.write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [hook], "SessionStart": [hook]}})
    )
    sw.codex.parent.mkdir()
    sw.codex.write_text(
        f"[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\n"
        f'type = "command"\ncommand = {json.dumps(theirs)}\n'
    )
    for _ in range(2):
        r = sw.run("--yes")
        assert r.rc == 0, r
    claude, codex = _all_commands(sw)
    assert claude["UserPromptSubmit"] == [theirs, "hail deliver --format claude"]
    assert claude["SessionStart"] == [theirs, "hail brief --hook", "hail listen --format claude"]
    assert codex["UserPromptSubmit"] == [theirs, "hail deliver --format codex"]


# --- Codex's own hooks.json -----------------------------------------------------------------------

THEIR_HOOK = {"hooks": [{"type": "command", "command": "notify-me"}]}


def _hooks_json(w: World) -> Path:
    return w.codex.with_name("hooks.json")


def _write_hooks_json(w: World, program: str | None, *, only: tuple[str, ...] = ()) -> str:
    """A plain hooks.json with the user's own Stop hook and hail's hooks naming `program` (all
    events, or those in `only`; none when program is None)."""
    hooks: dict[str, list[object]] = {"Stop": [THEIR_HOOK]}
    if program is not None:
        for event, groups in hook_groups("codex", program).items():
            if not only or event in only:
                hooks.setdefault(event, []).extend(groups)
    text = json.dumps({"hooks": hooks}, indent=2) + "\n"
    w.codex.parent.mkdir(exist_ok=True)
    _hooks_json(w).write_text(text)
    return text


def _toml_commands(path: Path) -> list[str]:
    hooks = tomlkit.parse(path.read_text()).unwrap().get("hooks", {})
    return [
        h["command"]
        for event, groups in hooks.items()
        if event != "state"
        for g in groups
        for h in g["hooks"]
    ]


def test_a_plain_hooks_json_holding_hails_hooks_gets_no_second_copy_in_config_toml(
    sw: World,
) -> None:
    """Codex runs the hooks of hooks.json and of config.toml: hail's in both would run twice."""
    written = _write_hooks_json(sw, "hail")
    sw.codex.write_text(SCENARIO_CODEX)
    r = sw.run("--yes")
    assert r.rc == 0, r
    assert _toml_commands(sw.codex) == []
    assert _hooks_json(sw).read_text() == written
    assert f"ok    Codex: hail hooks current in {_hooks_json(sw)}\n" in r.out
    assert f"hail's hooks are in {_hooks_json(sw)}" in r.out
    assert sw.run("--check").rc == 0
    if sw.runner == "inprocess":
        lines = doctor_hook_lines(sw.env)
        assert ("ok", f"Codex hooks current ({_hooks_json(sw)})") in lines
        assert not [line for line in lines if line[0] == "FIX"], lines


def test_hails_older_hooks_in_hooks_json_are_rewritten_there(sw: World) -> None:
    _write_hooks_json(sw, "/opt/old/hail", only=("UserPromptSubmit",))
    if sw.runner == "inprocess":
        assert doctor_hook_lines(sw.env)[:2] == [
            ("FIX", f"Codex hooks missing or outdated in {_hooks_json(sw)}: run hail setup"),
            (
                "FIX",
                f"Codex hooks are in {_hooks_json(sw)}, but {sw.codex} is not current for them"
                " ([features] hooks = true): run hail setup",
            ),
        ]
    r = sw.run("--yes")
    assert r.rc == 0, r
    assert not sw.codex.exists() or _toml_commands(sw.codex) == []
    hooks = json.loads(_hooks_json(sw).read_text())["hooks"]
    assert hooks["Stop"][0] == THEIR_HOOK
    assert {
        e: [h["command"] for g in groups for h in g["hooks"] if h["command"] != "notify-me"]
        for e, groups in hooks.items()
    } == {e: [c] for e, c in wanted_hooks("codex").items()}


def test_hooks_json_with_other_hooks_only_leaves_hails_in_config_toml(sw: World) -> None:
    written = _write_hooks_json(sw, None)
    r = sw.run("--yes")
    assert r.rc == 0, r
    assert _hooks_json(sw).read_text() == written
    assert sorted(_toml_commands(sw.codex)) == sorted(wanted_hooks("codex").values())


def test_hails_hooks_in_both_files_are_a_fix_and_setup_keeps_the_hooks_json_copy(
    sw: World,
) -> None:
    sw.codex.parent.mkdir()
    assert sw.run("--yes").rc == 0  # hail's hooks in config.toml
    written = _write_hooks_json(sw, "hail")  # and the user's own copy in hooks.json
    if sw.runner == "inprocess":
        assert (
            "FIX",
            f"hail's hooks are in both {_hooks_json(sw)} and {sw.codex}, so Codex runs each twice:"
            f" run hail setup (it removes them from {sw.codex})",
        ) in doctor_hook_lines(sw.env)
    r = sw.run("--check")
    assert r.rc == 1, r
    r = sw.run("--yes")
    assert r.rc == 0, r
    assert _toml_commands(sw.codex) == []
    assert "hooks = true" in sw.codex.read_text()
    assert _hooks_json(sw).read_text() == written
    if sw.runner == "inprocess":
        assert not [s for s, _ in doctor_hook_lines(sw.env) if s == "FIX"]


def test_trust_codex_trusts_hails_hooks_where_hooks_json_has_them(sw: World) -> None:
    _write_hooks_json(sw, "hail")
    r = sw.run("--yes", "--trust-codex")
    assert r.rc == 0, r
    assert TRUST_HINT not in r.out
    state = tomlkit.parse(sw.codex.read_text()).unwrap()["hooks"]["state"]
    # The user's Stop group comes first in hooks.json, so hail's Stop handler is group 1.
    assert state[f"{_hooks_json(sw)}:stop:1:0"] == {
        "trusted_hash": codex_trust_hash("Stop", "hail deliver --format codex --event Stop")
    }
    assert len(state) == 4
    if sw.runner == "inprocess":
        assert not [s for s, _ in doctor_hook_lines(sw.env) if s != "ok"]
    r = sw.run("--yes")  # a rerun without --trust-codex keeps that trust
    assert r.rc == 0 and TRUST_HINT not in r.out, r


def test_a_hooks_json_that_is_no_json_object_stops_the_run_with_the_fix(sw: World) -> None:
    """setup cannot tell whether Codex already runs hail's hooks from it."""
    sw.codex.parent.mkdir()
    _hooks_json(sw).write_text('{"hooks": ')
    r = sw.run("--yes")
    assert r.rc == 1, r
    assert r.err.startswith(f"error: {_hooks_json(sw)} is not a JSON object ("), r.err
    assert not sw.codex.exists()
    if sw.runner == "inprocess":
        assert doctor_hook_lines(sw.env)[0][0] == "FIX"
