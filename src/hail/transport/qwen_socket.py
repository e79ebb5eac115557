"""Qwen Code's cross-session socket, as a sender that is no session speaks to it [docs/transport.md
"Qwen Code's door"; Qwen's `docs/features/cross-session-protocol.md`, frame version 1].

One message per connection: the auth line and the user frame in one write, then a half-close; the
receiver never answers on that connection. Its receipt (`delivery_status`) comes back as a
connection of its own to the `from` socket the frame names, opened with the `replyToken` the frame
gave it. So a send binds a socket of its own in a fresh 0700 directory for the one receipt it
waits for, and removes it after.

Plain sockets and the interpreter's json: a send that takes this route loads nothing else.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time

#: The frame version this client speaks.
MSG_V = 1
#: A frame line is bounded by Qwen at 1 MiB; a receipt is far smaller.
RECEIPT_MAX = 64 * 1024
#: What Qwen names itself in the TUI's line for a message (`Message from … (hail): …`).
FROM_NAME = "hail"


class Receipt:
    """What Qwen said of one message: its `status` (`delivered`, `held`, `refused`, `denied`,
    `expired`, `misaddressed`, `dropped`, or one hail does not know), and its `reason` for a
    person; `status` "" when no receipt came in time."""

    __slots__ = ("reason", "status")

    def __init__(self, status: str, reason: str = "") -> None:
        self.status = status
        self.reason = reason

    def __repr__(self) -> str:
        return f"Receipt({self.status!r})"


def fresh_id() -> str:
    """A message id as Qwen wants one: fresh per message (it repeats a settled id's verdict)."""
    return os.urandom(16).hex()


def frames(token: str, session: str, content: str, msg_id: str, inbox: str, reply: str) -> bytes:
    """The auth line and the user frame, newline-ended, as one write."""
    auth = {"msgV": MSG_V, "type": "auth", "token": token}
    user = {
        "msgV": MSG_V,
        "msgId": msg_id,
        "type": "user",
        "from": inbox,
        "replyToken": reply,
        "fromName": FROM_NAME,
        "toSessionId": session,
        "priority": "next",
        "message": {"role": "user", "content": content},
    }
    return (json.dumps(auth) + "\n" + json.dumps(user) + "\n").encode("utf-8")


def send(path: str, token: str, session: str, content: str, timeout: float) -> Receipt:
    """Send `content` to the session `session` behind the socket at `path`, presenting `token`,
    and wait up to `timeout` seconds in all for its receipt. OSError when the message could not
    be written whole (nothing reached Qwen then); Receipt("") when it was, but no receipt came."""
    import tempfile

    deadline = time.monotonic() + timeout
    box = tempfile.mkdtemp(prefix="hail-door-", dir="/tmp")  # short: a socket path is ≤ 104 bytes
    inbox = os.path.join(box, "r.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(inbox)
        listener.listen(4)
        msg_id, reply = fresh_id(), os.urandom(32).hex()
        _write(path, frames(token, session, content, msg_id, inbox, reply), deadline)
        return _receipt(listener, msg_id, reply, deadline)
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(inbox)
        with contextlib.suppress(OSError):
            os.rmdir(box)


def _write(path: str, data: bytes, deadline: float) -> None:
    """Connect, write the frames, half-close, and wait for Qwen to close: it has read them then."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(max(_left(deadline), 0.01))
        conn.connect(path)
        conn.sendall(data)
        conn.shutdown(socket.SHUT_WR)
        try:
            while conn.recv(4096):
                pass  # it never writes here: anything is read and dropped until it closes
        except OSError:
            pass  # written whole all the same: its receipt says what became of it
    finally:
        conn.close()


def _receipt(listener: socket.socket, msg_id: str, reply: str, deadline: float) -> Receipt:
    """The first receipt for `msg_id` among the connections to the inbox before the deadline;
    a connection that does not open with `reply` is not Qwen's answer, and is dropped."""
    while True:
        left = _left(deadline)
        if left <= 0:
            return Receipt("")
        listener.settimeout(left)
        try:
            conn, _ = listener.accept()
        except OSError:  # the deadline passed
            return Receipt("")
        with conn:
            found = receipt_in(_read(conn, deadline), msg_id, reply)
        if found is not None:
            return found


def _read(conn: socket.socket, deadline: float) -> bytes:
    data = b""
    try:
        while len(data) < RECEIPT_MAX:
            conn.settimeout(max(_left(deadline), 0.01))
            chunk = conn.recv(4096)
            if not chunk:
                break
            data += chunk
            if data.count(b"\n") >= 2:
                break  # the auth line and one frame: all a receipt is
    except OSError:
        pass
    return data


def receipt_in(data: bytes, msg_id: str, reply: str) -> Receipt | None:
    """The receipt for `msg_id` in one connection's lines, when they open with the auth line
    presenting `reply`; None for anything else (another id's, a stranger's)."""
    lines = [line for line in data.split(b"\n") if line.strip()]
    if not lines:
        return None
    first = _object(lines[0])
    if first is None or first.get("type") != "auth" or first.get("token") != reply:
        return None
    for line in lines[1:]:
        frame = _object(line)
        if frame is None or frame.get("action") != "delivery_status":
            continue
        dropped = frame.get("droppedMsgIds")
        if frame.get("origMsgId") == msg_id or (isinstance(dropped, list) and msg_id in dropped):
            return Receipt(str(frame.get("status") or ""), str(frame.get("reason") or ""))
    return None


def _object(line: bytes) -> dict[str, object] | None:
    try:
        found = json.loads(line)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def _left(deadline: float) -> float:
    return deadline - time.monotonic()
