"""A fake Anthropic Messages API (``POST /v1/messages``) for Claude Code, stdlib only.

It streams the public SSE event order: ``message_start``, per content block
``content_block_start`` / ``content_block_delta`` / ``content_block_stop``, then
``message_delta`` (the stop reason) and ``message_stop``. The reply is scripted from the last
``role: "user"`` message: Claude Code may append ``role: "system"`` items (hook context) after
it, so "the last message" is the wrong one to read. Each call reports its own token counts
(``fake_http.usage_for``): fresh input, cache writes and reads in ``message_start``, the output in
``message_delta``.
"""

from __future__ import annotations

import json
import uuid
from http.server import BaseHTTPRequestHandler

from .fake_http import JSON, Plan, Recorder, Usage, plan_for, send_json, serve, sse, strings_in

TOOL = "Bash"


def last_user_turn(body: JSON) -> tuple[str, str | None]:
    """The text of the last user message and, when it answers a tool call, the tool's output."""
    for message in reversed(body.get("messages") or []):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content, None
        texts: list[str] = []
        result: str | None = None
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                texts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    inner = " ".join(str(b.get("text", "")) for b in inner if isinstance(b, dict))
                result = str(inner)
        return "\n".join(texts), result
    return "", None


def turn_context(body: JSON) -> str:
    """Every string of the last user message and of what follows it (the hook context Claude Code
    adds to the turn): where a woken turn's frames are."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    last = max(
        (i for i, m in enumerate(messages) if m.get("role") == "user"), default=len(messages)
    )
    return "\n".join(strings_in(messages[last:]))


def content_events(plan: Plan) -> tuple[list[tuple[str, JSON]], str]:
    """The content block events of a reply, and its stop reason."""
    if plan.kind == "text":
        return [
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": plan.text},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ], "end_turn"
    tool_input = {"command": plan.command, "description": f"Run {plan.command}"}
    block = {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:20]}", "name": TOOL, "input": {}}
    return [
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(tool_input)},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ], "tool_use"


def input_usage(usage: Usage) -> JSON:
    """The input side of Anthropic's `usage`: fresh input, cache writes and cache reads apart."""
    return {
        "input_tokens": usage.fresh,
        "cache_creation_input_tokens": usage.cache_write,
        "cache_read_input_tokens": usage.cache_read,
    }


def respond(handler: BaseHTTPRequestHandler, body: JSON, recorder: Recorder) -> None:
    path = handler.path.split("?", 1)[0]
    if path.endswith("/count_tokens"):
        send_json(handler, 200, {"input_tokens": 10})
        return
    if not path.endswith("/v1/messages"):
        send_json(handler, 404, {"type": "error", "error": {"type": "not_found_error"}})
        return
    aux = len(body.get("tools") or []) <= 1
    user_text, tool_result = last_user_turn(body)
    context = turn_context(body)
    plan = Plan("text", text="Fake title") if aux else plan_for(user_text, tool_result, context)
    usage = recorder.record(handler.path, body, aux, user_text, tool_result, plan)
    model = str(body.get("model") or "claude-fake")
    events, stop_reason = content_events(plan)
    message: JSON = {
        "id": f"msg_{uuid.uuid4().hex[:20]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**input_usage(usage), "output_tokens": 1},
    }
    if not body.get("stream"):
        block = events[0][1]["content_block"]
        delta = events[1][1]["delta"]
        if block["type"] == "text":
            block = {"type": "text", "text": delta["text"]}
        else:
            block = {**block, "input": json.loads(delta["partial_json"])}
        whole = {**message, "usage": {**input_usage(usage), "output_tokens": usage.output}}
        send_json(handler, 200, {**whole, "content": [block], "stop_reason": stop_reason})
        return
    sse(
        handler,
        [
            ("message_start", {"type": "message_start", "message": message}),
            *events,
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": usage.output},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ],
        recorder.release if plan.hold else None,
    )


if __name__ == "__main__":
    serve(respond, cache_writes=True)
