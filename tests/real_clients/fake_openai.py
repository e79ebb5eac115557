"""A fake OpenAI Responses API (``POST /v1/responses``) for Codex, stdlib only.

It streams ``response.created``, ``response.output_item.added``, ``response.output_text.delta``
(text replies only), ``response.output_item.done`` and ``response.completed`` with ``usage``.
A tool call is an ``exec_command`` ``function_call``; ``sandbox_permissions:
"require_escalated"`` makes Codex ask for approval first. The reply is scripted from the last
user message, or is a tool summary when the input ends with a ``function_call_output``
(developer messages, where hook context goes, are skipped). Each call reports its own token counts
(``fake_http.usage_for``) in ``response.completed``.
"""

from __future__ import annotations

import json
import time
import uuid
from http.server import BaseHTTPRequestHandler

from .fake_http import JSON, Plan, Recorder, Usage, plan_for, send_json, serve, sse

TOOL = "exec_command"


def last_user_turn(body: JSON) -> tuple[str, str | None]:
    """The text of the last user message and the tool output this request answers, if any.

    Developer messages (hook context) are skipped. A message typed while a tool ran follows the
    tool's output (Codex sends both in one request), so one user message may come after it.
    """
    items = body.get("input")
    if isinstance(items, str):
        return items, None
    text: str | None = None
    for item in reversed(items if isinstance(items, list) else []):
        if not isinstance(item, dict) or item.get("role") == "developer":
            continue
        if item.get("type") == "function_call_output":
            return text or "", str(item.get("output", ""))
        if (
            text is not None
            or item.get("type", "message") != "message"
            or item.get("role") != "user"
        ):
            break
        content = item.get("content")
        parts = content if isinstance(content, list) else [{"text": content or ""}]
        text = "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))
    return text or "", None


def output_item(plan: Plan) -> JSON:
    if plan.kind == "text":
        return {
            "type": "message",
            "id": f"msg_{uuid.uuid4().hex[:16]}",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": plan.text, "annotations": []}],
        }
    args: JSON = {"cmd": plan.command}
    if plan.yield_ms:
        args["yield_time_ms"] = plan.yield_ms
    if plan.escalate:
        args |= {"sandbox_permissions": "require_escalated", "justification": "Create a file?"}
    return {
        "type": "function_call",
        "id": f"fc_{uuid.uuid4().hex[:16]}",
        "status": "completed",
        "call_id": f"call_{uuid.uuid4().hex[:16]}",
        "name": TOOL,
        "arguments": json.dumps(args),
    }


def responses_usage(usage: Usage) -> JSON:
    """The Responses API's `usage`: `input_tokens` counts the cached ones too."""
    return {
        "input_tokens": usage.context,
        "input_tokens_details": {"cached_tokens": usage.cache_read},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.context + usage.output,
    }


def respond(handler: BaseHTTPRequestHandler, body: JSON, recorder: Recorder) -> None:
    if not handler.path.split("?", 1)[0].endswith("/responses"):
        send_json(handler, 404, {"error": {"type": "not_found", "message": handler.path}})
        return
    aux = len(body.get("tools") or []) <= 1
    user_text, tool_result = last_user_turn(body)
    plan = Plan("text", text="Fake title") if aux else plan_for(user_text, tool_result)
    usage = recorder.record(handler.path, body, aux, user_text, tool_result, plan)
    item = output_item(plan)
    response: JSON = {
        "id": f"resp_{uuid.uuid4().hex[:16]}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "model": str(body.get("model") or "gpt-fake"),
        "output": [],
    }
    added = {**item, "status": "in_progress"}
    if item["type"] == "message":
        added["content"] = []
    events: list[tuple[str, JSON]] = [
        ("response.created", {"type": "response.created", "response": response}),
        (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": added},
        ),
    ]
    if plan.kind == "text":
        events.append(
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": plan.text,
                },
            ),
        )
    done = {**response, "status": "completed", "output": [item], "usage": responses_usage(usage)}
    events += [
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ),
        ("response.completed", {"type": "response.completed", "response": done}),
    ]
    sse(handler, events, recorder.release if plan.hold else None)


if __name__ == "__main__":
    serve(respond)
