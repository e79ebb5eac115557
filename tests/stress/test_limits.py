"""Limits of output, payloads, paths and disks: hail stays within what a harness keeps, refuses
what it cannot see whole, and fails on a full disk with a clear error and nothing half-written.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hail import policy
from hail.message import render
from tests.stress.conftest import parse_delivery
from tests.support.entry import hail_bin
from tests.support.world import World

pytestmark = pytest.mark.stress

MORE_RE = re.compile(r"^\((\d+) more unread: run hail inbox again\)$", re.M)


def _flood(world: World, n: int, body: str) -> list[str]:
    """`n` unread messages written straight into worker's inbox (a send each would take minutes)."""
    assert world.run("whoami", cwd="worker").returncode == 0
    world.send("worker", "fyi", "makes new/ and cur/")
    assert world.run("inbox", cwd="worker").returncode == 0
    new = world.state / "seats" / "worker" / "new"
    ids = []
    t = time.time() - n
    for i in range(n):
        msg_id = f"0101T{i // 10000:02d}{i % 10000:04d}-abcd"
        headers = {"from": "boss", "reply": "boss", "kind": "fyi", "id": msg_id, "ask": f"m{i}"}
        path = new / f"{msg_id}.md"
        path.write_text(render(headers, body))
        os.utime(path, (t + i, t + i))
        ids.append(msg_id)
    return ids


def test_inbox_prints_within_its_budget_and_leaves_the_rest_unread(world: World) -> None:
    ids = _flood(world, 2000, "x" * 500)
    seen: list[str] = []
    for _ in range(200):
        r = world.run("inbox", cwd="worker")
        assert r.returncode == 0, r.stderr
        if r.stdout == "(inbox empty)\n":
            break
        assert len(r.stdout.encode()) <= policy.INBOX_MAX_BYTES + 1024, len(r.stdout)
        text = r.stdout.rstrip("\n")
        more = MORE_RE.search(text)
        delivery = parse_delivery(MORE_RE.sub("", text).rstrip("\n"))
        assert delivery is not None
        shown = [msg_id for msg_id, _ in delivery.frames]
        seen += shown
        left = len(list((world.state / "seats" / "worker" / "new").glob("*.md")))
        assert (int(more.group(1)) if more else 0) == left
    assert seen == ids  # every one exactly once, oldest first


def test_inbox_cuts_one_huge_body_and_names_the_way_to_the_whole(world: World) -> None:
    msg_id = world.send("worker", "ask", "huge", body=BIG)
    r = world.run("inbox", cwd="worker")
    assert r.returncode == 0
    assert len(r.stdout.encode()) <= policy.INBOX_MAX_BYTES + 1024
    part, rest = _body_part(r.stdout)
    assert rest == len(part) and BIG.startswith(part)
    assert f"hail show {msg_id} --from {rest} prints the rest)" in r.stdout
    assert world.run("sent", msg_id).stdout.startswith("read ")


# --- output budget of show, await --reply and ask --wait -----------------------------------------

#: 3 MB of numbered lines, so any part shows where it came from.
BIG = "\n".join(f"{i:07d} " + "q" * 91 for i in range(30_000))
CUT_RE = re.compile(
    r"^\(cut at byte (\d+) of (\d+) body bytes; hail show \S+ --from (\d+) prints the rest\)$"
)


def _body_part(stdout: str) -> tuple[str, int | None]:
    """The body text one framed message shows, and the offset its cut note names (None: no cut)."""
    lines = stdout.split("\n")
    preamble = re.match(r"^hail: 1 peer message, framed by token ([0-9a-f]{8,16}): ", lines[0])
    assert preamble, stdout[:300]
    token = preamble.group(1)
    start = next(i for i, line in enumerate(lines) if line.startswith(f"[hail:{token} "))
    body = lines[start + 1 : lines.index(f"[/hail:{token}]")]
    if body and body[0].startswith("(body from byte "):
        body = body[1:]
    rest = None
    cut = CUT_RE.match(body[-1]) if body else None
    if cut:
        assert cut.group(1) == cut.group(3)
        rest = int(cut.group(3))
        body = body[:-1]
    return "\n".join(body), rest


def test_show_prints_a_huge_message_within_the_budget_and_the_rest_part_by_part(
    world: World,
) -> None:
    msg_id = world.send("worker", "ask", "huge", body=BIG)
    r = world.run("show", msg_id)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.encode()) <= policy.INBOX_MAX_BYTES + 1024, len(r.stdout)
    part, rest = _body_part(r.stdout)
    assert rest is not None and rest == len(part) > policy.INBOX_MAX_BYTES // 2
    assert BIG.startswith(part)
    more = world.run("show", msg_id, "--from", str(rest))
    assert more.returncode == 0, more.stderr
    assert len(more.stdout.encode()) <= policy.INBOX_MAX_BYTES + 1024
    assert f"\n(body from byte {rest} of {len(BIG)})\n" in more.stdout
    part2, rest2 = _body_part(more.stdout)
    assert BIG[rest:].startswith(part2) and rest2 == rest + len(part2)
    end = world.run("show", msg_id, "--from", str(len(BIG) - 150))
    assert _body_part(end.stdout) == (BIG[-150:], None)
    assert world.run("sent", msg_id).stdout == "delivered\n", "show claims nothing"


def test_following_the_cut_notes_of_show_gives_back_the_whole_body(world: World) -> None:
    body = BIG[:99_950]
    msg_id = world.send("worker", "ask", "long", body=body)
    got, at = "", 0
    for _ in range(20):
        part, rest = _body_part(world.run("show", msg_id, "--from", str(at)).stdout)
        got += part
        if rest is None:
            break
        at = rest
    assert got == body


def test_await_reply_prints_a_huge_reply_within_the_budget_and_points_at_the_rest(
    world: World,
) -> None:
    assert world.run("whoami", cwd="worker").returncode == 0
    ask = world.send("worker", "ask", "send the log")
    answer = world.send("boss", "fyi", "--re", ask, "the log", body=BIG, cwd="worker")
    r = world.run("await", "--reply", ask, "--timeout", "5")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.encode()) <= policy.INBOX_MAX_BYTES + 1024, len(r.stdout)
    part, rest = _body_part(r.stdout)
    assert rest == len(part) and BIG.startswith(part)
    assert f"hail show {answer} --from {rest} prints the rest)" in r.stdout
    # Cut short, still claimed: its start and the way to the rest reached the agent.
    assert world.run("sent", answer).stdout.startswith("read ")
    part2, _ = _body_part(world.run("show", answer, "--from", str(rest)).stdout)
    assert BIG[rest:].startswith(part2) and part2


def test_await_reply_keeps_several_huge_replies_within_the_budget(world: World) -> None:
    assert world.run("whoami", cwd="worker").returncode == 0
    one = world.send("worker", "ask", "first log")
    two = world.send("worker", "ask", "second log")
    answers = [
        world.send("boss", "fyi", "--re", ask, "a log", body=BIG, cwd="worker")
        for ask in (one, two)
    ]
    r = world.run("await", "--reply", one, two, "--timeout", "5")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.encode()) <= policy.INBOX_MAX_BYTES + 2048, len(r.stdout)
    for answer in answers:
        assert f"id:{answer} " in r.stdout
        assert re.search(rf"hail show {answer} --from \d+ prints the rest\)$", r.stdout, re.M)


def test_ask_wait_prints_a_huge_reply_within_the_budget_and_points_at_the_rest(
    world: World,
) -> None:
    assert world.run("whoami", cwd="worker").returncode == 0
    proc = subprocess.Popen(
        [hail_bin(), "worker", "ask", "--wait", "30", "send the log"],
        cwd=world.root / "boss",
        env=world.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("id="), first
    ask = first[3:].strip()
    waits = world.state / "waits"
    for _ in range(300):
        if waits.is_dir() and any(waits.iterdir()):
            break
        time.sleep(0.05)
    answer = world.send("boss", "fyi", "--re", ask, "the log", body=BIG, cwd="worker")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert len(out.encode()) <= policy.INBOX_MAX_BYTES + 1024, len(out)
    part, rest = _body_part(out)
    assert rest == len(part) and BIG.startswith(part)
    assert f"hail show {answer} --from {rest} prints the rest)" in out


# --- a workspace path that is not UTF-8 ----------------------------------------------------------


def test_a_workspace_path_with_bytes_that_are_not_utf8_works_like_any_other(world: World) -> None:
    odd = os.path.join(os.fsencode(world.root), b"b\xffd", b"proj")
    os.makedirs(odd)
    with open(os.path.join(odd, b".hail-seat"), "wb") as f:
        f.write(b"proj\n")
    where = Path(os.fsdecode(odd))
    r = world.run("whoami", cwd=where)
    assert r.returncode == 0, r.stderr
    assert "seat: proj" in r.stdout
    msg_id = world.send("proj", "ask", "to the odd path", body="a body", known=False)
    r = world.run("deliver", "--format", "claude", cwd=where)
    assert r.returncode == 0 and "a body" in r.stdout, (r.stdout, r.stderr)
    assert world.run("sent", msg_id).stdout.startswith("injected ")
    assert world.run("whoami", cwd="worker").returncode == 0
    r = world.run("worker", "fyi", "--no-wake", "from the odd path", cwd=where)
    assert r.returncode == 5 and "internal error" not in r.stderr, r.stderr
    r = world.run("seats")
    assert r.returncode == 0 and "proj" in r.stdout, r.stderr
    assert not (world.state / "hook-errors.log").exists()


# --- a full disk and what it leaves --------------------------------------------------------------


def _limit_file_size(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_send_on_a_full_disk_fails_with_the_fix_and_leaves_nothing_half_written(
    world: World,
) -> None:
    assert world.run("whoami", cwd="worker").returncode == 0
    r = subprocess.run(
        [hail_bin(), "worker", "ask", "--no-wake", "too big for the disk"],
        cwd=world.root / "boss",
        env=world.env,
        input=b"x" * 1_000_000,
        capture_output=True,
        timeout=60,
        check=False,
        preexec_fn=_limit_file_size(64 * 1024),
    )
    err = r.stderr.decode()
    assert r.returncode == 1, err
    assert "internal error" not in err and "nothing was sent" in err, err
    box = world.state / "seats" / "worker"
    assert list((box / "tmp").iterdir()) == []
    assert list((box / "new").glob("*")) == []


def test_gc_and_doctor_notice_unfinished_writes_left_in_tmp(world: World) -> None:
    world.send("worker", "fyi", "makes tmp/")
    tmp = world.state / "seats" / "worker" / "tmp"
    leftover = tmp / "0101T000000-dead.md"
    leftover.write_text("from: boss\nkind: ask\n\nhalf a bo")
    old = time.time() - 2 * 86400
    os.utime(leftover, (old, old))
    fresh = tmp / "0101T000001-beef.md"
    fresh.write_text("a send in progress")
    r = world.run("doctor", cwd="worker")
    assert "1 unfinished writes in tmp/" in r.stdout, r.stdout
    r = world.run("gc")
    assert r.returncode == 0, r.stderr
    assert "removed 1 unfinished writes left in tmp/" in r.stdout, r.stdout
    assert not leftover.exists() and fresh.exists()


# --- a PostToolUse payload larger than the hook reads --------------------------------------------


def test_a_tool_call_payload_the_hook_cannot_read_whole_delivers_nothing(
    world: World, tmp_path: Path
) -> None:
    msg_id = world.send("worker", "ask", "for the main agent only")
    big = "y" * (policy.HOOK_STDIN_MAX + 1000)
    payload = tmp_path / "payload.json"
    payload.write_text(
        '{"hook_event_name": "PostToolUse", "tool_response": "' + big + '", "agent_id": "sub-1"}'
    )
    with open(payload, "rb") as stdin:
        r = subprocess.run(
            [hail_bin(), "deliver", "--format", "claude", "--event", "PostToolUse"],
            cwd=world.root / "worker",
            env=world.env,
            stdin=stdin,
            capture_output=True,
            timeout=30,
            check=False,
        )
    assert r.returncode == 0 and r.stdout == b"", r.stdout[:200]
    assert world.run("sent", msg_id).stdout == "delivered\n"
    after = world.run("deliver", "--format", "claude", cwd="worker")  # the next prompt brings it
    assert msg_id in after.stdout


def test_inbox_all_shows_read_mail_within_the_budget_and_counts_the_rest(world: World) -> None:
    _flood(world, 300, "z" * 500)
    while "more unread" in world.run("inbox", cwd="worker").stdout:
        pass
    r = world.run("inbox", "--all", cwd="worker")
    assert r.returncode == 0
    assert len(r.stdout.encode()) <= policy.INBOX_MAX_BYTES + 1024, len(r.stdout)
    hidden = re.search(
        r"^\((\d+) older read messages not shown: hail show <id> prints one\)$", r.stdout, re.M
    )
    assert hidden, r.stdout[-300:]
    shown = r.stdout.count("receipt: read ")
    assert shown + int(hidden.group(1)) == 301
