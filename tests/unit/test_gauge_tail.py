"""The gauge's bounded read from a file's end [docs/gauge.md "Reading"]: whole lines only, newest
first, never the line a client is still writing, and never more than its bound."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hail import policy
from hail.gauge.tail import Tail


def lines_of(path: Path, step: int = 8, limit: int = 1 << 20) -> tuple[list[bytes], Tail]:
    tail = Tail(str(path), step=step, limit=limit)
    return list(tail.lines()), tail


def test_complete_lines_come_newest_first_across_steps(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"first line\nsecond, much longer than one step\n\nthird\n")
    lines, tail = lines_of(path, step=5)
    assert lines == [b"third", b"second, much longer than one step", b"first line"]
    assert tail.whole and tail.bytes_read == path.stat().st_size


def test_the_line_still_being_written_is_never_returned(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"done": 1}\n{"half": "writ')
    assert lines_of(path, step=4)[0] == [b'{"done": 1}']
    path.write_bytes(b'{"only": "half')
    assert lines_of(path, step=4)[0] == []


def test_a_line_starting_before_the_bound_is_not_returned(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"x" * 100 + b"\n" + b"y" * 10 + b"\n")
    lines, tail = lines_of(path, step=16, limit=64)
    assert lines == [b"y" * 10], "the 100-byte line starts beyond the 64 bytes read"
    assert tail.bytes_read == 64 and not tail.whole


def test_a_huge_file_costs_the_bound_and_no_more(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as f:  # 50 MB: sparse, with lines at its end
        f.truncate(50 * 1024 * 1024 - 12)
        f.seek(0, os.SEEK_END)
        f.write(b"\nlast line\n")
    tail = Tail(str(path))
    assert next(tail.lines()) == b"last line"
    assert tail.bytes_read == policy.GAUGE_READ_STEP, "the newest line took one step"
    tail = Tail(str(path))
    list(tail.lines())
    assert tail.bytes_read == policy.GAUGE_READ_MAX and not tail.whole
    assert not tail.fits and tail.size == 50 * 1024 * 1024 - 1


def test_what_is_no_regular_file_is_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        lines_of(tmp_path / "missing")
    with pytest.raises(OSError):
        lines_of(tmp_path)  # a directory
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        lines_of(fifo)  # never waits for a writer
