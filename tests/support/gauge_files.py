"""Lines of the files the context gauge reads, shaped as the pinned clients write them (measured:
docs/gauge.md), for the unit tests and `scripts/bench.py --gauge`.

Each builder returns one line with its newline. Token counts are given as (fresh input, cache
read, cache write, output), the order of `hail.gauge.base.Tokens`.
"""

from __future__ import annotations

import json
import uuid

Usage = tuple[int, int, int, int]

#: Tool output as agents read it: source lines, varied (a run of one letter is no text anyone reads,
#: and a byte search through one costs what no transcript makes it cost).
_OUTPUT = (
    "def parse(line: str) -> Token | None:\n"
    "    head, sep, rest = line.partition(': ')\n"
    "    if not sep:  # a continuation of the previous value\n"
    "        return None\n"
    "    return Token(head.strip().lower(), rest.rstrip('\\r'), len(line))\n"
)


def output(size: int) -> str:
    """About `size` characters of tool output."""
    return (_OUTPUT * (size // len(_OUTPUT) + 1))[:size]


# --- Claude Code 2.1.332 ------------------------------------------------------------------------


def claude_call(
    msg_id: str,
    usage: Usage,
    *,
    model: str = "claude-opus-5-5",
    sidechain: bool = False,
    text: str = "a reply",
) -> str:
    """One assistant line of a call (Claude Code writes one per content block, each with the
    call's id and usage)."""
    fresh, read, write, output = usage
    entry = {
        "parentUuid": str(uuid.uuid4()),
        "isSidechain": sidechain,
        "userType": "external",
        "cwd": "/work/seat",
        "sessionId": "f4f8edb0-4c78-47f3-909d-b54a52ec0bd1",
        "version": "2.1.332",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {
                "input_tokens": fresh,
                "cache_creation_input_tokens": write,
                "cache_read_input_tokens": read,
                "output_tokens": output,
                "service_tier": "standard",
            },
        },
        "type": "assistant",
        "uuid": str(uuid.uuid4()),
        "timestamp": "2026-12-04T16:22:13.000Z",
    }
    return json.dumps(entry, separators=(",", ":")) + "\n"


def claude_synthetic() -> str:
    """Claude Code's own note shown as a reply (an API error): a zero usage and no call."""
    return claude_call("msg_synthetic", (0, 0, 0, 0), model="<synthetic>", text="API Error")


def claude_filler(size: int) -> str:
    """A tool result line of about `size` bytes: what sits between calls."""
    entry = {
        "parentUuid": str(uuid.uuid4()),
        "isSidechain": False,
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": output(size)}],
        },
        "uuid": str(uuid.uuid4()),
    }
    return json.dumps(entry, separators=(",", ":")) + "\n"


def claude_compaction() -> str:
    entry = {
        "parentUuid": None,
        "isSidechain": False,
        "type": "system",
        "subtype": "compact_boundary",
        "content": "Conversation compacted",
        "compactMetadata": {"trigger": "auto", "preTokens": 180000},
        "uuid": str(uuid.uuid4()),
    }
    return json.dumps(entry, separators=(",", ":")) + "\n"


# --- Codex 0.171.0 ------------------------------------------------------------------------------


def _codex(kind: str, payload: dict[str, object]) -> str:
    entry = {"timestamp": "2026-12-04T16:22:13.817Z", "type": kind, "payload": payload}
    return json.dumps(entry, separators=(",", ":")) + "\n"


def codex_usage(usage: Usage) -> dict[str, int]:
    fresh, read, write, output = usage
    whole = fresh + read + write
    return {
        "input_tokens": whole,
        "cached_input_tokens": read,
        "cache_write_input_tokens": write,
        "output_tokens": output,
        "reasoning_output_tokens": 0,
        "total_tokens": whole + output,
    }


def codex_turn(model: str = "gpt-5.5") -> str:
    return _codex(
        "turn_context", {"turn_id": str(uuid.uuid4()), "cwd": "/work/seat", "model": model}
    )


def codex_record(usage: Usage) -> str:
    return _codex("token_usage_record", {"response_id": "resp_1", "usage": codex_usage(usage)})


def codex_count(last: Usage, total: Usage, window: int | None = 258400) -> str:
    info = {
        "total_token_usage": codex_usage(total),
        "last_token_usage": codex_usage(last),
        "last_usage_includes_reasoning": False,
        "model_context_window": window,
    }
    return _codex("event_msg", {"type": "token_count", "info": info, "rate_limits": {}})


def codex_rate_limits() -> str:
    """A `token_count` with no `info`: rate limits only."""
    return _codex("event_msg", {"type": "token_count", "info": None, "rate_limits": {}})


def codex_filler(size: int) -> str:
    return _codex("response_item", {"type": "function_call_output", "output": output(size)})


# --- Gemini CLI 0.61.0 --------------------------------------------------------------------------


def gemini_header() -> str:
    head = {
        "sessionId": "688de792-799c-42a4-a7b7-1f9dbf5c8b2d",
        "projectHash": "a706fc1b",
        "startTime": "2026-12-04T16:22:19.116Z",
        "lastUpdated": "2026-12-04T16:22:19.116Z",
        "kind": "main",
    }
    return json.dumps(head) + "\n"


def gemini_reply_record(
    msg_id: str, usage: Usage, *, model: str = "gemini-2.5-flash", thoughts: int = 0
) -> dict[str, object]:
    fresh, read, _, output = usage
    tokens = {
        "input": fresh + read,
        "output": output,
        "cached": read,
        "thoughts": thoughts,
        "tool": 0,
        "total": fresh + read + output + thoughts,
    }
    return {
        "id": msg_id,
        "timestamp": "2026-12-04T16:22:19.685Z",
        "type": "gemini",
        "content": "",
        "thoughts": [],
        "tokens": tokens,
        "model": model,
    }


def gemini_reply(
    msg_id: str, usage: Usage, *, model: str = "gemini-2.5-flash", thoughts: int = 0
) -> str:
    return json.dumps(gemini_reply_record(msg_id, usage, model=model, thoughts=thoughts)) + "\n"


def gemini_user(msg_id: str, text: str = "a prompt") -> str:
    record = {"id": msg_id, "timestamp": "t", "type": "user", "content": [{"text": text}]}
    return json.dumps(record) + "\n"


def gemini_set(**fields: object) -> str:
    return json.dumps({"$set": fields}) + "\n"


def gemini_rewind(msg_id: str) -> str:
    return json.dumps({"$rewindTo": msg_id}) + "\n"


def gemini_filler(size: int) -> str:
    return gemini_user(str(uuid.uuid4()), output(size))
