"""Qwen Code's door (src/hail/transport/qwen_socket.py, transport/routes/door.py,
store/presence/door.py; docs/transport.md "Qwen Code's door"): the socket client against a real
unix socket server that answers as Qwen's inbox does, the route's claim kept or given back by the
receipt, and the record a hook writes.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hail.context import Ctx
from hail.message import render
from hail.store.presence import door as records
from hail.store.presence.base import Hook
from hail.transport import qwen_socket
from hail.transport.resolve import Recipient
from hail.transport.routes.base import NotWoken
from hail.transport.routes.decision import Wake
from hail.transport.routes.door import DoorSession, judged
from tests.unit.test_wake_decision import ctx

__all__ = ["ctx"]  # the fixture: a scratch state, shared with the wake decision's tests

TOKEN = "ab" * 32
SESSION = "8e016be8-5b48-4c13-ad22-1f5326ae64ac"


class FakeInbox:
    """A session's inbox socket: it takes one connection, checks its auth line, and answers the
    frame with `status` on a connection of its own to the frame's `from` (none for ""), after a
    stranger's connection to it when `stranger`."""

    def __init__(self, path: Path, status: str, *, stranger: bool = False) -> None:
        self.path = str(path)
        self.status = status
        self.stranger = stranger
        self.frames: list[dict[str, object]] = []
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(self.path)
        self.server.listen(1)
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        conn, _ = self.server.accept()
        data = b""
        with conn:
            while chunk := conn.recv(4096):
                data += chunk
        auth, frame = (json.loads(line) for line in data.splitlines())
        if auth != {"msgV": 1, "type": "auth", "token": TOKEN}:
            return  # Qwen drops such a connection silently
        self.frames.append(frame)
        if self.stranger:
            self.answer(frame, "f" * 64, "delivered")
        if self.status:
            self.answer(frame, str(frame["replyToken"]), self.status)

    def answer(self, frame: dict[str, object], token: str, status: str) -> None:
        receipt = {
            "msgV": 1,
            "msgId": "r1",
            "type": "control",
            "action": "delivery_status",
            "status": status,
            "origMsgId": frame["msgId"],
            "reason": f"it was {status}",
        }
        lines = json.dumps({"msgV": 1, "type": "auth", "token": token}) + "\n"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as out:
            out.connect(str(frame["from"]))
            out.sendall((lines + json.dumps(receipt) + "\n").encode())

    def close(self) -> None:
        self.thread.join(5)
        self.server.close()


@pytest.fixture
def short() -> Iterator[Path]:
    """A directory whose socket paths stay under the 104 bytes a unix socket allows."""
    import shutil
    import tempfile

    made = tempfile.mkdtemp(prefix="qd-", dir="/tmp")
    yield Path(made)
    shutil.rmtree(made, ignore_errors=True)


def send(inbox: FakeInbox, timeout: float = 3.0) -> qwen_socket.Receipt:
    try:
        return qwen_socket.send(inbox.path, TOKEN, SESSION, "FRAMED BODY", timeout)
    finally:
        inbox.close()


def test_a_delivered_message_and_the_frame_qwen_reads(short: Path) -> None:
    inbox = FakeInbox(short / "1.sock", "delivered")
    receipt = send(inbox)
    assert (receipt.status, receipt.reason) == ("delivered", "it was delivered")
    (frame,) = inbox.frames
    assert frame["type"] == "user" and frame["msgV"] == 1 and frame["priority"] == "next"
    assert frame["toSessionId"] == SESSION and frame["fromName"] == "hail"
    assert frame["message"] == {"role": "user", "content": "FRAMED BODY"}
    assert not os.path.exists(str(frame["from"])), "the receipt's socket is gone after the send"


@pytest.mark.parametrize("status", ["held", "refused", "misaddressed", "dropped"])
def test_every_receipt_is_read_as_qwen_sent_it(short: Path, status: str) -> None:
    assert send(FakeInbox(short / "1.sock", status)).status == status


def test_a_connection_without_the_reply_token_is_no_receipt(short: Path) -> None:
    assert send(FakeInbox(short / "1.sock", "held", stranger=True)).status == "held"


def test_no_receipt_in_time_is_said_so(short: Path) -> None:
    assert send(FakeInbox(short / "1.sock", ""), timeout=0.5).status == ""


def test_no_socket_is_an_oserror(short: Path) -> None:
    with pytest.raises(OSError):
        qwen_socket.send(str(short / "none.sock"), TOKEN, SESSION, "x", 1.0)


def test_only_delivered_wakes_and_no_receipt_types_nothing() -> None:
    assert judged("delivered") == ""
    assert "holds it for a person to review" in judged("held", "review it")
    assert "answered 'later'" in judged("later", "a new status")
    with pytest.raises(NotWoken) as e:
        judged("")
    assert e.value.verb == "woken" and "may arrive twice" in e.value.reason


def posted(ctx: Ctx, msg_id: str = "1204T120000-abcd") -> str:
    headers = {"from": "boss/%9", "reply": "boss", "kind": "ask", "id": msg_id}
    headers |= {"time": "2026-12-04T12:00:00Z", "ask": "a question"}
    ctx.store.mailbox("worker").post(
        msg_id, render(headers, "a question\n\nBODY-DOOR"), inline=False
    )
    return msg_id


def take(ctx: Ctx, inbox: FakeInbox) -> str:
    door = records.Door(os.getpid(), "", "worker", SESSION, inbox.path, TOKEN, "%1")
    to = Recipient("worker", "worker", None)
    wake = Wake(ctx, to, "ask", "1204T120000-abcd", "[hail …]", submit=True)
    try:
        return DoorSession(None, door).take(wake)
    finally:
        inbox.close()


def test_a_delivered_door_keeps_the_claim_and_the_turn_is_no_longer_ending(
    ctx: Ctx, short: Path
) -> None:
    msg_id = posted(ctx)
    ctx.store.mailbox("worker").touch_stopping()
    inbox = FakeInbox(short / "1.sock", "delivered")
    assert take(ctx, inbox) == ""
    content = str(inbox.frames[0]["message"]["content"])  # type: ignore[index]
    assert content.startswith("hail: 1 peer message, framed by token ")
    assert f"id:{msg_id}" in content and "BODY-DOOR" in content
    box = ctx.store.mailbox("worker")
    assert box.receipt_of(msg_id) is not None and box.receipt_of(msg_id)[0] == "injected"  # type: ignore[index]
    assert not os.path.exists(box.stopping)


@pytest.mark.parametrize("status", ["held", "refused"])
def test_a_message_qwen_did_not_take_goes_back_to_the_hooks(
    ctx: Ctx, short: Path, status: str
) -> None:
    msg_id = posted(ctx)
    assert take(ctx, FakeInbox(short / "1.sock", status))
    assert ctx.store.mailbox("worker").is_unread(msg_id)


def test_a_message_without_a_receipt_goes_back_and_nothing_is_typed(
    ctx: Ctx, short: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("hail.policy.DOOR_RECEIPT_TIMEOUT", 0.5)
    msg_id = posted(ctx)
    with pytest.raises(NotWoken):
        take(ctx, FakeInbox(short / "1.sock", ""))
    assert ctx.store.mailbox("worker").is_unread(msg_id)


def hook_env(socket_path: str) -> dict[str, str]:
    return {
        "QWEN_CODE_MESSAGING_SOCKET": socket_path,
        "QWEN_CODE_MESSAGING_TOKEN": TOKEN,
        "QWEN_CODE_SESSION_ID": SESSION,
        "TMUX_PANE": "%3",
        "TMUX": "/tmp/tmux-0/default,1,0",
    }


def test_a_hook_of_the_session_records_its_door_as_a_private_file(ctx: Ctx) -> None:
    env = hook_env(f"/run/user/1/qwen-socks/{os.getppid()}.sock")
    records.note(Hook(ctx.store, ctx.procs, env), "worker@%3", "SessionStart", b"")
    (door,) = records.doors(ctx.store, "worker@%3")
    assert (door.pid, door.seat, door.pane, door.token) == (os.getppid(), "worker", "%3", TOKEN)
    assert door.mailboxes() == ["worker", "worker@%3"]
    path = Path(ctx.store.root) / "presence" / f"qwen-{os.getppid()}"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert TOKEN not in repr(door)


def test_a_hail_the_agent_runs_in_its_shell_records_nothing(ctx: Ctx) -> None:
    """Qwen's shell tool hands its commands the same variables, with the shell as the parent."""
    env = hook_env("/run/user/1/qwen-socks/1.sock")
    records.note(Hook(ctx.store, ctx.procs, env), "worker", "UserPromptSubmit", b"")
    assert records.doors(ctx.store) == []
