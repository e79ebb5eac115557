"""What hail echoes to a terminal (docs/commands.md "Output conventions"): only characters that
could drive or deceive the terminal are escaped; everything else is shown as a person sees it."""

from __future__ import annotations

import unicodedata

from hypothesis import example, given
from hypothesis import strategies as st

from hail.output import shown
from hail.text import DROPPED_CATEGORIES


def harmful(ch: str) -> bool:
    return ch != "\n" and unicodedata.category(ch) in DROPPED_CATEGORIES


@given(st.text())
@example("\x1b[31m red \x9b \u202e evil \u2066 \u200b \ufeff \u2028 \x7f \t\r")
@example("\ud800 lone, \udcff escaped byte")
def test_nothing_that_could_drive_a_terminal_is_shown_raw(text: str) -> None:
    out = shown(text)
    out.encode("utf-8")  # printable at all
    assert not any(harmful(ch) for ch in out), ascii(out)


@given(st.text().filter(lambda t: not any(harmful(ch) for ch in t)))
@example("❯\xa0[hail kind:ask from:boss/%0] thin\u2009space, ideographic\u3000space")
@example("powerline \ue0b0 glyph, unassigned \U000e01f0 \U0010fffd")
@example("emoji 👍🏽 and combining é")
def test_everything_else_is_shown_as_it_is(text: str) -> None:
    assert shown(text) == text


def test_an_escape_names_the_character() -> None:
    assert shown("a\x1bb\u202ec\n") == "a\\x1bb\\u202ec\n"
    assert shown("\ud800") == "\\ud800"


def test_an_age_is_written_one_way_everywhere() -> None:
    """`hail seats`' HOOK column, `hail watch` and `hail doctor` write a span alike."""
    from hail.output import age

    assert [age(s) for s in (-3, 0, 59, 60, 3599, 3600, 3900, 86399, 86400, 9 * 86400)] == [
        "0s",
        "0s",
        "59s",
        "1m",
        "59m",
        "1h00m",
        "1h05m",
        "23h59m",
        "1d",
        "9d",
    ]
