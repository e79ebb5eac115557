"""The message file and records (docs/files.md "Message file", docs/files.md "Records"):
render-then-parse round-trips every body."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hail.message import Message, parse, render
from hail.store.fs import parse_record
from hail.store.records import render_record
from hail.text import one_line

#: Values as senders write them: already one clean line (render makes any other value one).
HEADER_VALUE = st.text(min_size=1).map(one_line).filter(bool)


def test_headers_are_written_in_send_order_then_a_blank_line_and_the_body() -> None:
    headers = {
        "ask": "review",
        "id": "1006T171200-a3f1",
        "from": "boss/%0",
        "kind": "ask",
        "reply": "boss",
        "time": "2026-10-06T17:12:00Z",
    }
    assert render(headers, "line one\nline two") == (
        "from: boss/%0\nreply: boss\nkind: ask\nid: 1006T171200-a3f1\n"
        "time: 2026-10-06T17:12:00Z\nask: review\n\nline one\nline two\n"
    )


@given(st.text())
def test_round_trips_any_body(body: str) -> None:
    headers = {"from": "boss", "kind": "fyi", "id": "1006T171200-a3f1", "ask": "h"}
    msg = parse(render(headers, body))
    assert msg.body == body
    assert msg.headers == headers


@given(
    st.dictionaries(
        st.sampled_from(["from", "reply", "kind", "id", "time", "re", "scope", "until", "ask"]),
        HEADER_VALUE,
    ),
    st.text(),
)
def test_round_trips_any_header_values_and_body(headers: dict[str, str], body: str) -> None:
    msg = parse(render(headers, body))
    assert msg.headers == headers
    assert msg.body == body


@given(st.dictionaries(st.sampled_from(["from", "kind", "id", "re", "scope", "ask"]), st.text()))
def test_no_header_value_can_add_a_header_or_end_the_headers(headers: dict[str, str]) -> None:
    msg = parse(render(headers, "body"))
    assert set(msg.headers) <= set(headers)
    assert msg.body == "body"
    assert all(v == one_line(v) for v in msg.headers.values())


def test_a_headline_only_message_stores_its_headline_as_body() -> None:
    msg = parse(render({"kind": "ask", "ask": "just this"}, "just this"))
    assert not msg.has_body
    assert parse(render({"kind": "ask", "ask": "h"}, "more")).has_body


def test_a_line_that_is_not_a_header_ends_the_headers() -> None:
    msg = parse("kind: ask\nnot a header\nbody: x\n")
    assert msg.headers == {"kind": "ask"}
    assert msg.body == "not a header\nbody: x"


def test_unknown_headers_of_older_versions_are_kept() -> None:
    msg = parse("from: boss\nbead: hail-12\nkind: ruling\n\nbody\n")
    assert msg.get("bead") == "hail-12"
    assert msg.kind == "ruling"
    assert msg.sender == "boss"


def test_records_are_header_lines_only_and_keep_empty_values() -> None:
    text = render_record([("id", "x"), ("scope", ""), ("headline", "a: b")])
    assert text == "id: x\nscope: \nheadline: a: b\n"
    assert parse_record(text) == {"id": "x", "headline": "a: b"} | {"scope": ""}


def test_record_reading_is_lenient() -> None:
    assert parse_record("garbage\nid: x\nbad key: y\nid: second\n") == {"id": "x"}
    assert Message().headline == ""
