"""A hostile or broken far machine against the real near side [docs/seats.md "Other machines"]:
nothing a machine this one ssh's *to* answers is trusted further than the peer protocol allows.

The far side is a stand-in named by HAIL_SSH (tests/support/far.py), so each answer is exactly what
the test wrote: kept "replies" nobody asked for, noise before the answer, an answer far past the
cap, a forged exit code, receipt text that drives a terminal, a far hail that hangs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hail import policy
from hail.remote import wire
from tests.support.entry import hail_bin
from tests.support.far import FarSide
from tests.support.ids import id_of
from tests.support.world import World

pytestmark = pytest.mark.stress

HOST = "box"


@pytest.fixture
def far(world: World) -> FarSide:
    """The stand-in far machine `box`; this machine calls itself `here`."""
    side = FarSide(world.root)
    world.env.update(side.env, HAIL_HOST="here")
    world.run("whoami", cwd="worker")  # a known local seat a hostile request could aim at
    return side


def ask_there(world: World, headline: str = "which port?") -> str:
    sent = world.run(f"worker@{HOST}", "ask", headline)
    assert sent.returncode == 0, (sent.stdout, sent.stderr)
    return id_of(sent.stdout)


def new_files(world: World, mailbox: str) -> list[str]:
    d = world.state / "seats" / mailbox / "new"
    return sorted(p.name for p in d.iterdir()) if d.is_dir() else []


def kept(n: int, **fields: str) -> str:
    """A request as a far hail keeps a reply it could not push (`remote/machine.Far._keep`)."""
    msg_id = f"0101T{n // 3600 % 24:02d}{n // 60 % 60:02d}{n % 60:02d}-{n % 65536:04x}"
    base = {"id": msg_id, "to": "boss", "from-seat": "worker", "from-host": HOST, "kind": "fyi"}
    base.update({"ask": f"kept {n}", "re": "", "scope": "", **fields})
    return wire.request("send", base).decode()


def keeps(far: FarSide, requests: list[str]) -> None:
    far.answer("status", wire.answer(0, {}, wire.pack(["", *requests])))


# --- what a fetch may file -----------------------------------------------------------------------


def test_a_fetch_files_only_replies_to_this_machines_asks_from_their_target(
    world: World, far: FarSide
) -> None:
    """The host was only ever ssh'd to: what it keeps "for this machine" is filed only when it is
    an ask or fyi answering an ask sent there, to that ask's reply mailbox, signed by the seat it
    went to; at most REMOTE_REPLIES_PER_ASK of them per ask."""
    ask = ask_there(world)
    other = world.send("worker", "ask", "a local ask")  # to a local seat: no far reply is its
    flood = [kept(100 + n, re=ask, ask=f"flood {n}") for n in range(300)]
    keeps(
        far,
        [
            kept(1, re=ask, ask="port 8080"),  # the genuine reply
            kept(2, re=ask, to="worker", kind="hold", **{"for": "604800"}),  # an unrelated seat
            kept(3, re=ask, kind="ask", **{"from-seat": "boss"}),  # signed as the asker itself
            kept(4, re=ask, kind="hold"),  # a kind no reply has
            kept(5, re=ask, kind="release"),
            kept(6, ask="no re at all"),
            kept(7, re=other),  # an ask this machine sent, but not to that host
            kept(8, re="0101T000000-dead"),  # no ask of this machine's
            kept(9, re=ask, to="boss@%3"),  # another mailbox than the ask's reply
            *flood,
        ],
    )

    receipt = world.run("sent", ask)

    assert receipt.returncode == 0, receipt.stderr
    assert new_files(world, "worker") == [f"{other}.md"], "nothing filed into the unrelated seat"
    filed = [
        (world.state / "seats" / "boss" / "new" / n).read_text() for n in new_files(world, "boss")
    ]
    assert len(filed) == policy.REMOTE_REPLIES_PER_ASK, len(filed)
    assert any("ask: port 8080\n" in t for t in filed), "the genuine reply is filed"
    assert all("from: worker@box\n" in t and f"re: {ask}\n" in t for t in filed)
    assert all("kind: fyi\n" in t for t in filed)
    assert not (world.state / "holds").exists() or not list((world.state / "holds").iterdir())
    dropped = 8 + 300 - (policy.REMOTE_REPLIES_PER_ASK - 1)
    assert f"{HOST} kept {dropped} requests for this machine that are no replies" in receipt.stderr
    # The ack lets the far side forget what was filed and what was dropped alike.
    (ack,) = far.requests("ack")
    acked = wire.read(ack)
    assert acked is not None and len(acked.get("ids").split()) == 9 + 300


def test_inbox_files_a_genuine_kept_reply_and_drops_a_flood(world: World, far: FarSide) -> None:
    ask = ask_there(world)
    keeps(
        far,
        [kept(1, re=ask, ask="port 9090"), *(kept(10 + n, re=ask, kind="ask") for n in range(50))],
    )

    inbox = world.run("inbox")

    assert inbox.returncode == 0, inbox.stderr
    assert "port 9090" in inbox.stdout
    assert inbox.stdout.count("[/hail:") == policy.REMOTE_REPLIES_PER_ASK
    assert "no replies" in inbox.stderr


# --- the answer as read --------------------------------------------------------------------------


def test_noise_before_the_answer_is_skipped(world: World, far: FarSide) -> None:
    """A far `.bashrc` that prints: the answer is found at the start of a line after it."""
    answer = wire.answer(0, {"filed": "yes"}, wire.pack(["", ""]))
    far.answer("send", "Welcome to box!\nLast login: never\n" + answer)

    sent = world.run(f"worker@{HOST}", "fyi", "past the banner")

    assert sent.returncode == 0, sent.stderr
    assert "Nothing was sent" not in sent.stderr
    assert (world.state / "remote" / f"{id_of(sent.stdout)}.md").exists()


def test_noise_then_a_dropped_connection_is_tried_again(world: World, far: FarSide) -> None:
    """The far shell printed its banner, then the connection dropped (ssh's 255) before hail
    answered: a drop like any other, so the send is tried again with the same id, and the far
    side's answer to that decides."""
    far.answer("send", "Welcome to box!\n", code=255, attempt=0)
    duplicate = {"filed": "duplicate", "receipt": "delivered"}
    far.answer("send", "Welcome to box!\n" + wire.answer(0, duplicate, wire.pack(["", ""])))

    sent = world.run(f"worker@{HOST}", "ask", "once only")

    assert sent.returncode == 0, sent.stderr
    msg_id = id_of(sent.stdout)
    assert "already holds" in sent.stderr and "filed once" in sent.stderr
    assert [wire.read(r) is not None for r in far.requests("send")] == [True, True]
    assert all(f"id: {msg_id}\n".encode() in r for r in far.requests("send"))


@pytest.mark.parametrize(
    "said",
    [b"Welcome to box!\n", b"Welcome\nhail-peer 1\ncode: 0\n", b"\x00\xff" * 100],
    ids=["noise-only", "no-answer-line", "binary"],
)
def test_an_unreadable_answer_after_the_far_command_ran_cannot_tell(
    world: World, far: FarSide, said: bytes
) -> None:
    """Something came back, so the far command may have run and filed: the send keeps its id and
    its record and says it cannot tell, never "Nothing was sent"."""
    far.answer("send", said)

    sent = world.run(f"worker@{HOST}", "ask", "did it land?")

    assert sent.returncode == 1, sent.stderr
    msg_id = id_of(sent.stdout)
    assert f"cannot tell whether {msg_id} landed" in sent.stderr, sent.stderr
    assert "Nothing was sent" not in sent.stderr
    assert (world.state / "remote" / f"{msg_id}.md").exists(), "the record as sent is kept"


def test_doctor_names_the_noise_before_the_answer_and_its_source(
    world: World, far: FarSide
) -> None:
    hello = wire.answer(0, {"version": "0", "host": HOST}, "")
    far.answer("hello", "Welcome to box!\n" + hello)

    doctor = world.run("doctor", HOST)

    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "prints before hail's answer: Welcome to box!" in doctor.stdout
    assert "~/.bashrc" in doctor.stdout


@pytest.mark.parametrize("code", ["²", "1" * 30, "256", "-1", "7", "", " 0", "0x1"])
def test_a_far_code_that_no_hail_returns_is_a_protocol_error(
    world: World, far: FarSide, code: str
) -> None:
    body = wire.pack(["", ""])
    far.answer("send", f"{wire.MARK}: {wire.PROTOCOL}\ncode: {code}\nfiled: yes\n\n{body}")

    sent = world.run(f"worker@{HOST}", "ask", "what code?")

    assert sent.returncode == 1, sent.stderr
    msg_id = id_of(sent.stdout)  # printed before the error
    assert "internal error" not in sent.stderr
    assert f"cannot tell whether {msg_id} landed" in sent.stderr, sent.stderr
    assert "peer protocol" in sent.stderr


def test_a_far_code_of_seats_that_no_hail_returns_is_a_protocol_error(
    world: World, far: FarSide
) -> None:
    far.answer(
        "seats", f"{wire.MARK}: {wire.PROTOCOL}\ncode: ²\n\n" + wire.pack(["", "error: x\n"])
    )

    seats = world.run("seats", f"@{HOST}")

    assert seats.returncode == 1, seats.stderr
    assert "internal error" not in seats.stderr
    assert "peer protocol" in seats.stderr, seats.stderr


def test_a_far_exit_code_a_hail_returns_is_the_sends(world: World, far: FarSide) -> None:
    far.answer("send", wire.Answered(5, filed="yes", notes=["not woken"]).encode())

    sent = world.run(f"worker@{HOST}", "fyi", "quiet")

    assert sent.returncode == 5, sent.stderr
    assert "hail: box: not woken" in sent.stderr


def _max_rss_kib(world: World, *args: str) -> tuple[int, subprocess.CompletedProcess[bytes]]:
    """Run hail in the boss seat from a parent of its own; the peak RSS of hail and what it ran."""
    script = (
        "import resource, subprocess, sys\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "sys.stdout.buffer.write(p.stdout); sys.stderr.buffer.write(p.stderr)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(p.returncode)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, hail_bin(), *args],
        cwd=world.root / "boss",
        env=world.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        check=False,
    )
    *_, rss = proc.stderr.decode().strip().split("\n")
    return int(rss), proc


def test_an_answer_past_the_cap_is_a_protocol_error_read_no_further(
    world: World, far: FarSide
) -> None:
    """100 MiB where at most PEER_MAX_BYTES and some noise may come: hail stops reading there."""
    far.stream("send", 100 * 1024 * 1024, head=b"hail-peer: 1\ncode: 0\nfiled: yes\n\n")

    rss, sent = _max_rss_kib(world, f"worker@{HOST}", "ask", "how big?")

    err = sent.stderr.decode()
    assert sent.returncode == 1, err
    msg_id = id_of(sent.stdout.decode())
    assert "more than the peer protocol allows" in err, err
    assert f"cannot tell whether {msg_id} landed" in err
    assert rss * 1024 < policy.PEER_MAX_BYTES * 4, f"{rss} KiB at its peak"


# --- far text as shown -----------------------------------------------------------------------------

HOSTILE_RECEIPT = "read \x1b]2;PWNED\x07\x1b[2J\u202e" + "A" * 5000


def test_far_receipt_text_is_escaped_and_clipped_when_stored_and_shown(
    world: World, far: FarSide
) -> None:
    ask = ask_there(world)
    far.answer("status", wire.answer(0, {}, wire.pack([f"{ask} {HOSTILE_RECEIPT}"])))

    sent = world.run("sent", ask)

    assert sent.returncode == 0, sent.stderr
    assert "\x1b" not in sent.stdout and "\x07" not in sent.stdout and "\u202e" not in sent.stdout
    assert len(sent.stdout) <= policy.FRAME_VALUE_MAX + 1
    stored = (world.state / "remote" / f"{ask}.receipt").read_text()
    assert stored.isprintable() or stored.rstrip("\n").isprintable(), repr(stored[:60])
    assert len(stored) <= policy.FRAME_VALUE_MAX + 1
    once = world.run("watch", "--once")
    assert "\x1b" not in once.stdout and "A" * (policy.FRAME_VALUE_MAX + 1) not in once.stdout
    (row,) = json.loads(world.run("watch", "--json").stdout)["far"]
    assert row["receipt"].isprintable() and len(row["receipt"]) <= policy.FRAME_VALUE_MAX


def test_a_receipt_stored_raw_is_shown_clean(world: World, far: FarSide) -> None:
    """A receipt file an older hail wrote (or anyone could): cleaned when read, too."""
    ask = ask_there(world)
    (world.state / "remote" / f"{ask}.receipt").write_text(HOSTILE_RECEIPT + "\n")

    once = world.run("watch", "--once")
    (row,) = json.loads(world.run("watch", "--json").stdout)["far"]

    assert "\x1b" not in once.stdout and "A" * (policy.FRAME_VALUE_MAX + 1) not in once.stdout
    assert row["receipt"].isprintable() and len(row["receipt"]) <= policy.FRAME_VALUE_MAX


# --- the caller's time -----------------------------------------------------------------------------


def test_a_far_hail_that_hangs_keeps_ask_wait_within_its_wait(world: World, far: FarSide) -> None:
    """The send lands; then the far hail hangs on every other request: the wait's own calls there
    get the wait's remaining time, not a minute each."""
    for op in ("waits", "status", "ack"):
        far.answer(op, wire.answer(0, {}, ""), pause=300)
    started = time.monotonic()

    asked = world.run(f"worker@{HOST}", "ask", "--wait", "3", "still there?", timeout=200)

    took = time.monotonic() - started
    assert asked.returncode == 1 and "no reply" in asked.stderr, asked.stderr
    assert took < 3 + 2 * policy.SSH_CONNECT_TIMEOUT, f"{took:.1f} s"


@pytest.mark.parametrize("verb", ["inbox", "sent"])
def test_a_far_hail_that_hangs_holds_inbox_and_sent_a_few_seconds(
    world: World, far: FarSide, verb: str
) -> None:
    ask = ask_there(world)
    far.answer("status", wire.answer(0, {}, ""), pause=300)
    started = time.monotonic()

    ran = world.run(*([verb] if verb == "inbox" else [verb, ask]), timeout=200)

    took = time.monotonic() - started
    assert ran.returncode == 0, ran.stderr
    assert took < policy.REMOTE_LOOK_SECONDS + 5, f"{took:.1f} s"


# --- a far hail killed between reserving an id and filing it -------------------------------------


def test_an_id_reserved_there_but_never_filed_is_no_landing(world: World, far: FarSide) -> None:
    """The far hail answers that the id is taken but holds no message under it (its first
    attempt was killed between the two): the send cannot tell, it does not say it landed."""
    far.answer(
        "send", wire.answer(0, {"filed": "duplicate", "receipt": "unknown"}, wire.pack(["", ""]))
    )

    sent = world.run(f"worker@{HOST}", "ask", "half filed")

    assert sent.returncode == 1, sent.stderr
    msg_id = id_of(sent.stdout)
    assert f"cannot tell whether {msg_id} landed" in sent.stderr, sent.stderr
    assert "already holds" not in sent.stderr


def test_the_far_side_says_a_reserved_id_with_no_message_is_unknown(world: World) -> None:
    """`hail remote-peer` run as ssh would, over a state whose `ids/<id>` a killed hail left
    with no message: a retry is answered `duplicate` with the receipt `unknown`, and files
    nothing under that id."""
    world.run("whoami", cwd="worker")
    msg_id = "0101T000000-beef"
    ids_dir = world.state / "ids"
    ids_dir.mkdir(exist_ok=True)
    os.symlink("worker", ids_dir / msg_id)
    fields = {"id": msg_id, "to": "worker", "from-seat": "boss", "from-host": "laptop"}
    request = wire.request("send", {**fields, "kind": "fyi", "ask": "again"})

    ran = world.run("remote-peer", stdin=request, env={"HAIL_HOST": "here"}, cwd=Path("/"))

    got = wire.read(ran.stdout.encode())
    assert got is not None, ran
    assert got.get("filed") == "duplicate" and got.get("receipt") == "unknown", ran.stdout
    assert new_files(world, "worker") == []
