"""The hook line's own road through the entry point: the same call as the verb table's for every
hook line setup writes, and the table's road for every other line [docs/hooks.md "Hook-path
performance"]."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hail import argv, entry
from hail.harnesses import registry
from hail.install.hook_table import hook_specs


def by_table(args: list[str]) -> tuple[str, str | None, str]:
    """What the verb table makes of a hook line, in `entry.hook_call`'s terms."""
    call = argv.parse(argv.VERB[args[0]], args[1:])
    if args[0] == "brief":
        assert call.flag("hook") and not call.flag("all")
        return "brief", call.text("format"), ""
    return "deliver", call.text("format"), call.text("event") or "UserPromptSubmit"


HOOK_LINES = [
    list(spec.args)
    for harness in registry.NAMES
    for spec in hook_specs(harness)
    if spec.args[:1] in (("deliver",), ("brief",))
]


def test_every_harness_has_deliver_and_brief_lines() -> None:
    deliver = {line[2] for line in HOOK_LINES if line[0] == "deliver"}
    assert deliver == set(registry.NAMES)
    assert sum(line[0] == "brief" for line in HOOK_LINES) == len(registry.NAMES)


@pytest.mark.parametrize("line", HOOK_LINES, ids=" ".join)
def test_a_hook_line_setup_writes_means_what_the_table_says(line: list[str]) -> None:
    assert entry.hook_call(line) == by_table(line)


@pytest.mark.parametrize(
    "line",
    [
        ["deliver"],
        ["deliver", "--format=claude"],
        ["deliver", "--event", "Stop", "--format", "claude"],
        ["deliver", "--format", "claude", "--event"],
        ["deliver", "--format", "claude", "--event", "SessionStart"],
        ["deliver", "--format", "nobody"],
        ["deliver", "--format", "claude", "--help"],
        ["deliver", "--format", "claude", "--event", "Stop", "extra"],
        ["brief"],
        ["brief", "--hook", "--all"],
        ["brief", "--hook", "--format"],
        ["brief", "--hook", "--format", "nobody"],
        ["brief", "--format", "gemini", "--hook"],
        ["listen", "--format", "claude"],
        ["worker", "ask", "deliver"],
    ],
    ids=" ".join,
)
def test_any_other_line_takes_the_tables_road(line: list[str]) -> None:
    assert entry.hook_call(line) is None


def test_a_hook_line_never_imports_the_verb_table() -> None:
    code = (
        "import sys\n"
        "from hail.entry import parse\n"
        "parse(['deliver', '--format', 'claude', '--event', 'PostToolUse'])\n"
        "parse(['brief', '--hook', '--format', 'gemini'])\n"
        "print(sorted(m for m in ('hail.argv', 'hail.verbs', 'hail.cli') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_hook_in_a_seat_named_by_its_git_root_never_imports_the_verb_table(
    tmp_path: Path,
) -> None:
    """The seat check of a root's basename reads the reserved words, not the verb table."""
    root = tmp_path / "app"
    (root / ".git").mkdir(parents=True)
    code = (
        "import sys\n"
        "from hail.seat import find_seat\n"
        f"assert find_seat({str(root)!r}, None).name == 'app'\n"
        "print('hail.argv' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
