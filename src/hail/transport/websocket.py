"""A WebSocket client (RFC 6455) for one short conversation over a local unix socket: the opening
handshake, text messages out (masked, as a client's must be), text messages in, and the peer's
user where the system says it. Only what a talk with Codex's daemon needs [docs/transport.md "Codex's daemon"]: no extensions,
no compression, no fragmented sends; a ping is answered, a close ends the conversation, and one
deadline bounds it all, however the server trickles or chatters.

Built on the interpreter's own C modules (`_socket`, `_sha1`, `binascii`): `socket` imports enum
and `hashlib` OpenSSL, which together would cost a send more than the whole conversation.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The key's suffix the server hashes into its accept header (RFC 6455, section 1.3).
ACCEPT_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
#: Past this a message is refused: a daemon's reply to one call is a few hundred bytes.
MESSAGE_MAX = 1 << 24
#: Past this the handshake's answer is refused.
HEAD_MAX = 1 << 14
#: A unix socket's path must fit its address (104 bytes on macOS, 108 on Linux, the NUL included).
PATH_MAX = 103

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class Closed(OSError):
    """The server closed the conversation, or spoke something that is not WebSocket."""


def _sha1(data: bytes) -> bytes:
    try:
        from _sha1 import sha1  # type: ignore[import-not-found]
    except ImportError:  # an interpreter built without it
        from hashlib import sha1
    digest: bytes = sha1(data).digest()
    return digest


def accept_for(key: bytes) -> bytes:
    """The `Sec-WebSocket-Accept` a server answers `key` with."""
    from binascii import b2a_base64

    return b2a_base64(_sha1(key + ACCEPT_GUID), newline=False)


def frame(opcode: int, payload: bytes, mask: bytes) -> bytes:
    """One final frame of a client's: `opcode`, the length, the mask key, the masked payload."""
    size = len(payload)
    if size < 126:
        head = bytes((0x80 | opcode, 0x80 | size))
    elif size < 1 << 16:
        head = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
    return head + mask + masked(payload, mask)


def masked(payload: bytes, mask: bytes) -> bytes:
    """`payload` XORed with the 4-byte `mask`, repeated (its own inverse)."""
    if not payload:
        return b""
    key = (mask * (len(payload) // 4 + 1))[: len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(
        len(payload), "big"
    )


class WebSocket:
    """A conversation with the server at unix socket `path`: connected at once (OSError when
    nothing listens there), opened by `open`. Every wait on the server, together, ends within
    `timeout` seconds of the start (TimeoutError)."""

    def __init__(self, path: str, timeout: float) -> None:
        import _socket

        if len(os.fsencode(path)) > PATH_MAX:
            raise OSError(f"the socket's path is longer than a unix address holds: {path}")
        self._deadline = time.monotonic() + timeout
        self._sock: Any = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        self._buffer = b""
        try:
            self._sock.settimeout(timeout)
            self._sock.connect(path)
        except BaseException:
            self._sock.close()
            raise

    def peer_uid(self) -> int | None:
        """The uid of the process at the other end, where the system says it (Linux's
        SO_PEERCRED); None elsewhere."""
        import _socket

        if not hasattr(_socket, "SO_PEERCRED"):
            return None
        try:
            cred = self._sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
        except OSError:
            return None
        return int.from_bytes(cred[4:8], sys.byteorder)  # struct ucred: pid, uid, gid

    def open(self, resource: str) -> None:
        """The opening handshake for `resource`; Closed when the server answers otherwise."""
        from binascii import b2a_base64

        key = b2a_base64(os.urandom(16), newline=False)
        self._sock.sendall(
            b"GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
            b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n\r\n"
            % (resource.encode("ascii"), key)
        )
        while b"\r\n\r\n" not in self._buffer:
            if len(self._buffer) > HEAD_MAX:
                raise Closed("the server's answer to the handshake has no end")
            self._fill()
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        status, *lines = head.split(b"\r\n")
        if not status.startswith(b"HTTP/1.1 101 "):
            raise Closed(f"the server refused the handshake: {status.decode('latin-1')[:120]}")
        headers = {}
        for line in lines:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        if headers.get(b"upgrade", b"").lower() != b"websocket":
            raise Closed("the server's handshake upgrades to something else")
        if headers.get(b"sec-websocket-accept") != accept_for(key):
            raise Closed("the server's handshake answers another key")

    def _fill(self) -> None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the server took too long")
        self._sock.settimeout(left)
        chunk = self._sock.recv(65536)
        if not chunk:
            raise Closed("the server closed the connection")
        self._buffer += chunk

    def _take(self, size: int) -> bytes:
        while len(self._buffer) < size:
            self._fill()
        taken, self._buffer = self._buffer[:size], self._buffer[size:]
        return taken

    def _send(self, opcode: int, payload: bytes) -> None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the server took too long")
        self._sock.settimeout(left)
        self._sock.sendall(frame(opcode, payload, os.urandom(4)))

    def send_text(self, text: str) -> None:
        self._send(TEXT, text.encode("utf-8"))

    def receive(self) -> bytes:
        """The next whole data message (text or binary), its fragments joined; a ping is answered
        on the way. Closed when the server closes or sends more than MESSAGE_MAX."""
        parts: list[bytes] = []
        size_so_far = 0
        while True:
            first, second = self._take(2)
            opcode, size = first & 0x0F, second & 0x7F
            if size == 126:
                size = int.from_bytes(self._take(2), "big")
            elif size == 127:
                size = int.from_bytes(self._take(8), "big")
            size_so_far += size
            if size_so_far > MESSAGE_MAX:
                raise Closed(f"the server sent a message of more than {MESSAGE_MAX} bytes")
            mask = self._take(4) if second & 0x80 else b""
            payload = self._take(size)
            if mask:
                payload = masked(payload, mask)
            if opcode == CLOSE:
                raise Closed("the server closed the conversation")
            if opcode == PING:
                self._send(PONG, payload)
                continue
            if opcode not in (TEXT, BINARY, CONTINUATION):
                continue  # a pong, or a control frame of an extension never asked for
            parts.append(payload)
            if first & 0x80:
                return b"".join(parts)

    def close(self) -> None:
        """Say goodbye and hang up (without waiting for the server's own close)."""
        try:
            self._sock.settimeout(0)
            self._sock.sendall(frame(CLOSE, b"", os.urandom(4)))
        except OSError:
            pass
        finally:
            self._sock.close()
