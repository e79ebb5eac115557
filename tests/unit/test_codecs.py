"""The hand-written codecs of the hook path agree with the standard library they stand in for:
`protocol.json_string` with `json.dumps`, `protocol.prompt_of` with `json.loads`, and `ids.iso` /
`ids.parse_iso` with `datetime` (docs/hooks.md "Hook output", docs/commands.md "Output
conventions")."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime

from hypothesis import example, given
from hypothesis import strategies as st

from hail import ids
from hail.hooks.protocol import _json_string, _names_an_agent, json_string, prompt_of

#: A lone surrogate: a Python str may hold one, UTF-8 cannot.
LONE = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
#: Text a harness can send: any character but a lone surrogate.
SENDABLE = st.text(st.characters(exclude_categories=["Cs"]))


def no_lone_surrogates(text: str) -> str:
    """What a UTF-16 decoder makes of `text`: a pair becomes its character, a lone half U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


# --- json_string: what the hooks print ------------------------------------------------------------


@given(SENDABLE)
@example('\x00\x1f\x7f\u2028\u2029\ufeff"\\/\b\f\n\r\t')
def test_json_string_writes_what_json_dumps_writes(text: str) -> None:
    assert json_string(text) == json.dumps(text, ensure_ascii=False)


@given(st.text(st.one_of(st.characters(), LONE)))
@example("\ud800")
@example("a\udfffb\ud83d")
def test_json_string_round_trips_any_str_and_is_always_utf8(text: str) -> None:
    # A lone surrogate is written as its \u escape (what json.dumps writes with ensure_ascii):
    # raw, it could not be encoded, and the hook's output would never be written.
    literal = json_string(text)
    literal.encode("utf-8")
    assert json.loads(literal) == text


# --- prompt_of: the one field the hook path decodes ---------------------------------------------

#: Other fields of a UserPromptSubmit payload: scalars, as both harnesses send them, whose text
#: may itself mention `"prompt"`.
OTHER_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    SENDABLE,
    st.sampled_from(['"prompt": "not this"', '\\"prompt\\":', "prompt", "\\", '"']),
)
OTHER_FIELDS = st.dictionaries(
    st.one_of(SENDABLE, st.sampled_from(["agent_id", "promptx", "xprompt", 'a"prompt'])).filter(
        lambda k: k != "prompt"
    ),
    OTHER_VALUE,
    max_size=4,
)


@given(SENDABLE, OTHER_FIELDS, OTHER_FIELDS, st.booleans(), st.booleans())
def test_prompt_of_reads_what_json_loads_reads(
    prompt: str, before: dict[str, object], after: dict[str, object], ascii: bool, spaced: bool
) -> None:
    payload = {**before, "prompt": prompt, **after}
    separators = (", ", ": ") if spaced else (",", ":")
    data = json.dumps(payload, ensure_ascii=ascii, separators=separators).encode("utf-8")
    assert prompt_of(data) == json.loads(data)["prompt"] == prompt


@given(OTHER_FIELDS)
def test_a_payload_without_a_prompt_has_none(fields: dict[str, object]) -> None:
    assert prompt_of(json.dumps(fields).encode("utf-8")) is None


@given(st.lists(st.one_of(st.characters(), LONE)).map("".join))
def test_escaped_lone_surrogates_read_as_replacement_characters(text: str) -> None:
    data = json.dumps({"prompt": text}).encode("ascii")  # every surrogate written as \uXXXX
    assert prompt_of(data) == no_lone_surrogates(text)


@given(st.one_of(st.text(max_size=12), st.text('\\u09aFdD"+ _\n\x01x', max_size=14)))
@example('\\u+041"')
@example('\\u 41a"')
@example('\\u_041"')
@example('\\u00e"')
@example('a\nb"')
@example('\\x"')
def test_the_string_decoder_refuses_what_json_refuses(tail: str) -> None:
    """`_json_string` takes the text after an opening quote: it reads exactly the string literal
    `json.loads` reads there, and refuses (None) what json refuses."""
    expected: object
    try:
        expected, _ = json.JSONDecoder().raw_decode('"' + tail)  # the literal, whatever follows
    except ValueError:
        expected = None
    assert expected is None or isinstance(expected, str)
    got = _json_string(tail)
    assert got == (None if expected is None else no_lone_surrogates(expected))


@given(SENDABLE.filter(bool), OTHER_FIELDS)
def test_a_named_agent_is_seen_in_any_json_that_names_it(
    agent: str, fields: dict[str, object]
) -> None:
    data = json.dumps({**fields, "agent_id": agent}).encode("utf-8")
    assert _names_an_agent(data)


# --- iso and parse_iso: the times hail writes and reads -------------------------------------------

#: Seconds from the year 1000 (time.strftime pads no shorter year) to the end of the year 9999.
SECONDS = st.integers(min_value=-30610224000, max_value=253402300799)


def reference(text: str) -> float | None:
    """What `datetime` makes of hail's time format, or None when it refuses the text."""
    try:
        parsed = datetime.strptime(text.strip(), "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return None
    if text.strip() != parsed.strftime("%Y-%m-%dT%H:%M:%SZ"):
        return None  # strptime takes unpadded fields (`2026-1-5…`): hail never writes them
    return parsed.replace(tzinfo=UTC).timestamp()


@given(SECONDS)
def test_iso_writes_what_datetime_writes_and_parse_iso_reads_it_back(t: int) -> None:
    text = ids.iso(t)
    assert text == datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert ids.parse_iso(text) == datetime.fromisoformat(text).timestamp() == t


@given(st.floats(min_value=-30610224000, max_value=253402300799))
def test_parse_iso_of_a_fractional_time_is_its_whole_second(t: float) -> None:
    assert ids.parse_iso(ids.iso(t)) == math.floor(t)


@given(st.text(st.sampled_from("0123456789-T:Z +_\u0663\uff12 "), min_size=19, max_size=21))
@example("2026-02-29T00:00:00Z")
@example("2026-02-31T12:00:00Z")
@example("2024-02-29T00:00:00Z")
@example("2100-02-29T00:00:00Z")
@example("2026-04-31T00:00:00Z")
@example("2026-12-31T23:59:60Z")
@example("0000-01-01T00:00:00Z")
@example("+026-01-01T00:00:00Z")
@example("2026-+1-01T00:00:00Z")
@example("2026-01-01T 1:00:00Z")
@example("2026-01-01T1_:00:00Z")
@example("\uff12026-01-01T00:00:00Z")
@example("2026-01-01T00:00:00+")
@example(" 2026-01-01T00:00:00Z\n")
def test_parse_iso_accepts_exactly_what_datetime_accepts_in_hails_format(text: str) -> None:
    assert ids.parse_iso(text) == reference(text)


@given(st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)))
def test_parse_iso_agrees_with_datetime_on_every_calendar_second(when: datetime) -> None:
    text = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert ids.parse_iso(text) == when.replace(microsecond=0, tzinfo=UTC).timestamp()
