"""Copilot CLI's session events, read for the gauge [docs/gauge.md "Copilot CLI"]: the newest
`session.usage_record` is the last call, its `maxPromptTokens` the window; every record summed is
the session. The sample is what Copilot CLI 1.0.102 wrote for a two-call turn (a shell tool
call, then its answer) against a fake model (tests/data/gauge/copilot-events.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

from hail.config import Config
from hail.gauge.base import NO_CALL, NO_FILE, Where
from hail.gauge.choose import reader

COPILOT = reader("copilot")
SAMPLE = Path(__file__).resolve().parent.parent / "data" / "gauge" / "copilot-events.jsonl"
NO_CONFIG = Config("c", {}, {})


def test_the_newest_usage_record_is_the_context_and_its_max_prompt_the_window() -> None:
    gauge = COPILOT.gauge(Where(str(SAMPLE), session="s"), NO_CONFIG)
    assert (gauge.context.value, gauge.context.source) == (25204, "events")
    assert (gauge.window.value, gauge.window.source) == (128_000, "events")
    assert gauge.spent.value == 24104 + 41 + 25204 + 42, "both calls, output included"
    assert gauge.model == "fake-model"
    assert gauge.cost.value is None, "Copilot's cost of a person's own provider is no cost"


def test_a_file_without_a_call_or_missing_says_why(tmp_path: Path) -> None:
    start = SAMPLE.read_text().splitlines(keepends=True)[0]
    assert json.loads(start)["type"] == "session.start"
    path = tmp_path / "events.jsonl"
    path.write_text(start)
    assert COPILOT.gauge(Where(str(path)), NO_CONFIG).context.why == NO_CALL
    assert COPILOT.gauge(Where(str(tmp_path / "none")), NO_CONFIG).context.why == NO_FILE
