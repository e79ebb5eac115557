"""Whether the harness's payload came whole (docs/hooks.md "What deliver reads"): a JSON object is
whole only once its outermost brace closed, never at an inner `}` or one inside a string."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hail.hooks.protocol import closes_an_object

# Text with what matters to the scan: braces, brackets, quotes and backslashes, inside strings too.
TEXT = st.text(alphabet=st.sampled_from('ab {}[]":,\\\n\u00e9\U0001f600\x00'), max_size=12)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
OBJECTS = st.dictionaries(TEXT, VALUES, max_size=5)
LAYOUTS = st.sampled_from(
    [
        {"separators": (",", ":")},
        {"separators": (", ", ": ")},
        {"indent": 2},
        {"indent": 0, "ensure_ascii": False},
        {"ensure_ascii": False},
    ]
)


@given(OBJECTS, LAYOUTS, st.sampled_from(["", " ", "\n", " \r\n\t"]))
def test_an_object_is_whole_at_its_last_brace_and_at_no_cut_before_it(
    obj: dict[str, object], layout: dict[str, object], around: str
) -> None:
    text = (around + json.dumps(obj, **layout) + around).encode()  # type: ignore[arg-type]
    assert isinstance(json.loads(text), dict)
    assert closes_an_object(text)
    end = len(text.rstrip())
    for cut in range(end):
        assert not closes_an_object(text[:cut]), text[:cut]


@given(st.text(alphabet=st.sampled_from('{}[]":,\\ a1\n'), max_size=24))
def test_whatever_json_reads_as_an_object_is_whole(text: str) -> None:
    try:
        parsed = json.loads(text)
    except ValueError:
        return
    assert closes_an_object(text.encode()) is isinstance(parsed, dict)


@pytest.mark.parametrize(
    ("data", "whole"),
    [
        (b'{"tool_input":{"x":1}', False),  # cut right after an inner brace
        (b'{"tool_input":{"x":1}, "agent_id":"sub"}', True),
        (b'{"a":"}"', False),  # the brace is text, the string is open
        (b'{"a":"\\\\"}', True),  # an escaped backslash ends before the quote
        (b'{"a":"\\"}', False),  # an escaped quote does not end the string
        (b'{"a":1}{"b":2}', False),
        (b'{"a":1}}', False),
        (b"[{}]", False),
        (b"", False),
        (b"{}", True),
    ],
)
def test_examples(data: bytes, whole: bool) -> None:
    assert closes_an_object(data) is whole
