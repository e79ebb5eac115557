"""Codex's rollout read for the gauge [docs/gauge.md "Codex"]: the newest `token_count` gives the
last call, the session and the window; calls are priced by their turn's model when the rollout
is read whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from hail import policy
from hail.config import Config, Price
from hail.gauge.base import Where
from hail.gauge.choose import reader
from tests.support.gauge_files import (
    codex_count,
    codex_filler,
    codex_rate_limits,
    codex_record,
    codex_turn,
)

CODEX = reader("codex")
FIRST = (3101, 21003, 0, 41)
SECOND = (3301, 23003, 0, 43)
TOTAL = (6402, 44006, 0, 84)


def rollout(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(lines))
    return str(path)


def two_calls() -> list[str]:
    return [
        codex_turn("gpt-5.5"),
        codex_record(FIRST),
        codex_count(FIRST, FIRST),
        codex_filler(300),
        codex_record(SECOND),
        codex_count(SECOND, TOTAL),
        codex_rate_limits(),  # after the call: rate limits only, no figures
    ]


def test_the_newest_token_count_gives_the_last_call_the_session_and_the_window(
    tmp_path: Path,
) -> None:
    gauge = CODEX.gauge(Where(rollout(tmp_path, *two_calls())), Config())
    assert (gauge.context.value, gauge.context.source) == (3301 + 23003, "rollout")
    assert (gauge.window.value, gauge.window.source) == (258_400, "rollout")
    assert gauge.percent() == pytest.approx(100 * 26304 / 258400)
    assert gauge.spent.value == sum(TOTAL) and gauge.model == "gpt-5.5"
    assert gauge.cost.why == "no-price", "Codex records no cost, and no price was given"


def test_calls_are_priced_at_their_turns_model(tmp_path: Path) -> None:
    lines = two_calls()
    lines[4:4] = [codex_turn("gpt-5.5-mini")]  # the model changed for the second turn
    prices = {"gpt-5.5": Price(1.25, 10.0, 0.125), "gpt-5.5-mini": Price(0.25, 2.0, 0.025)}
    gauge = CODEX.gauge(Where(rollout(tmp_path, *lines)), Config("c", {}, prices))
    want = (3101 * 1.25 + 21003 * 0.125 + 41 * 10.0 + 3301 * 0.25 + 23003 * 0.025 + 43 * 2.0) / 1e6
    assert gauge.cost.value == pytest.approx(want) and gauge.cost.source == "config"
    assert gauge.model == "gpt-5.5-mini"


def test_a_count_far_back_in_a_long_rollout_is_found_and_the_session_kept(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    filler = codex_filler(8000)
    path.write_text("".join(two_calls()) + filler * (2 * policy.GAUGE_READ_MAX // len(filler)))
    gauge = CODEX.gauge(Where(str(path), "gpt-5.5"), Config())
    assert (gauge.context.value, gauge.context.why) == (None, "not-in-tail")
    assert gauge.bytes_read == policy.GAUGE_READ_MAX
    assert gauge.window.why == "not-in-tail", "the window is in the count the bound left unread"
    path.write_text(filler * 300 + "".join(two_calls()) + filler * 20)
    gauge = CODEX.gauge(Where(str(path)), Config())
    assert gauge.context.value == 26304 and gauge.spent.value == sum(TOTAL)
    assert gauge.cost.why == "too-long", "each call's model is beyond the bound"
    assert gauge.bytes_read < policy.GAUGE_READ_MAX


def test_a_missing_or_garbled_rollout_gives_no_figure(tmp_path: Path) -> None:
    assert CODEX.gauge(Where(str(tmp_path / "none")), Config()).context.why == "no-file"
    half = codex_count(SECOND, TOTAL)
    garbled = rollout(tmp_path, codex_count(FIRST, FIRST), "{not json\n", half[:-40])
    gauge = CODEX.gauge(Where(garbled), Config())
    assert gauge.context.value == sum(FIRST[:3]), "the complete count before the broken lines"
    fresh = rollout(tmp_path, codex_turn())
    gauge = CODEX.gauge(Where(fresh), Config())
    assert (gauge.context.why, gauge.spent.value) == ("no-call", 0)
