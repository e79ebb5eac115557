"""setup's edits of a person's configs: a concurrent edit is never lost, backups never follow a link
and are private, numbers and strings survive exactly, and what cannot be edited safely is refused
with the fix, never a traceback, never a silently dropped comment.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from hail.commands.setup import run_setup
from hail.errors import HailError
from hail.install.checks import doctor_hook_lines
from hail.install.claude_json import merge_claude
from hail.install.codex_toml import merge_codex
from hail.install.hook_table import hook_groups
from hail.install.merge_rule import MergeError
from tests.support.entry import hail_bin
from tests.support.procs import wait_until
from tests.support.world import SCRUBBED

pytestmark = pytest.mark.stress


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env.update(HOME=str(home), XDG_STATE_HOME=str(home / "state"))
    return env


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    (h / ".claude").mkdir(parents=True)
    return h


def _setup(home: Path, *args: str, stdin: io.StringIO | None = None) -> tuple[int, str, str]:
    out = io.StringIO()
    try:
        rc = run_setup(
            _env(home),
            check="--check" in args,
            yes="--yes" in args,
            trust_codex=False,
            out=out,
            stdin=stdin or io.StringIO(),
        )
    except HailError as e:
        return e.exit_code, out.getvalue(), f"error: {e.message}\n"
    return rc, out.getvalue(), ""


class _Terminal(io.StringIO):
    """A stdin that says it is a terminal, holding the person's answers."""

    def isatty(self) -> bool:
        return True


class _EditWhileAsking(io.StringIO):
    """A terminal whose person edits settings.json while setup waits at its first [y/N]."""

    def __init__(self, settings: Path, edited: str) -> None:
        super().__init__()
        self.settings = settings
        self.edited = edited
        self.asked = 0

    def isatty(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        self.asked += 1
        if self.asked == 1:
            self.settings.write_text(self.edited)
        return "y\n"


# --- 4. a concurrent edit ----------------------------------------------------------------------


def test_an_edit_made_while_setup_waits_at_its_prompt_is_kept(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.write_text('{"model": "opus"}\n')
    edited = '{"model": "opus", "theme": "dark"}\n'
    terminal = _EditWhileAsking(settings, edited)
    rc, out, _ = _setup(home, stdin=terminal)
    assert rc == 0
    assert terminal.asked == 2, out  # shown the new diff and asked again
    assert "changed since" in out
    final = json.loads(settings.read_text())
    assert final["theme"] == "dark" and "hooks" in final
    backup = settings.with_name("settings.json.hail-backup")
    assert backup.read_text() == edited  # the text that was replaced


def test_with_yes_a_file_that_changed_after_it_was_read_is_refused(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hail.commands import setup as setup_cmd
    from hail.install.configs import unified_diff as real_diff

    settings = home / ".claude" / "settings.json"
    settings.write_text('{"model": "opus"}\n')

    def diff_then_edit(old: str, new: str, path: str) -> str:
        settings.write_text('{"model": "sonnet"}\n')  # someone saves while setup works
        return real_diff(old, new, path)

    monkeypatch.setattr(setup_cmd, "unified_diff", diff_then_edit)
    rc, _, err = _setup(home, "--yes")
    assert rc == 1
    assert "changed while hail setup ran" in err and "rerun hail setup" in err
    assert settings.read_text() == '{"model": "sonnet"}\n'


@pytest.mark.parametrize("how", ["renamed", "in place"])
@pytest.mark.parametrize("answer", ["--yes", "terminal"])
def test_an_edit_saved_between_the_last_read_and_the_write_is_never_replaced(
    home: Path, monkeypatch: pytest.MonkeyPatch, how: str, answer: str
) -> None:
    """Another program saves the file after setup read it for the last time, while setup writes
    its backup: the rename would replace that edit unseen."""
    from hail.install import write

    settings = home / ".claude" / "settings.json"
    settings.write_text('{"model": "opus"}\n')
    edited = '{"model": "opus", "theme": "dark"}\n'
    real_backup = write._write_backup
    saved: list[str] = []

    def backup_then_edit(backup: Path, text: str) -> None:
        real_backup(backup, text)
        if not saved:
            saved.append(edited)
            if how == "renamed":  # as editors and Codex save: a new file renamed over it
                other = settings.with_name("settings.json.other")
                other.write_text(edited)
                other.replace(settings)
            else:
                with settings.open("r+") as f:
                    f.write(edited)

    monkeypatch.setattr(write, "_write_backup", backup_then_edit)
    if answer == "--yes":
        rc, out, err = _setup(home, "--yes")
        assert saved
        assert rc == 1, out
        assert "changed while hail setup ran" in err and "rerun hail setup" in err
        assert settings.read_text() == edited
    else:
        terminal = _Terminal("y\ny\n")
        rc, out, err = _setup(home, stdin=terminal)
        assert saved
        assert rc == 0, err
        assert out.count("[y/N]") == 2, out  # shown the diff against the edit and asked again
        assert "changed since" in out
        final = json.loads(settings.read_text())
        assert final["theme"] == "dark" and "hooks" in final


# --- 5. backups --------------------------------------------------------------------------------


def test_a_declined_hooks_json_is_what_config_tomls_trust_names(tmp_path: Path) -> None:
    """hooks.json holds hail's hooks by an older program; the person declines its update and takes
    config.toml's: the trust setup records is that of the hooks hooks.json still holds (none of
    the new program's), never of the text they said no to."""
    home = tmp_path / "home"
    hooks_json = home / ".codex" / "hooks.json"
    hooks_json.parent.mkdir(parents=True)
    old = json.dumps({"hooks": hook_groups("codex", "/opt/old/hail")}, indent=2) + "\n"
    hooks_json.write_text(old)
    out = io.StringIO()
    answers = _Terminal("n\ny\ny\n")  # hooks.json, config.toml, hail's rule
    rc = run_setup(_env(home), False, False, True, out, answers, "hail")
    assert rc == 0, out.getvalue()
    assert hooks_json.read_text() == old
    assert "left Codex: unchanged" in out.getvalue()
    config = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert config["features"] == {"hooks": True}
    assert "hooks" not in config, "no hooks, and no trust in hooks hooks.json does not hold"


def test_a_backup_never_writes_through_a_link(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.write_text('{"model": "opus"}\n')
    precious = home / "precious.txt"
    precious.write_text("do not touch\n")
    backup = settings.with_name("settings.json.hail-backup")
    backup.symlink_to(precious)
    rc, _, err = _setup(home, "--yes")
    assert rc == 0, err
    assert precious.read_text() == "do not touch\n"
    assert not backup.is_symlink()
    assert backup.read_text() == '{"model": "opus"}\n'


def test_a_backup_is_private_whatever_an_earlier_backups_mode(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.write_text('{"token": "secret"}\n')
    settings.chmod(0o600)
    backup = settings.with_name("settings.json.hail-backup")
    backup.write_text("old\n")
    backup.chmod(0o644)
    rc, _, err = _setup(home, "--yes")
    assert rc == 0, err
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert backup.read_text() == '{"token": "secret"}\n'


# --- 6. fidelity -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("1e400", "1e400"),
        ("-1E-400", "-1E-400"),
        ("123456789012345678901234567890", "123456789012345678901234567890"),
        ("0.1000000000000000055511151231257827", "0.1000000000000000055511151231257827"),
        ("1.0", "1.0"),
        ('"\\ud83d"', '"\\ud83d"'),
        ('"\\udc00 tail"', '"\\udc00 tail"'),
    ],
)
def test_numbers_and_strings_survive_a_merge_exactly(value: str, kept: str) -> None:
    merged = merge_claude('{"a": ' + value + "}")
    assert f'"a": {kept}' in merged
    merged.encode("utf-8")  # writable as UTF-8


def test_a_lone_surrogate_does_not_crash_setup(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.write_text('{"a":"\\ud83d", "b": 1e400}\n')
    rc, _, err = _setup(home, "--yes")
    assert rc == 0, err
    text = settings.read_text()
    assert '"\\ud83d"' in text and "1e400" in text and "Infinity" not in text


def _deep(n: int) -> str:
    return '{"a": ' + "[" * n + "]" * n + "}"


@pytest.mark.parametrize("verb", [("setup", "--check"), ("doctor",), ("setup", "--yes")])
def test_json_nested_100000_deep_is_refused_with_the_fix_never_a_traceback(
    home: Path, verb: tuple[str, ...]
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.write_text(_deep(100_000))
    before = settings.read_bytes()
    r = subprocess.run(
        [hail_bin(), *verb],
        env={**_env(home), "HAIL_SOCKET": "/nonexistent/socket"},
        cwd=home,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert r.returncode == 1
    assert "nested" in r.stdout + r.stderr and "rerun hail setup" in r.stdout + r.stderr
    assert settings.read_bytes() == before


def test_doctor_lines_report_deep_json_as_a_fix(home: Path) -> None:
    (home / ".claude" / "settings.json").write_text(_deep(100_000))
    lines = doctor_hook_lines(_env(home))
    assert lines and lines[0][0] == "FIX"


CODEX_WITH_COMMENTS = """[hooks]
PostToolUse = [
  # the formatter runs after every edit
  { matcher = "Edit", hooks = [{ type = "command", command = "fmt" }] },
]
"""


def test_a_comment_inside_an_inline_array_is_never_dropped_silently() -> None:
    try:
        merged = merge_codex(CODEX_WITH_COMMENTS, "/c/config.toml", False)
    except MergeError as e:
        assert "comment" in e.why and "[[hooks." in e.why
    else:
        assert "# the formatter runs after every edit" in merged


def test_setup_refuses_a_codex_edit_that_would_drop_a_comment_with_the_fix(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    config = home / ".codex" / "config.toml"
    config.write_text(CODEX_WITH_COMMENTS)
    rc, _, err = _setup(home, "--yes")
    if rc == 0:
        assert "# the formatter runs after every edit" in config.read_text()
    else:
        assert rc == 1 and "comment" in err and "rerun hail setup" in err, err
        assert config.read_text() == CODEX_WITH_COMMENTS


#: Another program saving settings.json every few milliseconds, as an editor or a client saves
#: (a new file renamed over it), each save adding one key to what it read and dropping hail's
#: hooks, so that every setup run has something to write; after each save it logs the key, so
#: the test knows every key that was saved.
WRITER = """
import json, os, sys, time
path, log, stop = sys.argv[1:4]
i = 0
with open(log, "a", buffering=1) as saved:
    while not os.path.exists(stop):
        with open(path) as f:
            data = json.load(f)
        data[f"k{i}"] = i
        data.pop("hooks", None)
        tmp = path + ".writer"
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.replace(tmp, path)
        saved.write(f"k{i}\\n")
        i += 1
        time.sleep(0.003)
"""

#: setup runs against the writer until this many wrote the file (many are refused while the
#: writer saves every few ms), for at most this long.
CONCURRENT_WRITES = 80
CONCURRENT_SECONDS = 90.0
#: Keys a rename can still replace: saves whose rename is under way in the kernel when setup makes
#: its last comparison. Measured here: none to a few in 80 writes, more when the disk is busy
#: (renames then wait for the journal); without the comparison before the rename, 30 to 40.
LOST_MAX = CONCURRENT_WRITES // 10


def test_setup_yes_beside_a_concurrent_writer_refuses_or_writes_and_measures_what_is_lost(
    home: Path, tmp_path: Path
) -> None:
    """setup --yes over and over while another program saves the same file every 3 ms, holding
    no lock. What hail guarantees: each run writes, finds the file current, or refuses because the
    file changed, and a save it can see before its rename is never replaced. What it cannot
    guarantee is measured: a save landing between setup's last look at the file and its rename
    (docs/commands.md "setup")."""
    settings = home / ".claude" / "settings.json"
    settings.write_text("{}\n")
    log, stop = tmp_path / "saved.log", tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(settings), str(log), str(stop)],
        stderr=subprocess.PIPE,
        text=True,
    )
    outcomes: dict[str, int] = {"written": 0, "current": 0, "refused": 0}
    try:
        wait_until(lambda: log.exists() and log.stat().st_size > 0)
        deadline = time.monotonic() + CONCURRENT_SECONDS
        while outcomes["written"] < CONCURRENT_WRITES and time.monotonic() < deadline:
            rc, out, err = _setup(home, "--yes")
            if rc == 0:
                outcomes["written" if "done " in out else "current"] += 1
            else:
                assert "changed while hail setup ran" in err, err
                outcomes["refused"] += 1
    finally:
        stop.touch()
        _, writer_err = writer.communicate(timeout=30)
    assert writer.returncode == 0, writer_err
    final = json.loads(settings.read_text())
    saved = log.read_text().split()
    lost = [key for key in saved if key not in final]
    print(f"{len(saved)} keys saved, {len(lost)} lost; setup runs: {outcomes}")
    assert outcomes["written"] >= CONCURRENT_WRITES // 8, outcomes  # the race was run
    assert len(lost) <= LOST_MAX, f"{len(lost)} of {len(saved)} saved keys lost; {outcomes}"
