"""A stand-in for Codex's shared daemon, as far as its queue goes: `codex_daemon.py LINK SOCKET LOG
MODE` binds the unix socket SOCKET (a short path) and links it from LINK, as Codex 0.171 links its
socket under the temporary directory from `$CODEX_HOME/app-server-control/app-server-control.sock`,
then serves WebSocket conversations
at `/rpc`, answering as the pinned daemon answered `codex queue` (docs/real-clients.md "Codex
queue"): a notification first, then the reply to each request. Before each reply it pings.

MODE `queue` answers `thread/queue/add` with a `queuedSubmission`; `refuse` with an error;
`chatter` with notifications every 0.3 s and never the reply. Every
message a client sends is appended to LOG as one JSON line (a pong as `{"pong": …}`). It serves
until it is killed."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def read_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_frame(conn: socket.socket) -> tuple[int, bytes]:
    first, second = read_exactly(conn, 2)
    size = second & 0x7F
    if size == 126:
        size = int.from_bytes(read_exactly(conn, 2), "big")
    elif size == 127:
        size = int.from_bytes(read_exactly(conn, 8), "big")
    if not second & 0x80:
        raise ValueError("a client's frame must be masked")
    mask = read_exactly(conn, 4)
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(read_exactly(conn, size)))
    return first & 0x0F, payload


def send_frame(conn: socket.socket, opcode: int, payload: bytes) -> None:
    size = len(payload)
    head = bytes((0x80 | opcode,))
    if size < 126:
        head += bytes((size,))
    elif size < 1 << 16:
        head += bytes((126,)) + size.to_bytes(2, "big")
    else:
        head += bytes((127,)) + size.to_bytes(8, "big")
    conn.sendall(head + payload)


def send_json(conn: socket.socket, message: object) -> None:
    send_frame(conn, 0x1, json.dumps(message, separators=(",", ":")).encode())


def handshake(conn: socket.socket) -> None:
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(4096)
        if not chunk:
            raise EOFError
        head += chunk
    lines = head.split(b"\r\n")
    assert lines[0].startswith(b"GET /rpc "), lines[0]
    key = next(
        v.strip()
        for n, _, v in (x.partition(b":") for x in lines[1:])
        if n.lower() == b"sec-websocket-key"
    )
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
    conn.sendall(
        b"HTTP/1.1 101 Switching Protocols\r\nconnection: Upgrade\r\nupgrade: websocket\r\n"
        b"sec-websocket-accept: " + accept + b"\r\n\r\n"
    )


def serve(conn: socket.socket, log: Path, mode: str) -> None:
    lock = threading.Lock()

    def record(entry: object) -> None:
        with lock, log.open("a") as f:
            f.write(json.dumps(entry) + "\n")

    try:
        handshake(conn)
        send_json(conn, {"method": "configWarning", "params": {"summary": "stand-in"}})
        while True:
            opcode, payload = read_frame(conn)
            if opcode == 0x8:
                return
            if opcode == 0xA:
                record({"pong": payload.decode()})
                continue
            message = json.loads(payload)
            record(message)
            if "id" not in message:
                continue
            send_frame(conn, 0x9, b"are you there")
            if message["method"] == "initialize":
                send_json(conn, {"id": message["id"], "result": {"userAgent": "stand-in"}})
            elif mode == "chatter":  # notifications, and never the reply
                while True:
                    send_json(conn, {"method": "thread/status/changed", "params": {}})
                    time.sleep(0.3)
            elif mode == "refuse":
                send_json(
                    conn,
                    {"id": message["id"], "error": {"code": -32600, "message": "thread not found"}},
                )
            else:
                queued = {"id": "q-1", "input": message["params"]["input"]}
                send_json(conn, {"id": message["id"], "result": {"queuedSubmission": queued}})
    except (EOFError, OSError):
        return
    finally:
        conn.close()


def main(link: str, path: str, log: str, mode: str) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen()
    Path(link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(path, link)
    print("LISTENING", flush=True)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn, Path(log), mode), daemon=True).start()


if __name__ == "__main__":
    main(*sys.argv[1:5])
