"""A fake Gemini API (``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` and
``:generateContent``) for Gemini CLI, stdlib only.

Gemini CLI reaches it through ``GOOGLE_GEMINI_BASE_URL`` with ``GEMINI_API_KEY`` set. A stream is
``data: <GenerateContentResponse>`` lines with no ``event:`` line (the SDK's reader wants each chunk
to start with ``data: ``). A tool call is a ``run_shell_command`` ``functionCall``; its result comes
back as a ``functionResponse`` part of the next ``user`` content. The reply is scripted from the
last ``user`` content's text (``fake_http.plan_for``). Each call reports its own token counts
(``fake_http.usage_for``) in every chunk's ``usageMetadata``.

A request with at most one function declaration is an auxiliary call (Gemini CLI's own JSON checks,
such as whether the model should speak next): it gets a JSON or text answer at once, logged with
``aux: true``.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

from .fake_http import JSON, Plan, Recorder, Usage, plan_for, send_json, serve

TOOL = "run_shell_command"


def last_user_turn(body: JSON) -> tuple[str, str | None]:
    """The text of the last user content and the tool output it carries, if any.

    A tool's result and the hook context appended to it (AfterTool) are ``functionResponse``
    parts; a prompt and the context BeforeAgent appends to it are ``text`` parts."""
    for content in reversed(body.get("contents") or []):
        if not isinstance(content, dict) or content.get("role") != "user":
            continue
        texts: list[str] = []
        result: str | None = None
        for part in content.get("parts") or []:
            if not isinstance(part, dict):
                continue
            if "text" in part:
                texts.append(str(part["text"]))
            elif "functionResponse" in part:
                response = part["functionResponse"].get("response")
                result = json.dumps(response) if not isinstance(response, str) else response
        return "\n".join(texts), result
    return "", None


def declarations(body: JSON) -> int:
    return sum(
        len(tool.get("functionDeclarations") or [])
        for tool in body.get("tools") or []
        if isinstance(tool, dict)
    )


def aux_text(body: JSON) -> str:
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") == "application/json":
        # Gemini CLI's "who speaks next" check: the user, so the turn ends.
        return json.dumps({"reasoning": "fake", "next_speaker": "user"})
    return "Fake title"


def part_of(plan: Plan) -> JSON:
    if plan.kind == "text":
        return {"text": plan.text}
    return {"functionCall": {"name": TOOL, "args": {"command": plan.command}}}


def usage_metadata(usage: Usage) -> JSON:
    """Gemini's `usageMetadata`: `promptTokenCount` counts the cached tokens too."""
    return {
        "promptTokenCount": usage.context,
        "cachedContentTokenCount": usage.cache_read,
        "candidatesTokenCount": usage.output,
        "totalTokenCount": usage.context + usage.output,
    }


def chunk(parts: list[JSON], finish: bool, usage: Usage) -> JSON:
    candidate: JSON = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = "STOP"
    return {
        "candidates": [candidate],
        "usageMetadata": usage_metadata(usage),
        "modelVersion": "gemini-fake",
    }


def stream(
    handler: BaseHTTPRequestHandler, chunks: list[JSON], recorder: Recorder, hold: bool
) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")
    handler.end_headers()
    for n, data in enumerate(chunks):
        if n == 1 and hold:
            recorder.release.wait(60.0)
        handler.wfile.write(f"data: {json.dumps(data)}\r\n\r\n".encode())
        handler.wfile.flush()
    handler.close_connection = True


def respond(handler: BaseHTTPRequestHandler, body: JSON, recorder: Recorder) -> None:
    path = handler.path.split("?", 1)[0]
    if path.endswith(":countTokens"):
        send_json(handler, 200, {"totalTokens": 10})
        return
    if not (path.endswith(":streamGenerateContent") or path.endswith(":generateContent")):
        send_json(handler, 404, {"error": {"code": 404, "message": handler.path}})
        return
    aux = declarations(body) <= 1
    user_text, tool_result = last_user_turn(body)
    plan = Plan("text", text=aux_text(body)) if aux else plan_for(user_text, tool_result)
    usage = recorder.record(handler.path, body, aux, user_text, tool_result, plan)
    if path.endswith(":generateContent"):
        send_json(handler, 200, chunk([part_of(plan)], True, usage))
        return
    # A first chunk with a little text, so a held reply shows the model at work.
    chunks = [chunk([{"text": ""}], False, usage)] if plan.hold else []
    chunks.append(chunk([part_of(plan)], True, usage))
    stream(handler, chunks, recorder, plan.hold)


if __name__ == "__main__":
    serve(respond)
