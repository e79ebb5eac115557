"""The WebSocket client's pieces (transport/websocket.py) and the daemon's JSON reader
(transport/codex_daemon.py), against RFC 6455's own example and Python's `json`."""

from __future__ import annotations

import json
import os
import socket
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
