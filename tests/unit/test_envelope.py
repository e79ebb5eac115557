"""The envelope's text rules (docs/envelope-and-frames.md "Cap and folding"): one safe line, the cap
and its fold, and brief clipping."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hail import envelope
from hail.context import cap_from
from hail.envelope import Head
from hail.hooks.brief import clip


def test_sanitize_turns_whitespace_controls_into_spaces_and_drops_the_rest() -> None:
    assert envelope.sanitize("a\x1b[31mred\x1b[0m\tz\n") == "a[31mred[0m z"


def test_sanitize_drops_del_and_c1_controls_and_trims() -> None:
    assert envelope.sanitize("  x\x7fy\x9bz\r\n ") == "xyz"


@given(st.text())
def test_sanitized_text_is_one_line_without_control_characters(text: str) -> None:
    out = envelope.sanitize(text)
    assert "\n" not in out and "\r" not in out
    assert all(ord(c) >= 0x20 and not 0x7F <= ord(c) <= 0x9F for c in out)
    assert out == out.strip()


def test_fold_cuts_at_the_last_sentence_break_in_the_second_half() -> None:
    text = "First sentence is here. Second sentence goes on and on and on and on."
    assert envelope.fold(text, 40) == "First sentence is here …"


def test_fold_leaves_a_headline_within_the_cap_alone() -> None:
    assert envelope.fold("x" * 40, 40) == "x" * 40


def test_fold_of_200_xs_keeps_cap_minus_two_characters() -> None:
    assert envelope.fold("x" * 200, 160) == "x" * 158 + " …"


def test_fold_prefers_a_semicolon_over_a_comma_and_a_space() -> None:
    text = "alpha beta gamma; delta, epsilon zeta eta theta iota kappa lambda"
    assert envelope.fold(text, 30) == "alpha beta gamma …"


@given(st.text(min_size=1), st.integers(min_value=20, max_value=200))
def test_fold_fits_and_is_a_prefix(text: str, cap: int) -> None:
    out = envelope.fold(text, cap)
    assert len(out) <= cap
    if len(text) <= cap:
        assert out == text
    else:
        assert out.endswith(" …")
        assert text.startswith(out[: -len(" …")])


def test_clip_keeps_lines_up_to_cap_plus_80() -> None:
    line = "y" * 240
    assert clip(line, 160) == line


def test_clip_cuts_longer_lines_to_cap_plus_79_and_an_ellipsis() -> None:
    out = clip("y" * 241, 160)
    assert out == "y" * 239 + "…"
    assert len(out) == 240


@given(st.text(), st.integers(min_value=20, max_value=400))
def test_clip_never_exceeds_cap_plus_80(line: str, cap: int) -> None:
    out = clip(line, cap)
    assert len(out) <= cap + 80
    assert out == line or (out.endswith("…") and line.startswith(out[:-1]))


def test_cap_comes_from_hail_envelope_max_only_when_it_is_at_least_20() -> None:
    assert cap_from(None) == 400
    assert cap_from("160") == 160
    assert cap_from("19") == 400
    assert cap_from("lots") == 400


def test_the_fetch_hint_follows_a_body_of_an_ask_but_never_a_control_kind() -> None:
    head = Head(
        kind="ask", sender="boss/%0", reply="boss", id="1006T171200-a3f1", headline="Review it"
    )
    assert envelope.render(head, has_body=True) == (
        "[hail kind:ask from:boss/%0 id:1006T171200-a3f1] Review it — hail inbox"
    )
    hold = Head(
        kind="hold",
        sender="boss",
        reply="boss",
        id="1006T171200-a3f1",
        headline="HOLD",
        scope="s",
        until="t",
    )
    assert envelope.render(hold, has_body=True) == (
        "[hail kind:hold from:boss id:1006T171200-a3f1 scope:s until:t] HOLD"
    )


def test_reply_is_typed_only_when_from_does_not_name_it() -> None:
    sub = Head(
        kind="ask", sender="shared@%5", reply="shared@%5", id="1006T171200-a3f1", headline="x"
    )
    assert envelope.render(sub, has_body=False) == (
        "[hail kind:ask from:shared@%5 id:1006T171200-a3f1] x"
    )
    other = Head(
        kind="fyi",
        sender="boss/%0",
        reply="%3",
        id="1006T171200-a3f1",
        headline="x",
        re="1006T171100-0000",
    )
    assert envelope.render(other, has_body=False) == (
        "[hail kind:fyi from:boss/%0 reply:%3 id:1006T171200-a3f1 re:1006T171100-0000] x"
    )


def test_an_envelope_costs_23_bytes_beyond_its_kind_sender_id_and_headline() -> None:
    head = Head(
        kind="ask", sender="api-1a/%5", reply="api-1a", id="1006T171200-a3f1", headline="Review it"
    )
    line = envelope.render(head, has_body=False)
    values = "".join((head.kind, head.sender, head.id, head.headline))
    assert len(line.encode()) - len(values.encode()) == 23
    assert len(envelope.render(head, has_body=True).encode()) - len(line.encode()) == 15
