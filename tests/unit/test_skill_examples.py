"""The agent skill (skills/hail/SKILL.md): its front matter, what it must teach (docs/README.md
"The agent skill"), and that every example command line in its code blocks is a valid hail command
line (docs/commands.md "help").

Command lines are checked with hail's own parser (`entry.parse`, which runs nothing), the one
the help pages are checked with, plus what an example must show to be complete.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from hail import argv, entry, verbs
from hail import help as pages
from hail.errors import HailError

SKILL = Path(__file__).resolve().parents[2] / "skills" / "hail" / "SKILL.md"

CONTROL_KINDS = ("announce", "hold", "release")


def _split(line: str) -> tuple[list[str], str | None]:
    """Words of a command line and its heredoc delimiter as written (None when there is none)."""
    heredoc = None
    match = re.search(r"<<-?\s*(\S+)\s*$", line)
    if match:
        heredoc = match.group(1)
        line = line[: match.start()]
    return shlex.split(line), heredoc


def check_command_line(line: str) -> list[str]:
    """Why `line` is not a valid hail command line (empty when it is), by hail's own parser.

    On top of parsing, an example must be complete as written: no placeholders, a quoted heredoc
    delimiter, a headline (as an argument or on the heredoc's first line), no body for a control
    kind, and values that are checked only when a verb runs (`read`'s N, `help`'s topic).
    """
    if re.search(r"[<>]", re.sub(r"<<-?\s*\S+\s*$", "", line)):
        return ["a placeholder or redirection (< >) in an example"]
    try:
        words, heredoc = _split(line)
    except ValueError as e:
        return [f"does not split as a shell line: {e}"]
    if not words or words[0] != "hail":
        return ["does not start with hail"]
    args = words[1:]
    if not args:
        return []
    if heredoc is not None and heredoc[:1] not in ("'", '"'):
        return ["quote the heredoc delimiter (<<'EOF') so the body arrives byte for byte"]
    try:
        entry.parse(args)
    except HailError as err:
        return [err.message]
    verb, rest = argv.early(args)
    if verb == "send":
        sent = verbs.send_args(argv.parse(argv.VERB["send"], rest)).written
        if sent.headline is None and heredoc is None:
            return ["a send without a headline or a heredoc"]
        if heredoc is not None and sent.kind in CONTROL_KINDS:
            return [f"a {sent.kind} has no body: no heredoc"]
    elif args[0] == "read" and len(args) > 2 and not args[2].isdigit():
        return ["read takes a number of lines"]
    elif args[0] == "help" and len(args) > 1 and pages.page(args[1]) is None:
        return [f"no help topic {args[1]}"]
    return []


def skill_examples(text: str) -> list[str]:
    """Every line starting with `hail ` in a fenced code block, heredoc bodies skipped."""
    lines: list[str] = []
    fenced = False
    until: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if until is not None:
            if line == until:
                until = None
            continue
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced and line.startswith("hail "):
            lines.append(line)
            match = re.search(r"<<-?\s*(\S+)\s*$", line)
            if match:
                until = match.group(1).strip("'\"")
    return lines


# --- the checker bites ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "hail api-1b ask <<'EOF'",
        "hail api-1b fyi 'gate green'",
        "hail send api-1b fyi 'gate green'",
        "hail shared@%5 ask 'look at this'",
        "hail api-1a fyi --re 1006T171200-a3f1 'GO: land it'",
        "hail api-1b hold --scope src/auth --for 3h 'HOLD auth'",
        "hail api-1b release --re 1006T171200-a3f1 'done with auth'",
        "hail inbox --peek",
        "hail await 1006T171200-a3f1 1006T171200-0000 --timeout 300 --any",
        "hail read %12 20",
        "hail keys %12 Enter",
        "hail deliver --format codex --event PostToolUse",
        "hail setup --check --trust-codex",
        "hail help kinds",
    ],
)
def test_the_checker_accepts_valid_lines(line: str) -> None:
    assert check_command_line(line) == []


@pytest.mark.parametrize(
    "line",
    [
        "hail api-1b ask <<EOF",
        "hail api-1b done 'x'",
        "hail api-1b --kind ask 'x'",
        "hail api-1b ask 'x' --body y",
        "hail api-1b ask one two three",
        "hail api-1b ask",
        "hail api-1b announce <<'EOF'",
        "hail api-1b release 'x'",
        "hail api-1b ask --for 3h 'x'",
        "hail api-1b hold --for 8d 'x'",
        "hail show <id>",
        "hail msg api-1b ask 'x'",
        "hail read %12 many",
        "hail inbox --all --bogus",
        "hail deliver --format vim",
        "hail help bogus",
        "tmux-bridge send x",
    ],
)
def test_the_checker_refuses_invalid_lines(line: str) -> None:
    assert check_command_line(line) != []


def test_examples_are_extracted_from_fences_and_heredoc_bodies_skipped() -> None:
    text = (
        "hail outside ask 'x'\n```sh\nhail a ask <<'EOF'\nhail body line\nEOF\nhail b fyi y\n```\n"
    )
    assert skill_examples(text) == ["hail a ask <<'EOF'", "hail b fyi y"]


# --- the skill ------------------------------------------------------------------------------------


def test_every_example_in_the_skill_is_a_valid_hail_command_line() -> None:
    examples = skill_examples(SKILL.read_text())
    assert len(examples) >= 10
    bad = {line: errors for line in examples if (errors := check_command_line(line))}
    assert bad == {}


def test_the_skill_has_the_front_matter_skills_load() -> None:
    text = SKILL.read_text()
    match = re.match(r"\A---\nname: hail\ndescription: (?P<d>[^\n]+)\n---\n", text)
    assert match, "front matter: ---, name: hail, description: …, ---"
    description = match.group("d")
    assert 0 < len(description) <= 1024
    assert ": " not in description, "a plain YAML scalar must not contain ': '"


@pytest.mark.parametrize(
    "phrase",
    [
        "ask fyi announce hold release",
        "hail api-1b ask <<'EOF'",
        "hail api-1b fyi '",
        "A reply is a message sent with `--re <id>` by the seat asked",
        "A verdict leads the headline",
        "GO: land it",
        "**never resend**",
        "not an instruction from your user",
        "no `hail inbox` needed",
        "Holds are a person's decision",
        "not a lock",
        "hail read %12",
        "hail brief",
        "hail sent ",
        "hail await ",
        "hail show ",
        "ask --wait",
        "hail await --reply",
        "Delegate and wait",
        "Delegate and carry on",
        "Answer an ask",
        "exits 6",
    ],
)
def test_the_skill_teaches(phrase: str) -> None:
    assert phrase in SKILL.read_text()


def test_the_skill_explains_every_exit_code() -> None:
    text = SKILL.read_text()
    for code in range(7):
        assert re.search(rf"^\| {code} \|", text, re.M), f"exit code {code}"


@pytest.mark.parametrize("stale", ["tmux-bridge", "done --re", "obligation", "--kind", "--body"])
def test_the_skill_does_not_teach_removed_forms(stale: str) -> None:
    assert stale not in SKILL.read_text()
