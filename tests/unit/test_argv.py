"""The one verb table and its parser: value rules that mean the same to every verb, `--wait`'s
optional value, and the click verbs built from the same table."""

from __future__ import annotations

import pytest

from hail import argv, cli
from hail.errors import UsageError

TAIL = argv.PARSER_TAIL


def hand(verb: str, *args: str) -> dict[str, object]:
    return argv.parse(argv.VERB[verb], list(args)).values


def by_click(verb: str, *args: str) -> dict[str, object]:
    return cli.parse(verb, list(args)).values


@pytest.mark.parametrize("text", ["0", "2", "2.5", ".5", "0.5", "30.", "600"])
def test_seconds_are_digits_with_at_most_one_point_for_every_option(text: str) -> None:
    assert hand("await", "x", "--timeout", text)["timeout"] == float(text)
    assert hand("send", "w", "ask", "q", f"--wait={text}")["wait_value"] == float(text)


@pytest.mark.parametrize("text", ["soon", "-1", "inf", "nan", "1e3", "", "1.2.3", "١"])
def test_anything_else_is_refused_by_every_seconds_option_alike(text: str) -> None:
    for verb, args, name in (
        ("await", ["x", "--timeout", text], "--timeout"),
        ("send", ["w", "ask", "q", f"--wait={text}"], "--wait"),
    ):
        with pytest.raises(UsageError) as err:
            hand(verb, *args)
        assert err.value.message == f"{name} takes a number of seconds, not '{text}'{TAIL}"


@pytest.mark.parametrize("text", ["90", "1", "365"])
def test_days_is_a_positive_whole_number(text: str) -> None:
    assert by_click("gc", "--days", text)["days"] == int(text)


@pytest.mark.parametrize("text", ["0x", "0", "-3", "1.5", "", "ten", "+5", "١٢", " 7 "])
def test_any_other_days_is_refused_in_the_same_words_as_the_hand_parser(text: str) -> None:
    with pytest.raises(UsageError) as err:
        by_click("gc", f"--days={text}")
    assert err.value.message == f"--days takes a whole number of days, not '{text}'{TAIL}"


@pytest.mark.parametrize(
    ("args", "positional", "seconds"),
    [
        (["w", "ask", "--wait", "q"], ["w", "ask", "q"], None),
        (["w", "ask", "--wait", "30", "q"], ["w", "ask", "q"], 30.0),
        (["w", "ask", "--wait", ".5", "q"], ["w", "ask", "q"], 0.5),
        (["w", "ask", "--wait=2.5", "q"], ["w", "ask", "q"], 2.5),
        (["--wait", "w", "ask"], ["w", "ask"], None),
        (["w", "ask", "q", "--wait"], ["w", "ask", "q"], None),
        (["w", "ask", "--wait", "--re", "x"], ["w", "ask"], None),
    ],
)
def test_wait_takes_an_optional_number_of_seconds(
    args: list[str], positional: list[str], seconds: float | None
) -> None:
    got = hand("send", *args)
    assert got["wait"] is True and got.get("wait_value") == seconds
    names = ("target", "kind", "headline")
    assert [got[n] for n in names if n in got] == positional


def test_a_literal_verb_takes_the_words_after_its_target_as_they_are() -> None:
    assert by_click("keys", "%3", "-v", "--x", "Enter")["keys"] == ["-v", "--x", "Enter"]
    assert by_click("type", "%3", "--help-me")["text"] == "--help-me"


def test_lines_must_be_a_positive_number() -> None:
    assert by_click("read", "%3", "20")["lines"] == 20
    with pytest.raises(UsageError, match=r"^read takes a number of lines, not 'x'"):
        by_click("read", "%3", "x")


def test_the_send_refuses_its_old_options_by_name() -> None:
    for name in ("--kind", "--body"):
        with pytest.raises(UsageError, match=f"^{name} is not an option"):
            hand("send", "w", name, "x")


def test_no_verb_name_appears_twice_and_every_option_key_is_unique_per_verb() -> None:
    assert len(argv.TABLE) == len(argv.VERB), "two verbs of the table share a name"
    for verb in argv.TABLE:
        keys = [o.key for o in verb.opts] + [a.name for a in verb.args]
        assert len(keys) == len(set(keys)), verb.name
