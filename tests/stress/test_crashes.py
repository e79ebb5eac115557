"""Crashes and output failures: SIGKILL at random points, closed stdout, broken pipes, a full disk
[docs/files.md "Writes and claims", docs/hooks.md "Failure handling"].

What these tests pin down, honestly: a message is visible in `new/` only whole; an id that was
printed always resolves; an output failure the hook sees gives every claim back; a hook killed
between its claim and its output leaves the claim as `injected` although nothing reached the agent
(SIGKILL leaves no chance to give it back). Random delays come from a seeded generator: the seed is
in the figures, and HAIL_STRESS_SEED replays a run.
"""

from __future__ import annotations

import fcntl
import os
import random
import re
import resource
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hail import message
from tests.stress.conftest import (
    delivered_ids,
    know,
    message_files,
    spawn,
)
from tests.support.entry import hail_bin
from tests.support.ids import ID
from tests.support.procs import wait_until
from tests.support.world import World

pytestmark = pytest.mark.stress

SEED = int(os.environ.get("HAIL_STRESS_SEED", "20261130"))
REQUIRED = ("from", "reply", "kind", "id", "time", "ask")


#: fcntl's F_SETPIPE_SZ (Linux), missing from Python before 3.10's constants on some builds.
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


def crash_body(i: int, size: int) -> str:
    """A body whose end proves it is whole: its length and index close it."""
    line = f"line of message {i} " * 4 + "\n"
    text = (line * (size // len(line) + 1))[:size]
    return f"BEGIN {i}\n{text}\nEND {i} {size}"


def feed(proc: subprocess.Popen[bytes], data: bytes) -> threading.Thread:
    """Write `data` to the process's stdin from a thread; a kill mid-write is expected."""

    def run() -> None:
        assert proc.stdin is not None
        step = len(data) // 8 + 1
        try:
            # In pieces with pauses, so a kill can also land while the body is still arriving.
            for at in range(0, len(data), step):
                proc.stdin.write(data[at : at + step])
                proc.stdin.flush()
                time.sleep(0.04)
            proc.stdin.close()
        except (BrokenPipeError, ValueError, OSError):
            pass

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_senders_killed_at_random_points_never_leave_a_partial_message_in_new(
    world: World, figures: Any
) -> None:
    know(world, "worker")
    rng = random.Random(SEED)
    expected: dict[int, str] = {}
    printed: list[str] = []
    killed = finished = 0
    for batch in range(10):
        procs = []
        for k in range(4):
            i = batch * 4 + k
            expected[i] = crash_body(i, rng.choice((100, 10_000, 500_000, 2_000_000)))
            p = spawn(world, "worker", "ask", "--no-wake", f"crash {i}", stdin=subprocess.PIPE)
            procs.append((p, feed(p, expected[i].encode()), rng.uniform(0.05, 0.9)))
        t0 = time.monotonic()
        for p, _, delay in sorted(procs, key=lambda x: x[2]):
            time.sleep(max(0.0, t0 + delay - time.monotonic()))
            p.send_signal(signal.SIGKILL)
        for p, writer, _ in procs:
            assert p.stdout is not None and p.stderr is not None
            out = p.stdout.read()
            p.stderr.read()
            p.wait(60)
            writer.join(10)
            if p.returncode == -signal.SIGKILL:
                killed += 1
            else:
                assert p.returncode == 5
                finished += 1
            printed += [ln[3:] for ln in out.decode().splitlines() if ln.startswith("id=")]

    # Every file visible in new/ is whole: all headers, its own id, and its complete body.
    in_new = message_files(world.state, "new")
    for path in in_new:
        msg = message.parse(path.read_text())
        assert all(msg.get(k) for k in REQUIRED), (path, msg.headers)
        assert msg.id == path.name[:-3]
        i = int(msg.headline.split()[1])
        assert msg.body == expected[i], f"{path.name}: body of {len(msg.body)} chars is partial"
    # Every id that was printed resolves, with its body.
    for msg_id in printed:
        assert re.fullmatch(ID, msg_id)
        r = world.run("show", msg_id)
        assert r.returncode == 0, r.stderr
        assert world.run("sent", msg_id).stdout == "delivered\n"
    assert set(printed) <= {p.name[:-3] for p in in_new}
    assert printed and killed, "the kills should land both before and after some sends finished"
    leftovers = message_files(world.state, "tmp")
    dangling = [
        n
        for n in (os.listdir(world.state / "ids") if (world.state / "ids").is_dir() else [])
        if not any((world.state / "seats" / "worker" / d / f"{n}.md").exists() for d in ("new",))
    ]
    for n in dangling:  # reserved, never posted: unknown, not a broken message
        assert world.run("sent", n).stdout == "unknown\n"
    figures(
        seed=SEED,
        senders=40,
        killed=killed,
        finished=finished,
        printed_ids=len(printed),
        whole_in_new=len(in_new),
        partial_in_new=0,
        tmp_leftovers=len(leftovers),
        reserved_never_posted=len(dangling),
    )


def test_hooks_killed_at_random_points_never_double_a_message(world: World, figures: Any) -> None:
    """Hooks race and are killed; a killed hook may take its claims with it (reported as such),
    but no message reaches two contexts and none stays unread."""
    know(world, "worker")
    rng = random.Random(SEED + 1)
    sent_ids = [
        world.send("worker", "ask", "--", f"hook crash {i}", body=f"body {i}") for i in range(40)
    ]
    seen: dict[str, int] = {}
    kills = runs = 0
    deadline = time.monotonic() + 90
    new = world.state / "seats" / "worker" / "new"
    while any(new.glob("*.md")) and time.monotonic() < deadline:
        procs = [
            (spawn(world, "deliver", "--format", "claude", cwd="worker"), rng.uniform(0, 0.12))
            for _ in range(3)
        ]
        t0 = time.monotonic()
        for p, delay in sorted(procs, key=lambda x: x[1]):
            time.sleep(max(0.0, t0 + delay - time.monotonic()))
            p.send_signal(signal.SIGKILL)
        for p, _ in procs:
            out, err = p.communicate(timeout=30)
            runs += 1
            if p.returncode == -signal.SIGKILL:
                kills += 1
                continue  # whatever it wrote is not a hook output the harness would accept
            assert p.returncode == 0 and err == b""
            for msg_id in delivered_ids(out.decode()):
                seen[msg_id] = seen.get(msg_id, 0) + 1
    # Drain what the killed hooks left unread.
    while any(new.glob("*.md")) and time.monotonic() < deadline:
        for msg_id in delivered_ids(
            world.run("deliver", "--format", "claude", cwd="worker").stdout
        ):
            seen[msg_id] = seen.get(msg_id, 0) + 1
    assert not list(new.glob("*.md")), "messages still unread at the deadline"
    doubled = [m for m, n in seen.items() if n > 1]
    assert not doubled
    cur = world.state / "seats" / "worker" / "cur"
    claimed_unseen = []
    for msg_id in sent_ids:
        places = [p.name for p in cur.glob(f"{msg_id}.*")] + [
            p.name for p in new.glob(f"{msg_id}.*")
        ]
        assert places == [f"{msg_id}.injected.md"], places  # exactly one place, claimed once
        if msg_id not in seen:
            claimed_unseen.append(msg_id)
            assert world.run("sent", msg_id).stdout.startswith("injected ")
    figures(
        seed=SEED + 1,
        messages=40,
        hook_processes=runs,
        sigkills=kills,
        delivered=len(seen),
        doubled=len(doubled),
        claimed_by_killed_hook_never_printed=len(claimed_unseen),
    )


def full_pipe() -> tuple[int, int]:
    """A pipe whose buffer is full: a writer blocks until someone reads."""
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        while True:
            os.write(w, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(w, True)
    return r, w


def test_a_hook_killed_between_claim_and_output_leaves_the_claim_as_injected(
    world: World,
) -> None:
    """The at-most-once edge: stdout is a full pipe, so the hook blocks in its write after claiming;
    SIGKILL there leaves `cur/<id>.injected.md`, a receipt for a body no agent saw. Nothing gives it
    back (nothing can give a claim back on SIGKILL); `hail show` still prints it."""
    know(world, "worker")
    msg_id = world.send("worker", "ask", "--", "claimed then killed", body="the body nobody saw")
    r, w = full_pipe()
    try:
        p = spawn(world, "deliver", "--format", "claude", cwd="worker", stdout=w)
        claimed = world.state / "seats" / "worker" / "cur" / f"{msg_id}.injected.md"
        assert wait_until(claimed.exists), "the hook never claimed the message"
        time.sleep(0.2)
        assert p.poll() is None, "the hook should be blocked writing its output"
        p.kill()
        p.wait(10)
    finally:
        os.close(w)
        os.close(r)
    assert claimed.exists()
    assert not (world.state / "seats" / "worker" / "new" / f"{msg_id}.md").exists()
    assert world.run("sent", msg_id).stdout.startswith("injected ")
    assert world.run("deliver", "--format", "claude", cwd="worker").stdout == ""
    assert world.run("inbox", cwd="worker").stdout == "(inbox empty)\n"
    shown = world.run("show", msg_id)
    assert shown.returncode == 0 and "the body nobody saw" in shown.stdout


def assert_given_back(world: World, msg_ids: list[str]) -> None:
    """Every message is unread again, and a later hook delivers each one."""
    new = world.state / "seats" / "worker" / "new"
    assert sorted(p.name for p in new.glob("*.md")) == sorted(f"{m}.md" for m in msg_ids)
    for m in msg_ids:
        assert world.run("sent", m).stdout == "delivered\n"
    got: list[str] = []
    for _ in range(len(msg_ids)):
        got += delivered_ids(world.run("deliver", "--format", "claude", cwd="worker").stdout)
        if len(got) >= len(msg_ids):
            break
    assert sorted(got) == sorted(msg_ids)


def test_a_hook_with_closed_stdout_claims_nothing(world: World) -> None:
    know(world, "worker")
    msg_id = world.send("worker", "ask", "--", "closed stdout", body="body")
    r = subprocess.run(
        ["sh", "-c", f"exec '{hail_bin()}' deliver --format claude >&-"],
        cwd=world.root / "worker",
        env=world.env,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert r.returncode == 0 and r.stderr == b""
    assert_given_back(world, [msg_id])


@pytest.mark.parametrize("verb", [("deliver", "--format", "claude"), ("inbox",)])
def test_a_broken_pipe_gives_every_claim_back(world: World, verb: tuple[str, ...]) -> None:
    """The reader is gone before the first byte: the write fails, the claims return to new/."""
    know(world, "worker")
    msg_ids = [
        world.send("worker", "ask", "--", f"broken pipe {i}", body=f"body {i}") for i in range(3)
    ]
    r, w = os.pipe()
    os.close(r)
    try:
        p = spawn(world, *verb, cwd="worker", stdout=w)
    finally:
        os.close(w)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert err == b"", err  # a closed pipe ends output quietly
    assert_given_back(world, msg_ids)


def test_inbox_read_by_a_reader_that_closes_early_gives_every_claim_back(world: World) -> None:
    """`hail inbox | head -c 100` through a small pipe: the write fails midway, all claims return."""
    know(world, "worker")
    msg_ids = [
        world.send("worker", "ask", "--", f"long {i}", body=crash_body(i, 30_000))
        for i in range(10)
    ]
    # A 4 KiB pipe: inbox prints up to its 16 KiB budget, so the write fails once head is gone.
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, F_SETPIPE_SZ, 4096)
    head = subprocess.Popen(["head", "-c", "100"], stdin=read_end, stdout=subprocess.PIPE)
    os.close(read_end)
    inbox = subprocess.Popen(
        [hail_bin(), "inbox"],
        cwd=world.root / "worker",
        env=world.env,
        stdout=write_end,
        stderr=subprocess.PIPE,
    )
    os.close(write_end)
    head_out, _ = head.communicate(timeout=30)
    _, err = inbox.communicate(timeout=30)
    r = subprocess.CompletedProcess(inbox.args, head.returncode, head_out, err)
    assert r.returncode == 0 and len(r.stdout) == 100
    assert b"Traceback" not in r.stderr and b"error" not in r.stderr, r.stderr
    new = world.state / "seats" / "worker" / "new"
    assert sorted(p.name[:-3] for p in new.glob("*.md")) == sorted(msg_ids)
    seen: list[str] = []
    for _ in msg_ids:  # within its output budget: one long message per call here
        seen += delivered_ids(world.run("inbox", cwd="worker").stdout)
    assert sorted(seen) == sorted(msg_ids)


def limit_file_size(limit: int) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


@pytest.mark.parametrize("verb", [("deliver", "--format", "claude"), ("inbox",)])
def test_a_full_disk_under_the_output_file_gives_every_claim_back(
    world: World, tmp_path: Path, verb: tuple[str, ...]
) -> None:
    """stdout is a file and RLIMIT_FSIZE stops it at 64 bytes: the write fails with EFBIG."""
    know(world, "worker")
    msg_ids = [
        world.send("worker", "ask", "--", f"full disk {i}", body=f"body {i}") for i in range(2)
    ]
    out = tmp_path / "hook-output"
    with open(out, "wb") as f:
        p = subprocess.run(
            [hail_bin(), *verb],
            cwd=world.root / "worker",
            env=world.env,
            stdin=subprocess.DEVNULL,
            stdout=f,
            stderr=subprocess.PIPE,
            preexec_fn=limit_file_size(64),
            timeout=30,
            check=False,
        )
    if verb[0] == "deliver":
        assert (p.returncode, p.stderr) == (0, b"")  # hooks never fail
    else:
        # inbox is not a hook: it may fail, with one `error:` line and no traceback.
        assert p.returncode in (0, 1), p.stderr
        assert b"Traceback" not in p.stderr and p.stderr.count(b"\n") <= 1, p.stderr
    assert out.stat().st_size <= 64
    assert_given_back(world, msg_ids)
