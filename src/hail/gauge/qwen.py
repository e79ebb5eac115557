"""Qwen Code's transcript, read for the gauge [docs/gauge.md "Qwen Code"].

Measured on Qwen Code 0.24.4: the transcript (`transcript_path` of every hook payload,
`~/.qwen/projects/<slug>/chats/<session>.jsonl`) is JSON lines, one per event. A model reply is a
line `"type":"assistant"` with its `uuid`, its `model`, `usageMetadata` (`promptTokenCount`, the
prompt with its cached part; `cachedContentTokenCount`; `candidatesTokenCount`;
`thoughtsTokenCount`) and `contextWindowSize`, the window the client counts by. Qwen Code records
no cost, and hail does not know the point it compresses at.
"""

from __future__ import annotations

import json
from contextlib import closing

from hail.gauge.base import Call, Reader, Reading, Tokens, Where, counts, file_trouble, from_calls
from hail.gauge.tail import Tail

_USAGE = (
    "promptTokenCount",
    "cachedContentTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
)


def reply_of(line: bytes) -> tuple[Call, int] | None:
    """A reply line's call and the window it names (0 for none); None for any other line."""
    if b'"usageMetadata"' not in line:
        return None
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("type") != "assistant":
        return None
    usage = record.get("usageMetadata")
    found = counts(usage, _USAGE) if isinstance(usage, dict) else None
    if found is None or not isinstance(record.get("uuid"), str):
        return None
    prompt, cached, output, thoughts = found
    tokens = Tokens(max(prompt - cached, 0), min(cached, prompt), 0, output + thoughts)
    window = record.get("contextWindowSize")
    size = window if isinstance(window, int) and not isinstance(window, bool) else 0
    return Call(str(record["uuid"]), str(record.get("model") or ""), tokens), max(size, 0)


class QwenReader(Reader):
    name = "qwen"
    source = "transcript"
    window_in_file = True
    compact_command = "/compress"

    def reading(self, where: Where) -> Reading:
        tail = Tail(where.path)
        calls: list[Call] = []
        window = 0
        try:
            with closing(tail.lines()) as lines:
                for line in lines:
                    found = reply_of(line)
                    if found is not None:
                        calls.append(found[0])
                        window = window or found[1]
                    if calls and not tail.fits:
                        break
        except OSError as e:
            return file_trouble(e, tail.bytes_read)
        newest = calls[0] if calls else None
        read = from_calls(newest, calls, whole=tail.whole, bytes_read=tail.bytes_read)
        read.window = window or None
        return read
