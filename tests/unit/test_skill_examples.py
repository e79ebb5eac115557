"""The agent skill (skills/hail/SKILL.md): its front matter, what it must teach (SPEC §12.1), and
that every example command line in its code blocks is a valid hail command line (SPEC §5.12).

The command-line check here is a small stand-alone model of SPEC §0.2 and §5, independent of the
real parser, so the skill can be checked before and apart from it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

SKILL = Path(__file__).resolve().parents[2] / "skills" / "hail" / "SKILL.md"

KINDS = ("ask", "fyi", "announce", "hold", "release")
CONTROL_KINDS = ("announce", "hold", "release")
HELP_TOPICS = ("send", "kinds", "receive", "seats", "panes", "setup", "state")
#: Send options (SPEC §5.1): those that take a value, and flags.
SEND_VALUED = ("--re", "--scope", "--for")
SEND_FLAGS = ("--no-submit", "--force", "--no-wake")
REMOVED = ("message", "msg", "note", "migrate", "list", "who", "resolve", "id", "name", "hello")


@dataclass(frozen=True)
class Verb:
    """A verb's grammar: positionals (min, max; None = any) and its options."""

    min_args: int
    max_args: int | None
    valued: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()


VERBS = {
    "whoami": Verb(0, 0),
    "seats": Verb(0, 1),
    "sent": Verb(1, 1),
    "await": Verb(1, None, valued=("--timeout",), flags=("--any",)),
    "brief": Verb(0, 0, flags=("--all", "--hook")),
    "inbox": Verb(0, 0, flags=("--peek", "--all")),
    "show": Verb(1, 1),
    "read": Verb(1, 2),
    "type": Verb(2, 2),
    "keys": Verb(2, None),
    "setup": Verb(0, 0, flags=("--check", "--yes", "--trust-codex")),
    "doctor": Verb(0, 0),
    "gc": Verb(0, 0, valued=("--days",)),
    "deliver": Verb(0, 0, valued=("--format", "--event")),
    "help": Verb(0, 1),
    "version": Verb(0, 0, flags=("--json",)),
}

NAME = re.compile(r"^[A-Za-z0-9._-]+$")
PANE = re.compile(r"^%[0-9]+$")
ID = re.compile(r"^[0-9]{4}T[0-9]{6}-[0-9a-f]{4}$")
SPAN = re.compile(r"^[1-9][0-9]*[mhd]$")


def _split(line: str) -> tuple[list[str], str | None]:
    """Words of a command line and its heredoc delimiter as written (None when there is none)."""
    heredoc = None
    match = re.search(r"<<-?\s*(\S+)\s*$", line)
    if match:
        heredoc = match.group(1)
        line = line[: match.start()]
    return shlex.split(line), heredoc


def _options(
    words: list[str], valued: tuple[str, ...], flags: tuple[str, ...]
) -> tuple[list[str], dict[str, str], list[str]]:
    """Split words into positionals, option values and errors (`--opt v` and `--opt=v`)."""
    positionals: list[str] = []
    values: dict[str, str] = {}
    errors: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            positionals.extend(words[i + 1 :])
            break
        name, eq, value = word.partition("=")
        if name in valued:
            if not eq:
                if i + 1 >= len(words):
                    errors.append(f"{name} needs a value")
                    break
                value = words[i + 1]
                i += 1
            values[name] = value
        elif word in flags:
            values[word] = ""
        elif word.startswith("-") and not PANE.match(word):
            errors.append(f"unknown option {word}")
        else:
            positionals.append(word)
        i += 1
    return positionals, values, errors


def _span_ok(span: str) -> bool:
    if not SPAN.match(span):
        return False
    minutes = int(span[:-1]) * {"m": 1, "h": 60, "d": 24 * 60}[span[-1]]
    return minutes <= 7 * 24 * 60


def _is_target(word: str) -> bool:
    if word in VERBS or word in REMOVED or word == "send":
        return False
    seat, _, pane = word.partition("/")
    base, _, sub = seat.partition("@")
    ok_seat = (
        bool(NAME.match(base)) and base not in (".", "..") and (not sub or bool(PANE.match(sub)))
    )
    return (ok_seat and (not pane or bool(PANE.match(pane)))) or bool(PANE.match(word))


def check_send(words: list[str], heredoc: str | None) -> list[str]:
    positionals, values, errors = _options(words, SEND_VALUED, SEND_FLAGS)
    if len(positionals) < 2:
        return [*errors, "a send needs a target and a kind"]
    target, kind, *rest = positionals
    if not _is_target(target):
        errors.append(f"{target!r} is not a seat, sub-seat or pane")
    if kind not in KINDS:
        errors.append(f"{kind!r} is not a kind")
    if len(rest) > 1:
        errors.append(f"unexpected argument {rest[1]!r} after the headline")
    if not rest and heredoc is None:
        errors.append("no headline: pass it as an argument or in a heredoc")
    if heredoc is not None and not re.fullmatch(r"'[^']+'", heredoc):
        errors.append(f"heredoc delimiter {heredoc} is not quoted")
    if kind in CONTROL_KINDS and heredoc is not None:
        errors.append(f"a {kind} has no body")
    if kind == "release" and "--re" not in values:
        errors.append("release needs --re")
    if "--for" in values and (kind != "hold" or not _span_ok(values["--for"])):
        errors.append("--for is a span such as 30m, 8h or 3d, at most 7d, on a hold")
    if "--re" in values and not ID.match(values["--re"]):
        errors.append("--re must be a message id")
    return errors


def check_verb(verb: str, words: list[str], heredoc: str | None) -> list[str]:
    grammar = VERBS[verb]
    positionals, values, errors = _options(words, grammar.valued, grammar.flags)
    if heredoc is not None:
        errors.append(f"{verb} reads no heredoc")
    if len(positionals) < grammar.min_args:
        errors.append(f"{verb} needs {grammar.min_args} argument(s)")
    if grammar.max_args is not None and len(positionals) > grammar.max_args:
        errors.append(f"{verb} takes at most {grammar.max_args} argument(s)")
    if verb in ("sent", "show", "await") and not all(ID.match(p) for p in positionals):
        errors.append(f"{verb} takes message ids")
    if verb in ("read", "type", "keys", "seats") and positionals and not _is_target(positionals[0]):
        errors.append(f"{positionals[0]!r} is not a seat or pane")
    if verb == "read" and len(positionals) == 2 and not positionals[1].isdigit():
        errors.append("read takes a line count")
    if verb == "help" and positionals and positionals[0] not in HELP_TOPICS:
        errors.append(f"no help for {positionals[0]!r}")
    if values.get("--format", "claude") not in ("claude", "codex"):
        errors.append("--format is claude or codex")
    if values.get("--event", "PostToolUse") not in ("UserPromptSubmit", "PostToolUse"):
        errors.append("--event is UserPromptSubmit or PostToolUse")
    return errors


def check_command_line(line: str) -> list[str]:
    """Why `line` is not a valid hail command line (empty when it is)."""
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
    if args[0] == "send":
        return check_send(args[1:], heredoc)
    if args[0] in VERBS:
        return check_verb(args[0], args[1:], heredoc)
    return check_send(args, heredoc)


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
        "hail api-1b ask one two",
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
        "A reply is any message sent with `--re <id>`",
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
    ],
)
def test_the_skill_teaches(phrase: str) -> None:
    assert phrase in SKILL.read_text()


def test_the_skill_explains_every_exit_code() -> None:
    text = SKILL.read_text()
    for code in range(6):
        assert re.search(rf"^\| {code} \|", text, re.M), f"exit code {code}"


@pytest.mark.parametrize("stale", ["tmux-bridge", "done --re", "obligation", "--kind", "--body"])
def test_the_skill_does_not_teach_removed_forms(stale: str) -> None:
    assert stale not in SKILL.read_text()
