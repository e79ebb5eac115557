"""A fake OpenAI-compatible Chat Completions API (``POST /v1/chat/completions``) for opencode's
``@ai-sdk/openai-compatible`` provider, stdlib only.

It streams ``chat.completion.chunk`` objects as ``data: …`` lines and ends with ``data: [DONE]``.
A tool call is a ``bash`` call (``{"command", "description"}``); its result comes back as a
``role: "tool"`` message. The reply is scripted from the last user message
(``fake_http.plan_for``), or is a tool summary when the messages end with a tool result.

A request that offers no shell tool (`bash`, Qwen Code's `run_shell_command`) is an auxiliary
call (opencode's title generator, Qwen Code's classifier and suggestions): it gets a
short text at once, logged with ``aux: true``. Each call reports its own token counts
(``fake_http.usage_for``) in its last chunk's ``usage``.
"""

from __future__ import annotations

import json
import time
import uuid
from http.server import BaseHTTPRequestHandler

from .fake_http import JSON, Plan, Recorder, Usage, plan_for, send_json, serve

TOOL = "bash"
#: Qwen Code's shell tool: its turns offer it where opencode's offer `bash`.
QWEN_TOOL = "run_shell_command"


def text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p
        )
    return ""


def last_user_turn(body: JSON) -> tuple[str, str | None]:
    """The text of the last user message, and the tool output when the messages end with one
    (text a plugin adds to a tool's output is part of that output)."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if messages and messages[-1].get("role") == "tool":
        user = next((m for m in reversed(messages) if m.get("role") == "user"), {})
        return text_of(user.get("content")), text_of(messages[-1].get("content"))
    for message in reversed(messages):
        if message.get("role") == "user":
            return text_of(message.get("content")), None
    return "", None


def chunk(delta: JSON, finish: str | None, model: str, cid: str) -> JSON:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def chat_usage(usage: Usage) -> JSON:
    """Chat Completions' `usage`: `prompt_tokens` counts the cached tokens too."""
    return {
        "prompt_tokens": usage.context,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read},
        "completion_tokens": usage.output,
        "total_tokens": usage.context + usage.output,
    }


def events(plan: Plan, model: str, usage: Usage, tool: str = TOOL) -> list[JSON]:
    cid = f"chatcmpl-{uuid.uuid4().hex[:16]}"
    first = chunk({"role": "assistant", "content": ""}, None, model, cid)
    if plan.kind == "text":
        body = [chunk({"content": plan.text}, None, model, cid)]
        finish = "stop"
    else:
        call = {
            "index": 0,
            "id": f"call_{uuid.uuid4().hex[:16]}",
            "type": "function",
            "function": {
                "name": tool,
                "arguments": json.dumps(
                    {"command": plan.command, "description": f"Run {plan.command}"}
                ),
            },
        }
        body = [chunk({"tool_calls": [call]}, None, model, cid)]
        finish = "tool_calls"
    last = chunk({}, finish, model, cid)
    last["usage"] = chat_usage(usage)
    return [first, *body, last]


def shell_tools(body: JSON) -> list[str]:
    """The shell tools a request offers, by name."""
    names = [
        str((t.get("function") or {}).get("name"))
        for t in body.get("tools") or []
        if isinstance(t, dict)
    ]
    return [n for n in names if n in (TOOL, QWEN_TOOL)]


def respond(handler: BaseHTTPRequestHandler, body: JSON, recorder: Recorder) -> None:
    if not handler.path.split("?", 1)[0].endswith("/chat/completions"):
        send_json(handler, 404, {"error": {"type": "not_found", "message": handler.path}})
        return
    tools = shell_tools(body)
    # A turn offers the shell tool; opencode's title generator and Qwen Code's classifier, follow-up
    # suggestion and memory extraction do not.
    aux = not tools
    user_text, tool_result = last_user_turn(body)
    plan = Plan("text", text="Fake title") if aux else plan_for(user_text, tool_result)
    usage = recorder.record(handler.path, body, aux, user_text, tool_result, plan)
    model = str(body.get("model") or "fake-model")
    chunks = events(plan, model, usage, tools[0] if tools else TOOL)
    if not body.get("stream"):
        delta = chunks[1]["choices"][0]["delta"]
        message = {"role": "assistant", "content": delta.get("content")}
        if "tool_calls" in delta:
            message["tool_calls"] = delta["tool_calls"]
        finish = chunks[-1]["choices"][0]["finish_reason"]
        send_json(
            handler,
            200,
            {
                "id": chunks[0]["id"],
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": chunks[-1]["usage"],
            },
        )
        return
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")
    handler.end_headers()
    for n, data in enumerate(chunks):
        if n == 1 and plan.hold:
            recorder.release.wait(60.0)
        handler.wfile.write(f"data: {json.dumps(data)}\n\n".encode())
        handler.wfile.flush()
    handler.wfile.write(b"data: [DONE]\n\n")
    handler.wfile.flush()
    handler.close_connection = True


if __name__ == "__main__":
    serve(respond)
