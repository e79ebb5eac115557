"""Claude Code's transcript read for the gauge [docs/gauge.md "Claude Code"], with the quirks
measured on 2.1.332: one call's usage repeated on several lines, sidechains, synthetic replies, a
usage line far from the end, a half-written last line, compaction; and its table of windows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hail import policy
from hail.config import Config, Price
from hail.gauge.base import Where
from hail.gauge.choose import reader
from hail.gauge.claude import canonical
from tests.support.gauge_files import (
    claude_call,
    claude_compaction,
    claude_filler,
    claude_synthetic,
)

CLAUDE = reader("claude")
FIRST = (3101, 21003, 517, 41)  # fresh, cache read, cache write, output
SECOND = (3201, 22003, 527, 42)


def transcript(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(lines))
    return str(path)


def test_the_context_is_the_newest_calls_whole_input_and_the_session_is_summed(
    tmp_path: Path,
) -> None:
    path = transcript(
        tmp_path,
        claude_call("msg_1", FIRST, text="a tool call"),
        claude_call("msg_1", FIRST, text="its second block"),  # the same call, written again
        claude_filler(500),
        claude_call("msg_2", SECOND),
    )
    gauge = CLAUDE.gauge(Where(path, "claude-opus-5-5"), Config())
    assert gauge.context.value == 3201 + 22003 + 527 and gauge.context.source == "transcript"
    assert gauge.model == "claude-opus-5-5"
    assert (gauge.window.value, gauge.window.source) == (1_000_000, "hail-table")
    assert gauge.percent() == pytest.approx(2.5731)
    assert gauge.spent.value == sum(FIRST) + sum(SECOND), "msg_1 counted once"


def test_sidechain_and_synthetic_lines_are_not_the_sessions_context(tmp_path: Path) -> None:
    path = transcript(
        tmp_path,
        claude_call("msg_1", FIRST),
        claude_call("msg_side", (9, 9, 9, 9), sidechain=True),
        claude_synthetic(),
    )
    gauge = CLAUDE.gauge(Where(path), Config())
    assert gauge.context.value == 3101 + 21003 + 517
    assert gauge.spent.value == sum(FIRST)


def test_a_usage_line_far_from_the_end_is_found_in_bounded_steps(tmp_path: Path) -> None:
    far = 3 * policy.GAUGE_READ_STEP  # tool results after the newest call
    path = transcript(tmp_path, claude_call("msg_1", FIRST), claude_filler(far))
    gauge = CLAUDE.gauge(Where(path), Config())
    assert gauge.context.value == sum(FIRST[:3])
    assert policy.GAUGE_READ_STEP * 3 < gauge.bytes_read <= policy.GAUGE_READ_STEP * 4


def test_a_half_written_last_line_is_left_for_the_next_look(tmp_path: Path) -> None:
    newest = claude_call("msg_2", SECOND)
    path = transcript(tmp_path, claude_call("msg_1", FIRST), newest[: len(newest) // 2])
    assert CLAUDE.gauge(Where(path), Config()).context.value == sum(FIRST[:3])


def test_a_compaction_after_the_newest_call_leaves_the_context_unknown(tmp_path: Path) -> None:
    path = transcript(tmp_path, claude_call("msg_1", FIRST), claude_compaction())
    gauge = CLAUDE.gauge(Where(path), Config())
    assert gauge.context.value is None and gauge.context.why == "compacted"
    assert gauge.spent.value == sum(FIRST), "what was spent stays spent"
    path = transcript(tmp_path, claude_compaction(), claude_call("msg_2", SECOND))
    assert CLAUDE.gauge(Where(path), Config()).context.value == sum(SECOND[:3])


def test_a_missing_garbled_or_empty_transcript_gives_no_figure(tmp_path: Path) -> None:
    missing = CLAUDE.gauge(Where(str(tmp_path / "none.jsonl")), Config())
    assert (missing.context.value, missing.context.why) == (None, "no-file")
    assert missing.spent.why == "no-file" and missing.cost.why == "no-file"
    garbled = tmp_path / "garbled.jsonl"
    garbled.write_bytes(os.urandom(5000) + b'\n{"type":"assistant","usage":\n\xff\xfe\n')
    gauge = CLAUDE.gauge(Where(str(garbled)), Config())
    assert (gauge.context.value, gauge.context.why) == (None, "no-call")
    assert CLAUDE.gauge(Where(str(tmp_path)), Config()).context.why == "unreadable"
    empty = transcript(tmp_path, claude_filler(10))
    assert CLAUDE.gauge(Where(empty), Config()).spent.value == 0


def test_a_huge_transcript_is_read_within_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    line = claude_filler(4000).encode()
    with path.open("wb") as f:
        f.write(claude_call("msg_0", FIRST).encode())
        f.write(line * (50 * 1024 * 1024 // len(line)))
    gauge = CLAUDE.gauge(Where(str(path)), Config())
    assert gauge.bytes_read == policy.GAUGE_READ_MAX
    assert (gauge.context.value, gauge.context.why) == (None, "not-in-tail")
    assert gauge.spent.why == "too-long"
    with path.open("ab") as f:
        f.write(claude_call("msg_1", SECOND).encode())
    gauge = CLAUDE.gauge(Where(str(path)), Config())
    assert gauge.context.value == sum(SECOND[:3]) and gauge.bytes_read == policy.GAUGE_READ_STEP
    assert (gauge.spent.value, gauge.spent.why) == (None, "too-long"), "never a partial sum"


@pytest.mark.parametrize(
    ("model", "setting", "window"),
    [
        ("claude-sonnet-4-5-20250929", "", 200_000),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5[1m]", 1_000_000),
        ("claude-opus-4-5-20251101", "claude-opus-4-5[1m]", 200_000),  # no 1M window to ask for
        ("us.anthropic.claude-haiku-4-5-20251001-v1:0", "", 200_000),
        ("claude-opus-4-20250514", "", 200_000),
        ("claude-fable-5-2", "", 1_000_000),
        ("claude-nova-9", "", None),  # not in Claude Code 2.1.332's registry: never guessed
    ],
)
def test_the_window_comes_from_the_table_of_claude_codes_models(
    tmp_path: Path, model: str, setting: str, window: int | None
) -> None:
    path = transcript(tmp_path, claude_call("msg_1", FIRST, model=model))
    gauge = CLAUDE.gauge(Where(path, setting), Config())
    assert gauge.window.value == window
    if window is None:
        assert gauge.window.why == "unknown-model" and gauge.percent() is None


def test_the_persons_config_gives_windows_and_prices(tmp_path: Path) -> None:
    path = transcript(
        tmp_path,
        claude_call("msg_1", FIRST, model="claude-nova-9"),
        claude_call("msg_2", SECOND, model="claude-sonnet-4-5-20250929"),
    )
    prices = {
        "claude-nova-9": Price(1.0, 2.0, 0.1, 1.5),
        "claude-sonnet-4-5": Price(3.0, 15.0, 0.3, 3.75),  # the canonical name matches
    }
    config = Config("config.toml", {"claude-sonnet-4-5": 150_000}, prices)
    gauge = CLAUDE.gauge(Where(path), config)
    assert (gauge.window.value, gauge.window.source) == (150_000, "config")
    want = (3101 * 1.0 + 21003 * 0.1 + 517 * 1.5 + 41 * 2.0) / 1e6
    want += (3201 * 3.0 + 22003 * 0.3 + 527 * 3.75 + 42 * 15.0) / 1e6
    assert gauge.cost.value == pytest.approx(want) and gauge.cost.source == "config"
    del prices["claude-nova-9"]
    assert CLAUDE.gauge(Where(path), config).cost.why == "no-price", "every call is priced or none"


def test_canonical_names_cover_each_spelling_of_a_model() -> None:
    assert {
        canonical(m)
        for m in (
            "claude-sonnet-4-5-20250929",
            "claude-sonnet-4-5@20250929",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "gateway/claude-sonnet-4-5",
            "claude-sonnet-4-5[1m]",
        )
    } == {"claude-sonnet-4-5"}
