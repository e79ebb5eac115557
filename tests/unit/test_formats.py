"""Every config format answers setup's and doctor's questions alike [docs/hooks.md "Merge rule",
docs/commands.md "doctor"]: merging its own output changes nothing, a person's own config survives
(hooks, comments, order), doctor finds current and names the program of what setup wrote, an
outdated file is a fix, and a copy Home Manager owns is checked, never edited.

Parametrized over `formats.registry.NAMES`: a new format gets these tests by its samples below.
Each format's file is found as setup finds it (`config_files`, and the file holding hail's hooks
in another's place), in a scratch home with every harness's folder; setup runs in-process.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from hail.commands.setup import run_setup
from hail.harnesses import registry as harnesses
from hail.install.checks import installed_hook_programs
from hail.install.configs import config_files
from hail.install.formats import registry
from hail.install.formats.base import ConfigFile, HooksFormat, OwnFile, Wanted
from hail.install.managed import USE_THE_MODULE

#: The hail setup names in hooks: an absolute path, as setup writes one that no login PATH finds.
PROGRAM = "/opt/hail-test/bin/hail"


@dataclass(frozen=True)
class Sample:
    """Texts of one format: a person's own file, its parts that must survive a merge (in order),
    an outdated file of hail's, and files (from HOME) that make its file the one hail writes."""

    person: str
    kept: tuple[str, ...]
    outdated: str
    seed: tuple[tuple[str, str], ...] = ()


_CODEX_STOP = '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "CMD"}]}]}}\n'.replace(
    "CMD", "hail deliver --format codex --event Stop"
)

SAMPLES = {
    "claude_settings": Sample(
        person="""{
  "model": "opus",
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}]
  },
  "theme": "dark"
}
""",
        kept=('"model": "opus"', '"guard.sh"', '"notify-send done"', '"timeout": 5', '"theme"'),
        outdated='{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command":'
        ' "[ -n \\"$TMUX_PANE\\" ] || exit 0; hail deliver --format claude"}]}]}}\n',
    ),
    "gemini_settings": Sample(
        person="""{
  "model": {"name": "gemini-2.5-pro"},
  "hooks": {
    "AfterTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "fmt"}]}],
    "BeforeAgent": [{"hooks": [{"type": "command", "command": "my-hook", "timeout": 5000}]}]
  },
  "hooksConfig": {"notifications": true}
}
""",
        kept=('"gemini-2.5-pro"', '"write_file"', '"fmt"', '"my-hook"', '"notifications": true'),
        outdated='{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command":'
        ' "hail deliver --format gemini"}]}]}}\n',
    ),
    "qwen_settings": Sample(
        person="""{
  "model": {"name": "qwen3-coder-plus"},
  "permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(rm -rf *)"]},
  "hooks": {
    "PostToolUse": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "fmt"}]}]
  },
  "tools": {"approvalMode": "auto-edit"}
}
""",
        kept=('"qwen3-coder-plus"', '"Bash(git *)"', '"Bash(rm -rf *)"', '"fmt"', '"auto-edit"'),
        outdated='{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command":'
        ' "hail deliver --format qwen"}]}]}}\n',
    ),
    "codex_config": Sample(
        person="""model = "gpt-5"
# my own comment

[[hooks.Notification]]
hooks = [{ type = "command", command = "notify-me" }]

[[hooks.PostToolUse]]
matcher = "Bash"   # formatter
[[hooks.PostToolUse.hooks]]
type = "command"
command = "fmt"

[tui]
theme = "dark"  # trailing comment
""",
        kept=(
            'model = "gpt-5"',
            "# my own comment",
            'command = "notify-me"',
            'matcher = "Bash"   # formatter',
            'command = "fmt"',
            'theme = "dark"  # trailing comment',
        ),
        outdated="""[features]
hooks = true

[[hooks.UserPromptSubmit]]
hooks = [{ type = "command", command = "hail deliver --format codex", timeout = 5 }]
""",
    ),
    "codex_hooks": Sample(
        person="""{
  "hooks": {
    "PreToolUse": [{"matcher": "shell", "hooks": [{"type": "command", "command": "guard.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-me"}]}]
  },
  "note": "mine"
}
""",
        kept=('"guard.sh"', '"notify-me"', '"note": "mine"'),
        outdated=_CODEX_STOP,
        # A hooks.json already holding one of hail's hooks: hail's hooks go there then.
        seed=((".codex/hooks.json", _CODEX_STOP),),
    ),
    "codex_rule": Sample(person="# my own rule\n", kept=(), outdated="# an older hail's rule\n"),
    "opencode_plugin": Sample(
        person="// my own plugin\n", kept=(), outdated="// an older hail's plugin\n"
    ),
    "copilot_hooks": Sample(
        person='{"version": 1, "hooks": {}}\n',
        kept=(),
        outdated='{"version": 1, "hooks": {"agentStop": [{"type": "command",'
        ' "bash": "hail deliver --format copilot --event Stop"}]}}\n',
    ),
}


@dataclass(frozen=True)
class World:
    env: dict[str, str]
    cfg: ConfigFile


def every_file(env: dict[str, str]) -> list[ConfigFile]:
    """The files setup handles: each config, and a file holding hail's hooks in one's place."""
    files = config_files(env)
    beside = [found[0] for cfg in files if (found := cfg.format.hooks_elsewhere(cfg, None, env))]
    return files + beside


@pytest.fixture(params=registry.NAMES)
def world(request: pytest.FixtureRequest, tmp_path: Path) -> World:
    """A home with every harness's config folder, the format's seed files, and its file."""
    name: str = request.param
    home = tmp_path / "home"
    env = {"HOME": str(home), "PATH": os.defpath, "NIX_STORE_DIR": str(tmp_path / "store")}
    for cfg in config_files(env):
        cfg.directory.mkdir(parents=True, exist_ok=True)
    for relative, text in SAMPLES[name].seed:
        (home / relative).write_text(text)
    cfg = next(c for c in every_file(env) if c.format.name == name)
    return World(env, cfg)


def setup(w: World, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    rc = run_setup(w.env, "--check" in args, True, False, out, io.StringIO(), PROGRAM)
    return rc, out.getvalue()


def merge(w: World, text: str) -> str:
    return w.cfg.format.merged(w.cfg, text, Wanted(PROGRAM, w.env))


def test_every_format_is_one_module_and_every_harness_names_known_ones() -> None:
    folder = Path(registry.__file__).parent
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "base", "registry"}
    assert modules == set(registry.NAMES) == set(SAMPLES)
    assert [registry.get(n).name for n in registry.NAMES] == list(registry.NAMES)
    named = {place.format for h in harnesses.every() for place in h.configs}
    assert named <= set(registry.NAMES)
    with pytest.raises(KeyError):
        registry.get("base")


@pytest.mark.parametrize("which", ["empty", "person", "outdated"])
def test_merging_its_own_output_changes_nothing(world: World, which: str) -> None:
    sample = SAMPLES[world.cfg.format.name]
    text = {"empty": "", "person": sample.person, "outdated": sample.outdated}[which]
    once = merge(world, text)
    assert once != text, "hail's part was added"
    assert merge(world, once) == once


def test_a_persons_own_config_survives_in_its_order(world: World) -> None:
    fmt = world.cfg.format
    sample = SAMPLES[fmt.name]
    merged = merge(world, sample.person)
    if isinstance(fmt, OwnFile):  # hail's whole file: what was there is replaced, not merged
        assert merged == merge(world, "")
        return
    assert isinstance(fmt, HooksFormat)
    assert sample.kept, "a format of hooks names what of a person's it keeps"
    places = [merged.find(part) for part in sample.kept]
    assert -1 not in places, [p for p, at in zip(sample.kept, places, strict=True) if at < 0]
    assert places == sorted(places), "in the order the person wrote them"


def test_doctor_finds_current_and_names_the_program_of_what_setup_wrote(world: World) -> None:
    rc, out = setup(world)
    assert rc == 0, out
    fmt, cfg = world.cfg.format, world.cfg
    assert cfg.path.read_text() == merge(world, cfg.path.read_text())
    assert fmt.program_in(cfg, world.env) == PROGRAM
    if isinstance(fmt, HooksFormat):
        assert fmt.hook_program(cfg) == PROGRAM
        # What doctor then starts, found from the harness's own config wherever the hooks went.
        started = {c.harness: p for c, p in installed_hook_programs(world.env)}
        assert started.get(cfg.harness) == PROGRAM, started
    lines = fmt.check(cfg, world.env)
    assert lines[0][0] == "ok", lines
    assert all(status != "FIX" for status, _ in lines), lines
    rc, out = setup(world, "--check")
    assert rc == 0, out
    assert f"ok    {cfg.name}: {fmt.manages} current in {cfg.path}\n" in out


def test_an_outdated_file_is_a_fix_and_setup_makes_it_current(world: World) -> None:
    assert setup(world)[0] == 0
    fmt, cfg = world.cfg.format, world.cfg
    cfg.path.write_text(SAMPLES[fmt.name].outdated)
    assert fmt.check(cfg, world.env)[0] == ("FIX", fmt.outdated(cfg))
    rc, out = setup(world, "--check")
    assert rc == 1 and f"drift {cfg.name}: run hail setup" in out, out
    assert setup(world)[0] == 0
    assert fmt.check(cfg, world.env)[0][0] == "ok"


@pytest.mark.parametrize("current", [True, False])
def test_a_file_home_manager_owns_is_checked_never_edited(world: World, current: bool) -> None:
    assert setup(world)[0] == 0
    fmt, cfg = world.cfg.format, world.cfg
    text = cfg.path.read_text() if current else SAMPLES[fmt.name].outdated
    stored = Path(world.env["NIX_STORE_DIR"]) / "0000-home-manager-files" / cfg.path.name
    stored.parent.mkdir(parents=True, exist_ok=True)
    stored.write_text(text)
    cfg.path.unlink()
    cfg.path.symlink_to(stored)
    assert fmt.managed_by(cfg, world.env) == cfg.path
    status, line = fmt.check(cfg, world.env)[0]
    if current:
        assert status == "ok" and f"{cfg.path}, from Home Manager)" in line, line
    else:
        assert status == "FIX" and USE_THE_MODULE in line, line
    assert re.search(r"^skip  .*Home Manager owns", setup(world)[1], re.M)
    assert stored.read_text() == text
