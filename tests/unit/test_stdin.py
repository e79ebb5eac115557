"""A body that never ends is refused with the limits policy sets, named in the message."""

from __future__ import annotations

import os

import pytest

from hail import policy
from hail.errors import UsageError
from hail.stdin import read_body


def test_a_body_that_keeps_the_pipe_open_is_refused_after_the_policy_total(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(policy, "STDIN_TOTAL", 0.3)
    r, w = os.pipe()
    try:
        os.write(w, b"a headline\nand a body that never ends")
        with pytest.raises(UsageError) as refused:
            read_body(r)
    finally:
        os.close(r)
        os.close(w)
    assert refused.value.message == (
        "stdin did not end within 0.3 s; pass a finite body (a heredoc or a file)"
    )


def test_a_body_over_the_policy_size_is_refused_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(policy, "STDIN_MAX_MIB", 1)
    monkeypatch.setattr(policy, "STDIN_MAX_BYTES", 10)
    r, w = os.pipe()
    try:
        os.write(w, b"x" * 11)
        os.close(w)
        w = -1
        with pytest.raises(UsageError) as refused:
            read_body(r)
    finally:
        os.close(r)
        if w != -1:
            os.close(w)
    assert refused.value.message == (
        "the body on stdin is over 1 MiB; put it in a file and cite the path"
    )
