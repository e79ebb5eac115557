"""Gemini CLI's session file read for the gauge [docs/gauge.md "Gemini CLI"]: the newest reply's
tokens, a reply written again under its id, rewinds and snapshots read as the CLI reads them, and
the CLI's own window table."""

from __future__ import annotations

from pathlib import Path

import pytest

from hail import policy
from hail.config import Config
from hail.gauge.base import Where
from hail.gauge.choose import reader
from tests.support.gauge_files import (
    gemini_filler,
    gemini_header,
    gemini_reply,
    gemini_reply_record,
    gemini_rewind,
    gemini_set,
    gemini_user,
)

GEMINI = reader("gemini")
FIRST = (3101, 21003, 0, 41)
SECOND = (3201, 22003, 0, 42)
THIRD = (3301, 23003, 0, 43)


def session(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "session.jsonl"
    path.write_text(gemini_header() + "".join(lines))
    return str(path)


def test_the_newest_reply_gives_the_context_and_each_reply_counts_once(tmp_path: Path) -> None:
    path = session(
        tmp_path,
        gemini_user("u1"),
        gemini_set(lastUpdated="t"),
        gemini_reply("g1", FIRST),
        gemini_reply("g1", FIRST),  # written again when its tool call ended
        gemini_user("u2"),
        gemini_reply("g2", SECOND, thoughts=7),
        gemini_set(lastUpdated="t"),
    )
    gauge = GEMINI.gauge(Where(path), Config())
    assert (gauge.context.value, gauge.context.source) == (3201 + 22003, "session-file")
    assert (gauge.window.value, gauge.window.source) == (1_048_576, "gemini-cli-table")
    assert gauge.model == "gemini-2.5-flash"
    assert gauge.spent.value == sum(FIRST) + sum(SECOND) + 7, "thoughts are output"


def test_a_rewind_drops_the_replies_from_its_message_on(tmp_path: Path) -> None:
    path = session(
        tmp_path,
        gemini_user("u1"),
        gemini_reply("g1", FIRST),
        gemini_user("u2"),
        gemini_reply("g2", SECOND),
        gemini_rewind("u2"),
    )
    gauge = GEMINI.gauge(Where(path), Config())
    assert gauge.context.value == sum(FIRST[:2]) and gauge.spent.value == sum(FIRST)
    with Path(path).open("a") as f:
        f.write(gemini_user("u3") + gemini_reply("g3", THIRD))
    gauge = GEMINI.gauge(Where(path), Config())
    assert gauge.context.value == sum(THIRD[:2])
    assert gauge.spent.value == sum(FIRST) + sum(THIRD)


def test_a_snapshot_replaces_what_came_before_it(tmp_path: Path) -> None:
    snapshot = [gemini_reply_record("g1", FIRST)]
    path = session(
        tmp_path,
        gemini_reply("g0", THIRD),  # before the snapshot: gone
        gemini_set(messages=snapshot),
        gemini_user("u2"),
    )
    gauge = GEMINI.gauge(Where(path), Config())
    assert gauge.context.value == sum(FIRST[:2]) and gauge.spent.value == sum(FIRST)


@pytest.mark.parametrize(
    ("model", "window"), [("gemma-4-31b-it", 256_000), ("gemini-3-pro-preview", 1_048_576)]
)
def test_the_window_is_the_clis_own(tmp_path: Path, model: str, window: int) -> None:
    path = session(tmp_path, gemini_reply("g1", FIRST, model=model))
    assert GEMINI.gauge(Where(path), Config()).window.value == window


def test_a_reply_far_back_a_half_line_and_a_missing_file(tmp_path: Path) -> None:
    reply = gemini_reply("g2", SECOND)
    filler = gemini_filler(2 * policy.GAUGE_READ_STEP)
    path = session(tmp_path, gemini_reply("g1", FIRST), filler, reply[:30])
    gauge = GEMINI.gauge(Where(path), Config())
    assert gauge.context.value == sum(FIRST[:2]) and gauge.bytes_read > 2 * policy.GAUGE_READ_STEP
    missing = GEMINI.gauge(Where(str(tmp_path / "none.jsonl")), Config())
    assert (missing.context.why, missing.window.why) == ("no-file", "no-file")
