"""Conversations through the installed `hail`, without tmux: replies are never quiet, `sent` lists
replies, `await --reply` and `ask --wait` print the answer framed, crossing waits are refused with
exit 6, and a chain of replies past the cap wakes nobody. Every exit code and message."""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.entry import hail_bin
from tests.support.ids import ID
from tests.support.procs import wait_until
from tests.support.world import World

ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
CAP = 8


def reply(world: World, to: str, kind: str, re_id: str, headline: str, cwd: str) -> str:
    """A real reply (no tmux: exit 5, or 0 when quiet); returns its id."""
    return world.send(to, kind, "--re", re_id, headline, cwd=cwd)


def hook(world: World, cwd: str, prompt: str) -> subprocess.CompletedProcess[str]:
    """The prompt hook as the harness runs it, with the prompt in its JSON payload."""
    data = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": prompt})
    return world.run("deliver", "--format", "claude", cwd=cwd, stdin=data)


def popen(world: World, *args: str, cwd: str = "boss") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [hail_bin(), *args],
        cwd=world.root / cwd,
        env=world.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def first_id(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert re.fullmatch(rf"id=({ID})\n", line), line
    return line[3:].strip()


def waiting(world: World, n: int) -> bool:
    d = world.state / "waits"
    return d.is_dir() and len([p for p in d.iterdir() if not p.name.startswith(".")]) == n


# --- a reply wakes its asker ---------------------------------------------------------------------


def test_a_reply_to_an_ask_is_never_quiet_even_as_an_fyi(world: World) -> None:
    ask = world.send("worker", "ask", "is the migration safe?")
    assert hook(world, "boss", "carry on").returncode == 0  # boss's hooks run: an fyi is quiet
    plain = world.run("boss", "fyi", "the build is green", cwd="worker")
    assert (plain.returncode, "quiet: arrives with boss's next prompt" in plain.stderr) == (0, True)
    answer = world.run("boss", "fyi", "--re", ask, "GO: safe to run twice", cwd="worker")
    assert answer.returncode == 5, answer.stderr
    assert "quiet:" not in answer.stderr
    assert "not typed (no tmux server)" in answer.stderr
    pending = world.state / "seats" / "worker" / "pending"
    assert (pending / answer.stdout.strip()[3:]).exists(), "a reply is followed like an ask"


def test_an_fyi_answering_an_fyi_or_another_seats_ask_stays_quiet(world: World) -> None:
    world.make_seat("third")
    world.run("whoami", cwd="third")
    note = world.send("worker", "fyi", "the build is green")
    their_ask = world.send("worker", "ask", "a question of third's", cwd="third")
    hook(world, "boss", "carry on")
    for re_id in (note, their_ask):
        proc = world.run("boss", "fyi", "--re", re_id, "noted", cwd="worker")
        assert proc.returncode == 0, proc.stderr
        assert "quiet: arrives with boss's next prompt or tool call" in proc.stderr


# --- sent ------------------------------------------------------------------------------------------


def test_sent_takes_several_ids_and_shows_the_replies_of_an_ask(world: World) -> None:
    ask = world.send("worker", "ask", "review the parser", body="details")
    other = world.send("worker", "fyi", "fyi only")
    assert world.run("sent", ask).stdout == "delivered\n"
    world.run("inbox", cwd="worker")
    first = reply(world, "boss", "fyi", ask, "NO-GO: one bug", cwd="worker")
    second = reply(world, "boss", "fyi", ask, "GO after the fix", cwd="worker")
    one = world.run("sent", ask)
    assert re.fullmatch(rf"read {ISO} replied {first} {second}\n", one.stdout), one.stdout
    several = world.run("sent", ask, other, "1001T000000-0000")
    assert several.returncode == 0
    lines = several.stdout.splitlines()
    assert re.fullmatch(rf"{ask} read {ISO} replied {first} {second}", lines[0])
    assert lines[1:] == [f"{other} read " + lines[1].split(" read ")[1], "1001T000000-0000 unknown"]
    none = world.run("sent")
    assert (none.returncode, none.stderr) == (
        1,
        "error: sent takes one or more message ids. 'hail help' lists every command\n",
    )


# --- await --reply ---------------------------------------------------------------------------------


def test_await_reply_claims_the_reply_and_prints_it_framed_like_inbox(world: World) -> None:
    ask = world.send("worker", "ask", "is it safe?")
    answer = reply(world, "boss", "fyi", ask, "GO: safe", cwd="worker")
    proc = world.run("await", "--reply", ask, "--timeout", "5")
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = proc.stdout.splitlines()
    token = re.match(r"hail: 1 peer message, framed by token ([0-9a-f]{8}): ", lines[0])
    assert token, proc.stdout
    t = token.group(1)
    assert lines[1] == f"[hail:{t} fyi from:worker id:{answer} re:{ask}] GO: safe"
    assert lines[2:] == [f"[/hail:{t}]"]
    assert (world.state / "seats/boss/cur" / f"{answer}.read.md").exists()
    again = world.run("await", "--reply", ask, "--timeout", "0")
    assert again.returncode == 0
    assert re.search(rf"^receipt: read {ISO}$", again.stdout, re.M), "shown again, not claimed"


def test_await_reply_times_out_with_exit_1_and_says_the_reply_still_arrives(
    world: World,
) -> None:
    ask = world.send("worker", "ask", "is it safe?")
    start = time.monotonic()
    proc = world.run("await", "--reply", ask, "--timeout", "0.5")
    assert time.monotonic() - start < 5
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == (
        f"error: no reply to {ask} within 0.5 s. It still arrives by your hooks (typed into your "
        "pane when you are idle, or with your next tool call): do not resend; carry on, or wait "
        f"again with hail await --reply {ask}\n"
    )
    assert not waiting(world, 1), "the wait record is gone"


def test_await_reply_returns_when_the_reply_arrives(world: World) -> None:
    ask = world.send("worker", "ask", "is it safe?")
    proc = popen(world, "await", "--reply", ask, "--timeout", "30")
    assert wait_until(lambda: waiting(world, 1))
    answer = reply(world, "boss", "fyi", ask, "GO: safe", cwd="worker")
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, err) == (0, "")
    assert f"id:{answer} " in out and re.search(r"\n\[/hail:[0-9a-f]{8}\]$", out.rstrip())
    assert waiting(world, 0)


def test_await_reply_for_several_asks_waits_for_each_or_any(world: World) -> None:
    one = world.send("worker", "ask", "first question")
    two = world.send("worker", "ask", "second question")
    answer = reply(world, "boss", "fyi", one, "answer one", cwd="worker")
    any_ = world.run("await", "--reply", one, two, "--any", "--timeout", "0")
    assert any_.returncode == 0 and f"id:{answer}" in any_.stdout
    both = world.run("await", "--reply", one, two, "--timeout", "0.2")
    assert both.returncode == 1
    assert f"id:{answer}" in both.stdout, "what did arrive is printed"
    assert both.stderr.startswith(f"error: no reply to {two} within 0.2 s.")
    assert both.stderr.rstrip().endswith(f"hail await --reply {one} {two}")


def test_await_reply_refuses_what_it_cannot_wait_for(world: World) -> None:
    theirs = world.send("boss", "ask", "worker's own ask", cwd="worker")
    cases = {
        ("await", "--reply"): "error: await --reply needs the id of at least one ask you sent\n",
        ("await", "--reply", "1001T000000-0000"): (
            "error: no message with id 1001T000000-0000; hail brief lists your sends\n"
        ),
        ("await", "--reply", theirs): (
            f"error: {theirs} was sent from worker, not from boss: its replies go there. "
            f"Run hail await --reply {theirs} from that seat\n"
        ),
        (
            "await",
            "--reply",
            "a/b",
        ): "error: 'a/b' is not a message id; hail brief lists your sends\n",
        ("await", "--reply", "x", "--timeout", "soon"): (
            "error: --timeout takes a number of seconds, not 'soon'. 'hail help' lists every command\n"
        ),
    }
    for args, stderr in cases.items():
        proc = world.run(*args)
        assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", stderr), args


# --- ask --wait ------------------------------------------------------------------------------------


def test_ask_wait_prints_the_id_then_the_reply(world: World) -> None:
    world.run("whoami", cwd="worker")
    proc = popen(world, "worker", "ask", "--wait", "30", "is it safe?")
    ask = first_id(proc)
    assert wait_until(lambda: waiting(world, 1))
    answer = reply(world, "boss", "fyi", ask, "GO: safe", cwd="worker")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "not typed (no tmux server)" in err, "the send's own notice is kept"
    assert out.startswith("hail: 1 peer message, framed by token ")
    assert f"id:{answer} " in out and f"re:{ask}] GO: safe" in out


def test_ask_wait_times_out_with_exit_1_after_filing_the_ask(world: World) -> None:
    world.run("whoami", cwd="worker")
    proc = world.run("worker", "ask", "--wait", "0.3", "is it safe?")
    assert proc.returncode == 1
    ask = re.fullmatch(rf"id=({ID})\n", proc.stdout)
    assert ask, proc.stdout
    assert f"error: no reply to {ask.group(1)} within 0.3 s." in proc.stderr
    assert (world.state / "seats/worker/new" / f"{ask.group(1)}.md").exists()


def test_ask_wait_refusals_wait_for_nothing(world: World) -> None:
    cases = {
        ("worker", "fyi", "--wait", "the build is green"): (
            1,
            "error: --wait applies to an ask, not fyi: only an ask expects a reply\n",
        ),
        ("worker", "ask", "--wait=soon", "q"): (
            1,
            "error: --wait takes a number of seconds, not 'soon'. 'hail help' lists every command\n",
        ),
        ("..", "ask", "--wait", "q"): (1, None),
        ("worker", "announce", "--wait", "x" * 200): (1, None),
    }
    for args, (rc, stderr) in cases.items():
        start = time.monotonic()
        proc = world.run(*args)
        assert proc.returncode == rc, (args, proc.stderr)
        assert time.monotonic() - start < 10, "nothing was awaited"
        if stderr is not None:
            assert proc.stderr == stderr
        assert "id=" not in proc.stdout
    assert not (world.state / "waits").exists()


def test_a_re_from_a_seat_that_was_not_asked_is_a_comment_and_ends_no_wait(world: World) -> None:
    """Only the seat asked answers: another seat's --re reaches the asker as an ordinary message."""
    world.make_seat("third")
    for seat in ("worker", "third"):
        world.run("whoami", cwd=seat)
    assert hook(world, "boss", "carry on").returncode == 0  # boss's hooks run: an fyi is quiet
    proc = popen(world, "worker", "ask", "--wait", "3", "is it safe?")
    ask = first_id(proc)
    assert wait_until(lambda: waiting(world, 1))
    comment = world.run("boss", "fyi", "--re", ask, "I think so too", cwd="third")
    assert comment.returncode == 0, comment.stderr
    assert "quiet: arrives with boss's next prompt or tool call" in comment.stderr
    note = comment.stdout.strip()[3:]
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1, (out, err)
    assert note not in out and f"error: no reply to {ask} within 3 s." in err
    assert world.run("sent", ask).stdout == "delivered\n", "a comment is no reply"
    inbox = world.run("inbox")
    assert f"fyi from:third id:{note} re:{ask}] I think so too" in inbox.stdout
    answer = reply(world, "boss", "fyi", ask, "GO: safe", cwd="worker")
    again = world.run("await", "--reply", ask, "--timeout", "5")
    assert again.returncode == 0 and f"id:{answer} " in again.stdout and note not in again.stdout
    assert world.run("sent", ask).stdout == f"delivered replied {answer}\n"


# --- crossing waits ----------------------------------------------------------------------------------


def test_crossing_waits_of_two_seats_refuse_the_second_with_exit_6(world: World) -> None:
    world.run("whoami", cwd="worker")
    boss = popen(world, "worker", "ask", "--wait", "30", "can I land the parser?")
    boss_ask = first_id(boss)
    assert wait_until(lambda: waiting(world, 1))
    start = time.monotonic()
    proc = world.run("boss", "ask", "--wait", "30", "which parser?", cwd="worker")
    assert time.monotonic() - start < 10, "refused at once"
    assert proc.returncode == 6
    worker_ask = re.fullmatch(rf"id=({ID})\n", proc.stdout)
    assert worker_ask, "the ask itself is filed"
    assert proc.stderr.endswith(
        f"error: not waiting: boss is waiting for your reply to {boss_ask} (can I land the "
        "parser?), so the waits would block each other until they time out. Your own answer "
        f"still arrives by your hooks. Answer first: hail boss fyi --re {boss_ask} '<answer>'\n"
    )
    reply(world, "boss", "fyi", boss_ask, "GO", cwd="worker")
    _, err = boss.communicate(timeout=30)
    assert boss.returncode == 0, err
    assert waiting(world, 0)


def test_crossing_waits_of_three_seats_name_the_ask_to_answer_first(world: World) -> None:
    world.make_seat("third")
    for seat in ("worker", "third"):
        world.run("whoami", cwd=seat)
    boss = popen(world, "worker", "ask", "--wait", "30", "boss asks worker")
    boss_ask = first_id(boss)
    worker = popen(world, "third", "ask", "--wait", "30", "worker asks third", cwd="worker")
    worker_ask = first_id(worker)
    assert wait_until(lambda: waiting(world, 2))
    proc = world.run("await", "--reply", "x", cwd="third")  # not its ask: refused first
    assert proc.returncode == 1
    third_ask = world.send("boss", "ask", "third asks boss", cwd="third")
    proc = world.run("await", "--reply", third_ask, "--timeout", "30", cwd="third")
    assert proc.returncode == 6, proc.stderr
    assert proc.stderr == (
        f"error: not waiting: boss waits on worker, and worker is waiting for your reply to "
        f"{worker_ask} (worker asks third), so the waits would block each other until they time "
        "out. Your own answer still arrives by your hooks. Answer first: "
        f"hail worker fyi --re {worker_ask} '<answer>'\n"
    )
    reply(world, "worker", "fyi", worker_ask, "answer", cwd="third")
    assert worker.wait(timeout=30) == 0
    reply(world, "boss", "fyi", boss_ask, "answer", cwd="worker")
    assert boss.wait(timeout=30) == 0
    for p in (boss, worker):
        p.communicate()


def test_a_wait_killed_without_cleaning_up_blocks_nobody(world: World) -> None:
    world.run("whoami", cwd="worker")
    boss = popen(world, "worker", "ask", "--wait", "60", "a question")
    boss_ask = first_id(boss)
    assert wait_until(lambda: waiting(world, 1))
    boss.kill()
    boss.communicate()
    assert waiting(world, 1), "SIGKILL left the record"
    record = next(p for p in (world.state / "waits").iterdir() if not p.name.startswith("."))
    old = time.time() - 10
    os.utime(record, (old, old))  # not refreshed since: its process is gone
    proc = world.run("boss", "ask", "--wait", "0.2", "mine", cwd="worker")
    assert proc.returncode == 1, proc.stderr  # a plain timeout, no cycle
    assert boss_ask not in proc.stderr


def forge_wait(world: World, asks: str, *, pid: int, touched: float | None = None) -> Path:
    """A wait record written by hand: worker waiting on boss for `asks`, as a wait writes it."""
    where = world.state / "waits"
    where.mkdir(mode=0o700, exist_ok=True)
    started = time.time_ns()
    record = where / f"{started}-{pid}"
    record.write_text(
        f"waiter: worker\nasks: {asks}\nto: {' '.join(['boss'] * len(asks.split()))}\n"
        f"any: no\nstarted: {started}\ndeadline: {time.time() + 3600:.3f}\npid: {pid}\n"
    )
    if touched is not None:
        os.utime(record, (touched, touched))
    return record


def gone_pid() -> int:
    """The pid of a process of ours that has ended."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def assert_blocks_nobody(world: World) -> None:
    """boss's wait on worker is a plain timeout, not refused as a cycle."""
    proc = world.run("worker", "ask", "--wait", "0.3", "mine")
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("error: no reply to "), proc.stderr


def test_a_wait_record_touched_in_the_future_blocks_nobody(world: World) -> None:
    world.run("whoami", cwd="worker")
    ask = world.send("boss", "ask", "worker's question", cwd="worker")
    record = forge_wait(world, ask, pid=os.getpid(), touched=time.time() + 86400)
    with open(record) as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # held as a live wait holds its record
        assert_blocks_nobody(world)


def test_a_fifo_link_or_folder_in_waits_blocks_nobody_and_hangs_nothing(world: World) -> None:
    world.run("whoami", cwd="worker")
    ask = world.send("boss", "ask", "worker's question", cwd="worker")
    real = forge_wait(world, ask, pid=os.getpid())
    where = world.state / "waits"
    os.mkfifo(where / f"{time.time_ns()}-1")
    (where / f"{time.time_ns()}-2").symlink_to(real)
    (where / f"{time.time_ns()}-3").mkdir()
    real.unlink()
    start = time.monotonic()
    assert_blocks_nobody(world)
    assert time.monotonic() - start < 10
    notes = [n for n in world.run("doctor").stdout.splitlines() if "counts for nothing" in n]
    assert len(notes) == 3 and all("(it is no plain file)" in n for n in notes), notes
    assert "removed 3 wait records" in world.run("gc").stdout
    assert [p.name for p in where.iterdir()] == [".lock"]


def test_a_wait_record_of_a_process_that_is_gone_blocks_nobody(world: World) -> None:
    world.run("whoami", cwd="worker")
    ask = world.send("boss", "ask", "worker's question", cwd="worker")
    forge_wait(world, ask, pid=gone_pid())
    assert_blocks_nobody(world)


def test_a_wait_record_whose_pid_another_process_has_now_blocks_nobody(world: World) -> None:
    """A waiter killed without cleaning up, its pid handed to a process that waits for nothing."""
    world.run("whoami", cwd="worker")
    ask = world.send("boss", "ask", "worker's question", cwd="worker")
    other = subprocess.Popen(["sleep", "60"])
    try:
        forge_wait(world, ask, pid=other.pid)
        assert_blocks_nobody(world)
    finally:
        other.kill()
        other.wait()


@pytest.mark.parametrize("which", ["missing", "not the waiter's"])
def test_a_wait_record_naming_no_ask_of_its_waiter_blocks_nobody(world: World, which: str) -> None:
    """Even held open by a live process as a waiter holds its record."""
    world.make_seat("third")
    world.run("whoami", cwd="worker")
    ask = (
        "1001T000000-0000"
        if which == "missing"
        else world.send("boss", "ask", "third's question", cwd="third")
    )
    record = forge_wait(world, ask, pid=os.getpid())
    with open(record) as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert_blocks_nobody(world)


def test_doctor_names_dead_wait_records_and_gc_removes_them_but_not_a_live_one(
    world: World,
) -> None:
    world.run("whoami", cwd="worker")
    live = popen(world, "worker", "ask", "--wait", "60", "a real wait")
    first_id(live)
    try:
        assert wait_until(lambda: waiting(world, 1))
        ask = world.send("boss", "ask", "worker's question", cwd="worker")
        future = forge_wait(world, ask, pid=os.getpid(), touched=time.time() + 86400)
        dead = forge_wait(world, ask, pid=gone_pid())
        unknown = forge_wait(world, "1001T000000-0000", pid=os.getpid())
        with open(unknown) as held:
            fcntl.flock(held, fcntl.LOCK_EX)  # held as a live wait holds its record
            doctor = world.run("doctor")
            notes = [n for n in doctor.stdout.splitlines() if "counts for nothing" in n]
            assert len(notes) == 3, doctor.stdout
            for record in (future, dead, unknown):
                assert any(
                    f"waits/{record.name} " in n and n.endswith("run hail gc") for n in notes
                )
            assert "no message here" in next(n for n in notes if unknown.name in n)
            assert "3 wait records that block nobody" in doctor.stdout
            gc = world.run("gc")
        assert gc.returncode == 0, gc.stderr
        assert "removed 3 wait records that block nobody" in gc.stdout, gc.stdout
        assert waiting(world, 1), "the live wait's record is kept"
        assert "counts for nothing" not in world.run("doctor").stdout
    finally:
        live.terminate()
        live.communicate(timeout=10)


def test_sigterm_ends_a_wait_and_removes_its_record(world: World) -> None:
    world.run("whoami", cwd="worker")
    boss = popen(world, "worker", "ask", "--wait", "60", "a question")
    first_id(boss)
    assert wait_until(lambda: waiting(world, 1))
    boss.terminate()
    boss.communicate(timeout=10)
    assert boss.returncode == 128 + 15
    assert waiting(world, 0)


# --- the loop guard ----------------------------------------------------------------------------------


def test_a_chain_of_replies_past_the_cap_is_filed_but_wakes_nobody(world: World) -> None:
    last = world.send("worker", "ask", "shall we?")
    sides = [("boss", "worker"), ("worker", "boss")]  # (to, from): worker answers first
    for n in range(1, CAP + 1):
        to, frm = sides[(n - 1) % 2]
        proc = world.run(to, "ask", "--re", last, f"reply {n}", cwd=frm)
        assert proc.returncode == 5 and "no tmux server" in proc.stderr, (n, proc.stderr)
        last = proc.stdout.strip()[3:]
        assert f"chain: {n}\n" in (world.state / "seats" / to / "new" / f"{last}.md").read_text()
    to, frm = sides[CAP % 2]
    proc = world.run(to, "fyi", "--re", last, "reply 9", cwd=frm)
    assert proc.returncode == 5
    capped = proc.stdout.strip()[3:]
    assert proc.stderr == (
        f"hail: delivered to {to}'s inbox; not typed (it would be reply 9 in a row with no "
        "person's prompt in between; past 8 hail wakes nobody, so agents cannot answer each "
        "other forever. A person's prompt in either pane starts the count again). No hook has "
        f"read {to} lately, so it waits until someone runs hail inbox in {world.root / to}. If "
        "its agent works from another directory, hail seats shows where; do not resend.\n"
    )
    assert (world.state / "seats" / to / "new" / f"{capped}.md").exists(), "filed all the same"
    # A typed envelope is no person: the count goes on.
    hook(world, frm, f"[hail kind:fyi from:{to} reply:{to} id:{last}] reply 8")
    proc = world.run(to, "fyi", "--re", last, "again", cwd=frm)
    assert "reply 9 in a row" in proc.stderr
    # A person's prompt in either pane starts it again.
    hook(world, to, "what are you two doing?")
    proc = world.run(to, "ask", "--re", last, "after the person looked in", cwd=frm)
    assert proc.returncode == 5 and "in a row" not in proc.stderr
    fresh = proc.stdout.strip()[3:]
    assert "chain: 1\n" in (world.state / "seats" / to / "new" / f"{fresh}.md").read_text()


def test_a_capped_ask_wait_waits_for_nothing(world: World) -> None:
    last = world.send("worker", "ask", "shall we?")
    for n in range(1, CAP + 1):
        to, frm = ("boss", "worker") if n % 2 else ("worker", "boss")
        last = reply(world, to, "ask", last, f"reply {n}", cwd=frm)
    proc = world.run("worker", "ask", "--re", last, "--wait", "30", "reply 9", cwd="boss")
    assert proc.returncode == 5
    assert "reply 9 in a row" in proc.stderr
    assert not (world.state / "waits").exists() or waiting(world, 0)


@pytest.mark.parametrize(
    ("prompt", "marked"),
    [("please review the parser", True), ("[hail kind:ask from:w reply:w id:x] hi", False)],
)
def test_only_a_persons_prompt_leaves_the_prompted_mark(
    world: World, prompt: str, marked: bool
) -> None:
    assert hook(world, "boss", prompt).returncode == 0
    assert (world.state / "seats/boss/prompted").exists() is marked
    tool = world.run(
        "deliver", "--format", "claude", "--event", "PostToolUse", cwd="worker",
        stdin=json.dumps({"hook_event_name": "PostToolUse", "prompt": "not a prompt"}),
    )  # fmt: skip
    assert tool.returncode == 0
    assert not (world.state / "seats/worker/prompted").exists()


#: What the pinned clients give a hook and a command their model runs (docs/real-clients.md):
#: Claude Code sets CLAUDECODE=1 for both and CLAUDE_PROJECT_DIR for hooks only; Codex exports
#: CODEX_THREAD_ID and CODEX_SESSION_ID to the model's commands only; Copilot CLI gives its hooks
#: COPILOT_PROJECT_DIR and CLAUDE_PROJECT_DIR, and the model's commands COPILOT_AGENT_SESSION_ID.
CLAUDE_SESSION = "a469290b-4ee4-42a4-a471-7eb7c11befc8"
CODEX_SESSION = "01a2321b-e6b8-79a0-a34d-b52de4d1d970"
HOOK_ENVS = {
    "claude": {
        "CLAUDECODE": "1",
        "CLAUDE_PROJECT_DIR": "/work/project",
        "CLAUDE_CODE_SESSION_ID": CLAUDE_SESSION,
        "CLAUDE_CODE_ENTRYPOINT": "cli",
    },
    "codex": {"CODEX_MANAGED_BY_NPM": "1"},
    "copilot": {
        "COPILOT_CLI": "1",
        "COPILOT_LOADER_PID": "4242",
        "COPILOT_PROJECT_DIR": "/work/project",
        "CLAUDE_PROJECT_DIR": "/work/project",
    },
}
TOOL_ENVS = {
    "claude": {
        "CLAUDECODE": "1",
        "CLAUDE_CODE_SESSION_ID": CLAUDE_SESSION,
        "CLAUDE_CODE_ENTRYPOINT": "cli",
        "CLAUDE_CODE_EXECPATH": "/opt/claude/bin/claude.exe",
    },
    "codex": {
        "CODEX_MANAGED_BY_NPM": "1",
        "CODEX_THREAD_ID": CODEX_SESSION,
        "CODEX_SESSION_ID": CODEX_SESSION,
        "CODEX_TOOL_CALL_ID": "call_3c30e8d4f8664819",
        "CODEX_CI": "1",
    },
    "copilot": {
        "COPILOT_CLI": "1",
        "COPILOT_LOADER_PID": "4242",
        "COPILOT_AGENT_SESSION_ID": CLAUDE_SESSION,
    },
}


def harness_payload(client: str, prompt: str, cwd: str = "/work/project") -> str:
    """A UserPromptSubmit payload as each pinned client writes it."""
    if client == "copilot":  # camelCase; its hooks take their seat from `cwd`
        return json.dumps(
            {"sessionId": CLAUDE_SESSION, "timestamp": 1, "cwd": cwd, "prompt": prompt}
        )
    session = CLAUDE_SESSION if client == "claude" else CODEX_SESSION
    payload: dict[str, object] = {
        "session_id": session,
        "transcript_path": f"/home/u/.{client}/sessions/{session}.jsonl",
        "cwd": "/work/project",
        "hook_event_name": "UserPromptSubmit",
        "permission_mode": "default",
        "prompt": prompt,
    }
    payload["prompt_id" if client == "claude" else "turn_id"] = (
        "6bd6d5be-ad7e-47fe-bb0e-8814f17a21ad"
    )
    return json.dumps(payload)


@pytest.mark.parametrize("client", ["claude", "codex", "copilot"])
def test_a_prompt_hook_run_from_a_tool_call_does_not_start_a_chain_again(
    world: World, client: str
) -> None:
    """A model running `echo '{"prompt":…}' | hail deliver --format <client>` in its own tool call
    is no person typing: past the cap, the chain stays capped until the harness's hook says so."""
    last = world.send("worker", "ask", "shall we?")
    for n in range(1, CAP + 1):
        to, frm = ("boss", "worker") if n % 2 else ("worker", "boss")
        last = reply(world, to, "ask", last, f"reply {n}", cwd=frm)
    prompted = world.state / "seats" / "worker" / "prompted"
    by_hand = world.run(
        "deliver", "--format", client, cwd="worker",
        stdin=harness_payload(client, "a person asks you to go on", str(world.root / "worker")),
        env=TOOL_ENVS[client],
    )  # fmt: skip
    assert (by_hand.returncode, by_hand.stderr) == (0, "")
    assert not prompted.exists()
    capped = world.run("boss", "fyi", "--re", last, "reply 9", cwd="worker")
    assert "reply 9 in a row" in capped.stderr
    # The harness's own hook, for the prompt a person typed into that pane.
    hooked = world.run(
        "deliver", "--format", client, cwd="worker",
        stdin=harness_payload(client, "what are you two doing?", str(world.root / "worker")),
        env=HOOK_ENVS[client],
    )  # fmt: skip
    assert (hooked.returncode, hooked.stderr) == (0, "")
    assert prompted.exists()
    fresh = world.run("boss", "ask", "--re", last, "after the person looked in", cwd="worker")
    assert fresh.returncode == 5 and "in a row" not in fresh.stderr


def test_under_codex_the_default_wait_ends_inside_its_ten_second_yield(world: World) -> None:
    world.run("whoami", cwd="worker")
    start = time.monotonic()
    proc = world.run("worker", "ask", "--wait", "is it safe?", env={"CODEX_THREAD_ID": "019a"})
    took = time.monotonic() - start
    assert proc.returncode == 1
    assert "within 8 s. It still arrives by your hooks" in proc.stderr
    assert 7 < took < 10, f"the whole command took {took:.1f} s"
