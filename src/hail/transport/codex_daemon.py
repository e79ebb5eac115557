"""Codex's shared daemon, asked directly [docs/transport.md "Codex's daemon"]: the send queues the
envelope with `thread/queue/add`, the call `codex queue` itself makes, over the daemon's control
socket, so no Codex process is started (a start is most of a queued send's time) and no program
is run at all.

The conversation is the one `codex queue` holds on Codex 0.171: a WebSocket at `/rpc` on
`$CODEX_HOME/app-server-control/app-server-control.sock`, JSON-RPC messages in text frames:
`initialize` (with the experimental API, which the queue's methods need), `initialized`, then
`thread/queue/add` with the thread and the text; the reply carries `queuedSubmission`.
"""

from __future__ import annotations

import os

from hail import __version__
from hail.hooks.protocol import json_string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from hail.transport.websocket import WebSocket

#: Where the daemon listens, under CODEX_HOME (`~/.codex` by default).
SOCKET_PATH = ("app-server-control", "app-server-control.sock")
RESOURCE = "/rpc"
#: The one call asked of it, and the word its reply carries once queued.
QUEUE_ADD = "thread/queue/add"
QUEUED = "queuedSubmission"
#: The ids of the two requests; any other message (a notification, another reply) is skipped.
INITIALIZE_ID = "initialize"
QUEUE_ID = 1


class Unreachable(OSError):
    """Nothing listens at the socket: the caller runs `codex queue` instead."""


class Unanswered(Exception):
    """The queue was asked for and no answer came: it may be queued, so nothing is typed."""


def socket_path(env: Mapping[str, str]) -> str:
    """The daemon's socket for a Codex run with `env` (its HOME or CODEX_HOME)."""
    home = env.get("CODEX_HOME") or os.path.join(env.get("HOME", ""), ".codex")
    return os.path.join(home, *SOCKET_PATH)


def address(path: str) -> str | None:
    """Where to reach the daemon whose socket is `path`: the socket itself, which Codex keeps in a
    short directory of its own under the temporary directory and links from CODEX_HOME (a unix
    address holds about 100 bytes); None unless it is a socket of this user's in a directory of
    theirs that nobody else may write."""
    import stat

    real = os.path.realpath(path)
    try:
        st, parent = os.stat(real), os.stat(os.path.dirname(real))
    except OSError:
        return None
    mine = st.st_uid == parent.st_uid == os.getuid()
    private = not parent.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return real if stat.S_ISSOCK(st.st_mode) and mine and private else None


def queue_add(path: str, thread: str, text: str, client_id: str, timeout: float) -> str:
    """Queue `text` on `thread` through the daemon at `path`; "" once it says queued, else why not.
    Unreachable when nothing listens there; Unanswered when the queue was asked for and no answer
    came within `timeout` of the start."""
    import errno

    from hail.transport.websocket import WebSocket

    try:
        talk = WebSocket(path, timeout)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ECONNREFUSED):
            raise Unreachable(f"Codex's daemon does not answer at {path}: {e}") from e
        return f"Codex's daemon did not answer at {path}: {e}"
    try:
        reply = _ask(talk, path, thread, text, client_id)
    except OSError as e:  # the websocket's Closed too
        return f"Codex's daemon did not answer: {e}"
    finally:
        talk.close()
    if isinstance(reply, str):
        return reply
    refused = _error_of(reply)
    if refused is not None:
        return f"Codex's daemon refused the queue: {refused}"
    result = reply.get("result")
    if not isinstance(result, dict) or QUEUED not in result:
        return f"Codex's daemon answered without queueing: {str(result)[:120]}"
    return ""


def _ask(
    talk: WebSocket, path: str, thread: str, text: str, client_id: str
) -> dict[str, object] | str:
    """The conversation: the daemon's reply to `thread/queue/add`, or why it was not asked."""
    peer = talk.peer_uid()
    if peer is not None and peer != os.getuid():
        return f"a process of another user answers at {path}"
    talk.open(RESOURCE)
    talk.send_text(
        '{"id":' + json_string(INITIALIZE_ID) + ',"method":"initialize","params":'
        '{"clientInfo":{"name":"hail","title":null,"version":' + json_string(__version__) + "},"
        '"capabilities":{"experimentalApi":true}}}'
    )
    refused = _error_of(_reply(talk, INITIALIZE_ID))
    if refused is not None:
        return f"Codex's daemon refused hail's connection: {refused}"
    talk.send_text('{"method":"initialized"}')
    try:
        talk.send_text(
            '{"id":' + str(QUEUE_ID) + ',"method":' + json_string(QUEUE_ADD) + ',"params":'
            '{"threadId":'
            + json_string(thread)
            + ',"input":[{"type":"text","text":'
            + json_string(text)
            + ',"text_elements":[]}],"clientUserMessageId":'
            + json_string(client_id)
            + "}}"
        )
        return _reply(talk, QUEUE_ID)
    except OSError as e:  # the websocket's Closed too
        raise Unanswered(f"Codex's daemon gave no answer once asked to queue it ({e})") from e


def _reply(talk: WebSocket, request: object) -> dict[str, object]:
    """The reply to `request`, skipping the notifications the daemon sends meanwhile."""
    while True:
        message = decode(talk.receive())
        if not isinstance(message, dict) or "method" in message:
            continue  # a notification, or a request of the server's
        answered = message.get("id")
        if type(answered) is type(request) and answered == request:  # never True for 1
            return message


def _error_of(reply: dict[str, object]) -> str | None:
    error = reply.get("error")
    if error is None:
        return None
    said = error.get("message") if isinstance(error, dict) else error
    return str(said)[:200]


class _Decoding:
    """What the C scanner of `json` reads of its decoder: the standard behaviour."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity


def decode(data: bytes) -> object:
    """One JSON document, by the C scanner that `json` itself uses: importing `json` imports `re`,
    which would cost a send more than its whole conversation with the daemon. Not JSON: None."""
    text = data.decode("utf-8", errors="replace")
    try:
        from _json import make_scanner
    except ImportError:  # an interpreter without the accelerator
        import json

        try:
            return json.loads(text)
        except ValueError:
            return None
    start = len(text) - len(text.lstrip())
    try:
        scanner: Any = make_scanner
        value, end = scanner(_Decoding())(text, start)
    except (StopIteration, ValueError, RecursionError, SystemError):
        # SystemError: the scanner reports bad JSON with `json`'s own error class, which it finds
        # only where `json` was imported; either way it is not JSON.
        return None
    return value if not text[end:].strip() else None
