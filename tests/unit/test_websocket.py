"""The WebSocket client's pieces (transport/websocket.py) and the daemon's JSON reader
(transport/codex_daemon.py), against RFC 6455's own example and Python's `json`."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hail.transport import codex_daemon, websocket


def test_the_accept_header_is_the_rfcs_example() -> None:
    # RFC 6455, section 1.3.
    assert websocket.accept_for(b"dGhlIHNhbXBsZSBub25jZQ==") == b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


@given(st.binary(max_size=70_000), st.binary(min_size=4, max_size=4))
def test_a_frame_carries_its_length_and_its_masked_payload(payload: bytes, mask: bytes) -> None:
    data = websocket.frame(websocket.TEXT, payload, mask)
    assert data[0] == 0x81 and data[1] & 0x80, "final, text, masked"
    size, at = data[1] & 0x7F, 2
    if size == 126:
        size, at = int.from_bytes(data[2:4], "big"), 4
    elif size == 127:
        size, at = int.from_bytes(data[2:10], "big"), 10
    assert size == len(payload)
    assert data[at : at + 4] == mask
    body = data[at + 4 :]
    assert bytes(b ^ mask[i % 4] for i, b in enumerate(body)) == payload


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda children: st.lists(children) | st.dictionaries(st.text(), children),
        max_leaves=20,
    )
)
def test_the_daemons_replies_read_as_json_reads_them(value: object) -> None:
    assert codex_daemon.decode(json.dumps(value).encode()) == value


@pytest.mark.parametrize("text", [b"", b"{", b"{bad", b'{"id":1} trailing', b"\xff\xfe"])
def test_what_is_not_one_json_document_reads_as_none(text: bytes) -> None:
    assert codex_daemon.decode(text) is None


def test_the_daemons_socket_is_under_codex_home_or_home() -> None:
    tail = "app-server-control/app-server-control.sock"
    assert codex_daemon.socket_path({"HOME": "/h"}) == f"/h/.codex/{tail}"
    assert codex_daemon.socket_path({"HOME": "/h", "CODEX_HOME": "/c"}) == f"/c/{tail}"


def test_only_a_socket_of_the_users_is_an_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "d.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(real))
    try:
        link = tmp_path / "codex" / "link.sock"
        link.parent.mkdir()
        link.symlink_to(real)
        assert codex_daemon.address(str(link)) == os.path.realpath(real), "followed to the socket"
        uid = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: uid + 1)
        assert codex_daemon.address(str(link)) is None, "another user's socket"
    finally:
        server.close()
    plain = tmp_path / "plain"
    plain.write_text("")
    assert codex_daemon.address(str(plain)) is None
    assert codex_daemon.address(str(tmp_path / "missing")) is None


def test_nothing_listening_is_unreachable(tmp_path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "d.sock"))
    server.close()  # bound, never listening: the socket file stays, nobody answers
    with pytest.raises(codex_daemon.Unreachable):
        codex_daemon.queue_add(str(tmp_path / "d.sock"), "t", "hello", "hail-1", 1.0)


class Server:
    """A unix socket in `tmp_path` whose one connection a thread answers with `script(conn)`."""

    def __init__(self, tmp_path: Path, script: Callable[[socket.socket], None]) -> None:
        self.path = str(tmp_path / "s.sock")
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(self.path)
        self.listener.listen()
        self.got = b""

        def serve() -> None:
            conn, _ = self.listener.accept()
            with conn:
                head = b""
                while b"\r\n\r\n" not in head:
                    head += conn.recv(4096)
                self.key = next(
                    line.split(b":", 1)[1].strip()
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"sec-websocket-key:")
                )
                script(conn)
                conn.settimeout(0.5)
                with contextlib.suppress(OSError):
                    while chunk := conn.recv(4096):
                        self.got += chunk

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()

    def accept_head(self) -> bytes:
        return (
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Accept: " + websocket.accept_for(self.key) + b"\r\n\r\n"
        )

    def close(self) -> None:
        self.thread.join(5)
        self.listener.close()


def server_frame(opcode: int, payload: bytes, *, final: bool = True) -> bytes:
    """A server's frame: unmasked, the shortest length form."""
    size = len(payload)
    first = bytes(((0x80 if final else 0) | opcode,))
    if size < 126:
        return first + bytes((size,)) + payload
    if size < 1 << 16:
        return first + bytes((126,)) + size.to_bytes(2, "big") + payload
    return first + bytes((127,)) + size.to_bytes(8, "big") + payload


def talk_to(
    tmp_path: Path, script: Callable[[Server, socket.socket], None], timeout: float = 5
) -> tuple[Server, websocket.WebSocket]:
    server: Server
    server = Server(tmp_path, lambda conn: script(server, conn))
    talk = websocket.WebSocket(server.path, timeout)
    return server, talk


def test_messages_arrive_whole_however_the_bytes_trickle_in(tmp_path: Path) -> None:
    big = bytes(range(256)) * 300  # past the 2-byte length form
    mid = b"m" * 300  # the 2-byte length form

    def script(server: Server, conn: socket.socket) -> None:
        data = (
            server.accept_head()
            + server_frame(websocket.TEXT, b'{"hello"', final=False)
            + server_frame(websocket.PING, b"there?")
            + server_frame(websocket.CONTINUATION, b":1}")
            + server_frame(websocket.BINARY, mid)
            + server_frame(websocket.TEXT, big)
            + server_frame(websocket.CLOSE, b"")
        )
        for i in range(0, len(data), 7):  # a few bytes at a time
            conn.sendall(data[i : i + 7])

    server, talk = talk_to(tmp_path, script)
    try:
        talk.open("/rpc")
        assert talk.receive() == b'{"hello":1}', "fragments joined, the ping between answered"
        assert talk.receive() == mid
        assert talk.receive() == big
        with pytest.raises(websocket.Closed):
            talk.receive()
    finally:
        talk.close()
        server.close()
    pong = server.got[: 2 + 4 + 6]
    assert pong[0] == 0x80 | websocket.PONG and pong[1] == 0x80 | 6, "a masked pong of 6 bytes"
    assert websocket.masked(pong[6:], pong[2:6]) == b"there?"


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 404 Not Found\r\n\r\n",
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: x\r\n\r\n",
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n",
    ],
    ids=["refused", "another-key", "not-websocket"],
)
def test_a_handshake_answered_otherwise_ends_the_conversation(
    tmp_path: Path, answer: bytes
) -> None:
    server, talk = talk_to(tmp_path, lambda _, conn: conn.sendall(answer))
    try:
        with pytest.raises(websocket.Closed):
            talk.open("/rpc")
    finally:
        talk.close()
        server.close()


def test_a_message_past_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(websocket, "MESSAGE_MAX", 1000)

    def script(server: Server, conn: socket.socket) -> None:
        conn.sendall(server.accept_head())
        conn.sendall(server_frame(websocket.TEXT, b"x" * 600, final=False))
        conn.sendall(server_frame(websocket.CONTINUATION, b"x" * 600))

    server, talk = talk_to(tmp_path, script)
    try:
        talk.open("/rpc")
        with pytest.raises(websocket.Closed, match="more than 1000 bytes"):
            talk.receive()
    finally:
        talk.close()
        server.close()


def test_one_deadline_bounds_a_server_that_chatters_and_never_answers(tmp_path: Path) -> None:
    stop = threading.Event()

    def script(server: Server, conn: socket.socket) -> None:
        conn.sendall(server.accept_head())
        while not stop.wait(0.1):  # a notification every 0.1 s, never a reply
            with contextlib.suppress(OSError):
                conn.sendall(server_frame(websocket.TEXT, b'{"method":"tick"}'))

    server, talk = talk_to(tmp_path, script, timeout=1.0)
    started = time.monotonic()
    try:
        talk.open("/rpc")
        with pytest.raises(TimeoutError):
            while True:
                talk.receive()
        assert time.monotonic() - started < 3, "ended by the one deadline, not per receive"
    finally:
        stop.set()
        talk.close()
        server.close()
