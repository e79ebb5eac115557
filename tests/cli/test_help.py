"""Help pages: required content, exit codes, and every example line parses with the real parser."""

from __future__ import annotations

import shlex

import pytest

from hail import argv, cli, entry, policy, verbs
from hail import help as pages
from hail.errors import HailError
from tests.support.world import World


def example_lines() -> list[str]:
    """Every line of every page that shows a command (starts with `hail ` after indentation)."""
    out = []
    for text in [pages.MAP, *pages.TOPICS.values()]:
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith("hail ") and "<<" not in stripped and "—" not in stripped:
                command = stripped.split("   ")[0].strip()
                out.append(command)
    return out


def concrete(words: list[str]) -> list[str]:
    """Placeholders become sample values, optional parts are dropped, `a|b` takes `a`."""
    out: list[str] = []
    optional = 0
    for w in words:
        optional += w.count("[")
        if optional:
            optional -= w.count("]")
            continue
        w = w.replace("<id>...", "1006T171200-a3f1").replace("<id>", "1006T171200-a3f1")
        w = w.replace("<seat>", "worker").replace("<pane|seat>", "%3").replace("<key>...", "Enter")
        w = w.replace("<kind>", "ask").replace("<hold id>", "1006T171200-a3f1")
        w = w.replace("<headline>", "x").replace("<why>", "y").replace("<text>", "t")
        w = w.replace("<s>", "scope").replace("<span>", "3h").replace("claude|codex", "claude")
        w = w.replace("<harness>", "claude")
        out.append(w.split("|")[0])
    return out


EXAMPLES = example_lines()


def test_there_are_examples_to_check() -> None:
    assert len(EXAMPLES) > 20


@pytest.mark.parametrize("line", EXAMPLES)
def test_every_help_example_parses(line: str) -> None:
    words = concrete(shlex.split(line))
    assert words[0] == "hail"
    args = words[1:]
    try:
        entry.parse(args)  # parsed, not run
    except HailError as err:  # pragma: no cover - the failure message is the point
        pytest.fail(f"{line!r} does not parse: {err}")


def test_the_map_names_the_groups_and_the_send_form(world: World) -> None:
    r = world.run()
    assert r.returncode == 0
    assert r.stdout.splitlines()[0] == "hail — messages between coding agents on one machine"
    assert "hail <seat> <kind> '<headline>'" in r.stdout
    assert "await <id>..." in r.stdout
    for group in ("Send", "Receive", "Seats", "Panes", "Tool"):
        assert f"\n{group}" in r.stdout


def test_pages_carry_the_required_content(world: World) -> None:
    assert "ask  fyi  announce  hold  release" in world.run("help", "kinds").stdout
    send = world.run("await", "--help").stdout
    for needle in ("--re <id>", "<<'EOF'", "'<headline>'", "do not resend", "--kind and --body"):
        assert needle in send
    assert "fold" in send and "cap" in send
    everything = "".join(world.run("help", t).stdout for t in pages.TOPICS) + world.run().stdout
    for banned in ("tmux-bridge", "obligation", "done --re"):
        assert banned not in everything


def test_unknown_topics_and_pageless_words_exit_1(world: World) -> None:
    r = world.run("help", "bogus")
    assert r.returncode == 1
    assert (
        "no help for 'bogus'. Topics: send kinds talk receive seats panes setup state" in r.stderr
    )
    r = world.run("worker", "--help")
    assert r.returncode == 1 and "no help for 'worker'" in r.stderr


def test_version_forms(world: World) -> None:
    from hail import __version__

    for args in (["version"], ["--version"], ["-V"]):
        assert world.run(*args).stdout == f"hail {__version__}\n"
    assert world.run("version", "--json").stdout == f'{{"name":"hail","version":"{__version__}"}}\n'


def test_parser_errors_exit_1_with_the_help_tail(world: World) -> None:
    for args in (
        ["worker", "ask", "x", "--bead", "1"],
        ["--bogus"],
        ["inbox", "--nope"],
        ["deliver", "--x"],
    ):
        r = world.run(*args)
        assert r.returncode == 1, args
        assert r.stderr.endswith(". 'hail help' lists every command\n"), r.stderr
        assert "Usage:" not in r.stderr and "Traceback" not in r.stderr


def test_every_verb_of_the_table_has_a_run_and_nothing_else_does() -> None:
    assert list(verbs.RUNS) == list(argv.VERB)


@pytest.mark.parametrize("verb", [v for v in argv.TABLE if not v.lean], ids=lambda v: v.name)
def test_click_builds_every_verb_it_parses_from_the_table(verb: argv.Verb) -> None:
    params = {p.name for p in cli.command(verb).params}
    assert params == {a.name for a in verb.args} | {o.key for o in verb.opts}


@pytest.mark.parametrize(
    ("topic", "stated"),
    [
        ("", f"the last N lines of a pane (default {policy.READ_DEFAULT_LINES})"),
        ("send", f"at most {policy.SCOPE_MAX} characters"),
        ("send", f"(at most {policy.HOLD_MAX_DAYS}d; default {policy.HOLD_DEFAULT_HOURS}h)"),
        ("send", f"default {policy.DEFAULT_ENVELOPE_MAX} characters"),
        ("send", f"no hook has read that seat in {policy.HOOKED_FRESH_DAYS} days"),
        (
            "talk",
            f"(default {policy.AWAIT_DEFAULT_TIMEOUT:g}; "
            f"{policy.AWAIT_DEFAULT_TIMEOUT_CODEX:g} under Codex",
        ),
        ("talk", f"After {policy.REPLY_CHAIN_MAX} replies in a row"),
        ("kinds", f"ran within {policy.HOOKED_FRESH_DAYS} days"),
        ("kinds", f"({policy.HOLD_DEFAULT_HOURS}h, or --for up to {policy.HOLD_MAX_DAYS}d)"),
        ("receive", f"at most {policy.STOP_BLOCKS_MAX} times in a row"),
        ("receive", f"about {policy.INBOX_MAX_KIB} KiB at a"),
        ("state", f"older than N days (default {policy.GC_DEFAULT_DAYS})"),
        (
            "state",
            f"(default {policy.DEFAULT_ENVELOPE_MAX}; {policy.MIN_ENVELOPE_MAX} to "
            f"{policy.MAX_ENVELOPE_MAX})",
        ),
    ],
)
def test_help_states_the_limits_hail_applies(world: World, topic: str, stated: str) -> None:
    page = world.run("help", *([topic] if topic else [])).stdout
    assert stated in " ".join(page.split())
