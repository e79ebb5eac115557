"""Plumbing shared by the two fake model servers, and the handle tests use to run one.

A fake runs as its own process (`python -m real_clients.fake_anthropic --port-file F --log L`)
so a test can end it by pid like everything else it starts. It listens on 127.0.0.1 on a
free port, writes that port to the port file once it accepts connections, and appends one
JSON line per request to the log: that log is what the tests assert on ("the framed body is
in the request the model received").

Scripted replies read the text of the last user turn. Words in it steer the fake:

- ``RUN_BASH``          call the shell tool with ``echo hi``
- ``RUN_CMD <cmd>``     call the shell tool with ``<cmd>`` (to the end of the line)
- ``RUN_B64 <base64>``  call the shell tool with the decoded command, which may span lines
                        (a heredoc): a typed prompt is one line
- ``RUN_LONG <cmd>``    like ``RUN_CMD``, asking Codex to wait up to 30 s for the command
                        (``yield_time_ms``) before handing the turn back
- ``ANSWER_HAIL``       in a typed hail envelope, or in a frame a hook added to the turn: answer
                        it, ``hail <reply> fyi --re <id> 'FAKE-ANSWER: GO for <id>'``, as a model
                        told to reply would
- ``RUN_WRITE``         call the shell tool in a way that needs the user's approval
- ``HOLD_TOOL``         hold the reply until ``POST /_control/release``, then call ``echo hi``:
                        the agent stays busy exactly as long as the test wants
- ``HOLD_TEXT``         the same, then answer with text only: the turn ends with no tool call
- anything else         a one-line text reply

A request with at most one tool is an auxiliary call (a title generator), never a turn: it gets
a short text reply at once and is logged with ``aux: true``.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

JSON = dict[str, Any]

# How long a HOLD_TOOL reply waits for the release before answering anyway, so a failed test
# never leaves a client hanging on an open stream.
HOLD_LIMIT_S = 60.0

# Index of the first event a held reply keeps back: after the start event and the start of the
# first output block (Anthropic content_block_start, OpenAI response.output_item.added).
HOLD_AT = 2

PACKAGE_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Plan:
    """What the fake answers to one request."""

    kind: str  # "text" or "tool"
    text: str = ""
    command: str = ""
    escalate: bool = False
    hold: bool = False
    #: Codex: how long exec_command waits for the command before handing the turn back (ms).
    yield_ms: int = 0


def plan_for(last_user_text: str, tool_result: str | None, context: str = "") -> Plan:
    """Choose the reply from the last user turn (see the module docstring); `context` is the text
    hooks added to that turn, where a frame from a woken turn's prompt hook sits."""
    if tool_result is not None:
        return Plan("text", text=f"FAKE-DONE tool said: {tool_result[:60]!r}")
    for line in last_user_text.splitlines():
        if "RUN_B64 " in line:
            encoded = line.split("RUN_B64 ", 1)[1].split()[0]
            return Plan("tool", command=base64.b64decode(encoded).decode())
        if "RUN_CMD " in line:
            return Plan("tool", command=line.split("RUN_CMD ", 1)[1].strip())
        if "RUN_LONG " in line:
            return Plan("tool", command=line.split("RUN_LONG ", 1)[1].strip(), yield_ms=30000)
    answer = answer_command(last_user_text) or answer_command(context)
    if answer is not None:
        return Plan("tool", command=answer)
    if "HOLD_TOOL" in last_user_text:
        return Plan("tool", command="echo hi", hold=True)
    if "HOLD_TEXT" in last_user_text:
        return Plan("text", text="FAKE-ANSWER to the held prompt", hold=True)
    if "RUN_WRITE" in last_user_text:
        return Plan("tool", command="touch newfile.txt", escalate=True)
    if "RUN_BASH" in last_user_text:
        return Plan("tool", command="echo hi")
    return Plan("text", text="FAKE-REPLY ok")


def answer_command(text: str) -> str | None:
    """The reply to a typed envelope asking for ``ANSWER_HAIL``: to its ``reply:`` (else the seat of
    its ``from:``), ``--re`` its id."""
    for line in text.splitlines():
        # A typed envelope `[hail kind:ask from:… id:…]`, or a frame `[hail:<token> ask from:… id:…]`
        # whose `from:` is already the mailbox to answer (opencode's plugin prompts with the frames
        # themselves, so a frame may start mid-line).
        line = line[line.find("[hail") :] if "[hail" in line else line
        if "ANSWER_HAIL" not in line or not line.startswith(("[hail kind:", "[hail:")):
            continue
        fields = dict(
            part.split(":", 1) for part in line[1:].split("]", 1)[0].split()[1:] if ":" in part
        )
        to = fields.get("reply") or fields.get("from", "").split("/", 1)[0]
        if to and "id" in fields:
            msg_id = fields["id"]
            return f"hail {to} fyi --re {msg_id} 'FAKE-ANSWER: GO for {msg_id}'"
    return None


def strings_in(value: object) -> Iterator[str]:
    """Every string leaf of a decoded JSON value, depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


@dataclass(frozen=True)
class Usage:
    """The tokens a fake reports for one call: distinct for every call (drawn from its place in
    the log), so a test tells the last call's figures from any earlier one's."""

    #: Input tokens not read from a cache.
    fresh: int
    cache_read: int
    #: Input tokens written to a cache: only Anthropic's API reports them (0 elsewhere).
    cache_write: int
    output: int

    @property
    def context(self) -> int:
        """The call's whole input: what sits in the model's context."""
        return self.fresh + self.cache_read + self.cache_write

    def as_json(self) -> JSON:
        return {
            "fresh": self.fresh,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "output": self.output,
            "context": self.context,
        }


def usage_for(seq: int, cache_writes: bool) -> Usage:
    """The `seq`th call's usage: tens of thousands of tokens, far below every window the clients
    know (so none compacts), each figure moving by a different step per call."""
    return Usage(
        fresh=3000 + 100 * seq + 1,
        cache_read=20000 + 1000 * seq + 3,
        cache_write=500 + 10 * seq + 7 if cache_writes else 0,
        output=40 + seq,
    )


class Recorder:
    """The request log (JSON lines) and the release latch of HOLD_TOOL."""

    def __init__(self, log: Path, cache_writes: bool = False) -> None:
        self._log = log
        self._lock = threading.Lock()
        self._seq = 0
        self._cache_writes = cache_writes
        self.release = threading.Event()

    def record(
        self, path: str, body: JSON, aux: bool, user_text: str, tool_result: str | None, plan: Plan
    ) -> Usage:
        """Log the request; returns the usage the reply reports (logged with it)."""
        with self._lock:
            self._seq += 1
            usage = usage_for(self._seq, self._cache_writes)
            entry = {
                "seq": self._seq,
                "t": time.time(),
                "path": path,
                "aux": aux,
                "user_text": user_text,
                "tool_result": tool_result,
                "reply": plan.kind,
                "usage": usage.as_json(),
                "body": body,
            }
            with self._log.open("a", encoding="utf-8") as f:
                f.write(json.dumps(entry, ensure_ascii=False) + "\n")
            return usage


Responder = Callable[[BaseHTTPRequestHandler, JSON, Recorder], None]


def sse(
    handler: BaseHTTPRequestHandler,
    events: list[tuple[str, JSON]],
    hold: threading.Event | None = None,
) -> None:
    """Write a server-sent-event stream and close the connection.

    With ``hold``, the events up to the start of the first output block go out at once and the
    rest only once ``hold`` is set: the model is visibly in the middle of a tool call. (Codex
    0.171 drops a reply that has produced no output item yet and resends the request with a
    message typed meanwhile, so holding any earlier would not keep it busy.)"""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")
    handler.end_headers()
    for n, (name, data) in enumerate(events):
        if n == HOLD_AT and hold is not None:
            hold.wait(HOLD_LIMIT_S)
        chunk = f"event: {name}\ndata: {json.dumps(data)}\n\n"
        handler.wfile.write(chunk.encode())
        handler.wfile.flush()
    handler.close_connection = True


def send_json(handler: BaseHTTPRequestHandler, status: int, data: JSON) -> None:
    raw = json.dumps(data).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(raw)))
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.wfile.write(raw)
    handler.close_connection = True


def serve(respond: Responder, cache_writes: bool = False) -> None:
    """Entry point of a fake: parse argv, listen, write the port file, serve until killed;
    `cache_writes` when its API reports tokens written to a cache."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", type=Path, required=True)
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()
    recorder = Recorder(args.log, cache_writes)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the JSON log is the record; stderr noise helps nobody

        def do_GET(self) -> None:
            send_json(self, 404, {"error": {"type": "not_found", "message": self.path}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.path.startswith("/_control/release"):
                recorder.release.set()
                send_json(self, 200, {"released": True})
                return
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                send_json(self, 400, {"error": {"type": "invalid_request", "message": "json"}})
                return
            respond(self, body if isinstance(body, dict) else {}, recorder)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    tmp = args.port_file.with_suffix(".tmp")
    tmp.write_text(str(server.server_address[1]))
    tmp.replace(args.port_file)  # atomic: a reader never sees a half-written port
    server.serve_forever()


class FakeServer:
    """A fake model server process, seen from a test."""

    def __init__(self, module: str, workdir: Path) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.log = workdir / "requests.jsonl"
        self.log.touch()
        port_file = workdir / "port"
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": str(PACKAGE_ROOT),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                f"real_clients.{module}",
                "--port-file",
                str(port_file),
                "--log",
                str(self.log),
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=(workdir / "stderr.txt").open("wb"),
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while not port_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"fake {module} did not start; see {workdir}/stderr.txt")
            time.sleep(0.01)
        self.port = int(port_file.read_text())
        self.url = f"http://127.0.0.1:{self.port}"

    def entries(self) -> list[JSON]:
        """Logged requests."""
        return logged_lines(self.log)

    def turns(self) -> list[JSON]:
        """Requests of real turns (auxiliary title calls left out), oldest first."""
        return [e for e in self.entries() if not e["aux"]]

    def release(self) -> None:
        """Let a held HOLD_TOOL reply go."""
        req = urllib.request.Request(f"{self.url}/_control/release", data=b"{}", method="POST")
        with urllib.request.urlopen(req, timeout=5) as resp:
            resp.read()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


def logged_lines(log: Path) -> list[JSON]:
    """The JSON lines of a log that other processes append to. One may be writing now: a last
    line without its newline is not complete yet, and is left for the next look."""
    text = log.read_text(encoding="utf-8")
    complete = text[: text.rfind("\n") + 1]
    return [json.loads(line) for line in complete.splitlines() if line.strip()]


def request_text(entry: JSON) -> str:
    """All the text a request carried to the model, one string per line."""
    return "\n".join(strings_in(entry["body"]))
