"""Copilot CLI's session events, read for the gauge [docs/gauge.md "Copilot CLI"].

Measured on Copilot CLI 1.0.102: the transcript (`transcriptPath` of its agentStop payload,
`~/.copilot/session-state/<session>/events.jsonl`) is JSON lines of events `{"type", "data", …}`.
Each model call writes one `session.usage_record` whose `data.usage` holds `model`, `inputTokens`
(the whole prompt, its cached part included), `cacheReadTokens`, `cacheWriteTokens`,
`outputTokens`, `maxPromptTokens` (the window the CLI keeps the prompt within: its model table's,
or 128,000 for a model it does not know) and `apiCallId`. Its `cost` is 0 for a model of the
person's own provider, so hail takes no cost from it. hail does not know the point at which it
compacts.
"""

from __future__ import annotations

import json
from contextlib import closing

from hail.gauge.base import Call, Reader, Reading, Tokens, Where, counts, file_trouble, from_calls
from hail.gauge.tail import Tail

_KIND = b'"session.usage_record"'
_TOKENS = ("inputTokens", "cacheReadTokens", "cacheWriteTokens", "outputTokens")


def usage_of(line: bytes) -> dict[str, object] | None:
    """A usage record's `usage`, or None for any other line."""
    if _KIND not in line:
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    data = event.get("data") if isinstance(event, dict) else None
    usage = data.get("usage") if isinstance(data, dict) else None
    return (
        usage if isinstance(usage, dict) and event.get("type") == "session.usage_record" else None
    )


def call_of(usage: dict[str, object], n: int) -> Call | None:
    """One call's tokens: the prompt less its cached parts read fresh."""
    found = counts(usage, _TOKENS)
    if found is None:
        return None
    prompt, read, written, output = found
    tokens = Tokens(max(prompt - read - written, 0), min(read, prompt), written, output)
    key = usage.get("apiCallId")
    return Call(key if isinstance(key, str) else str(n), str(usage.get("model") or ""), tokens)


def window_of(usage: dict[str, object]) -> int | None:
    window = usage.get("maxPromptTokens")
    return window if isinstance(window, int) and not isinstance(window, bool) and window else None


class CopilotReader(Reader):
    name = "copilot"
    source = "events"
    window_in_file = True

    def reading(self, where: Where) -> Reading:
        tail = Tail(where.path)
        calls: list[Call] = []
        window: int | None = None
        try:
            with closing(tail.lines()) as lines:
                for line in lines:
                    usage = usage_of(line)
                    call = call_of(usage, len(calls)) if usage is not None else None
                    if usage is None or call is None:
                        continue
                    window = window or window_of(usage)
                    calls.append(call)
                    if not tail.fits:
                        break  # the newest is all a file too long to sum can give
        except OSError as e:
            return file_trouble(e, tail.bytes_read)
        newest = calls[0] if calls else None
        found = from_calls(newest, calls, whole=tail.whole, bytes_read=tail.bytes_read)
        found.window = window
        return found
