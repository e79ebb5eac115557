"""Qwen Code's transcript read for the gauge [docs/gauge.md "Qwen Code"]: the newest reply's
`usageMetadata` and the window the transcript names, every reply summed when the file is read
whole, and the lines Qwen writes beside them (its telemetry repeats the counts) not counted."""

from __future__ import annotations

import json
from pathlib import Path

from hail.config import Config
from hail.gauge.base import Where
from hail.gauge.choose import reader

QWEN = reader("qwen")


def reply(uuid: str, prompt: int, cached: int, output: int, thoughts: int = 0) -> str:
    usage = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "thoughtsTokenCount": thoughts,
        "totalTokenCount": prompt + output + thoughts,
        "cachedContentTokenCount": cached,
    }
    record = {
        "uuid": uuid,
        "type": "assistant",
        "model": "qwen3-coder-plus",
        "message": {"role": "model", "parts": [{"text": "ok"}]},
        "usageMetadata": usage,
        "contextWindowSize": 200000,
    }
    return json.dumps(record) + "\n"


def telemetry(prompt: int) -> str:
    """The `ui_telemetry` line Qwen writes before each reply, with the same counts."""
    event = {"event.name": "qwen-code.api_response", "input_token_count": prompt}
    record = {"type": "system", "subtype": "ui_telemetry", "systemPayload": {"uiEvent": event}}
    return json.dumps(record) + "\n"


def test_the_newest_reply_and_the_window_the_transcript_names(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    lines = [telemetry(24104), reply("a", 24104, 21003, 41), telemetry(25000)]
    path.write_text("".join([*lines, reply("b", 25000, 24000, 50, thoughts=5)]))
    gauge = QWEN.gauge(Where(str(path)), Config())
    assert (gauge.context.value, gauge.context.source) == (25000, "transcript")
    assert (gauge.window.value, gauge.window.source) == (200000, "transcript")
    assert gauge.model == "qwen3-coder-plus"
    assert gauge.spent.value == 24104 + 41 + 25000 + 50 + 5, "each reply once, thoughts as output"


def test_no_reply_yet_and_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(telemetry(1))
    assert QWEN.gauge(Where(str(path)), Config()).context.value is None
    missing = QWEN.gauge(Where(str(tmp_path / "none.jsonl")), Config())
    assert missing.context.why == "no-file"
