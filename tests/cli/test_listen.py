"""`hail listen --format claude`, Claude Code's waiter (docs/hooks.md "The waiter"), run as the
installed script the way Claude Code runs it: in the seat's directory, with the payload on stdin and
`CLAUDE_PID` naming a stand-in client (a `sleep` this test owns), so that the client's end, a newer
waiter and a send's signal can each be shown. Every waiter a test starts is ended by pid."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hail import policy
from tests.support.entry import hail_bin
from tests.support.macos import SHAPED, not_on_macos, run_shaped
from tests.support.procs import alive, hails_backend, wait_until
from tests.support.world import World

INTERACTIVE = {"CLAUDE_CODE_ENTRYPOINT": "cli", "CLAUDE_CODE_SESSION_ATTENDED": "1"}
START = '{"session_id":"s-1","hook_event_name":"SessionStart","source":"startup"}'
STOP = '{"session_id":"s-1","hook_event_name":"Stop","stop_hook_active":false}'


class Waiters:
    """Waiters and stand-in clients started by one test, ended by pid at teardown."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.procs: list[subprocess.Popen[bytes]] = []

    def client(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(["sleep", "120"])
        self.procs.append(proc)
        return proc

    def start(
        self, client: int, payload: str = START, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        full = {**self.world.env, "CLAUDE_PID": str(client), **INTERACTIVE, **(env or {})}
        proc = subprocess.Popen(
            [hail_bin(), "listen", "--format", "claude"],
            cwd=self.world.root / "worker",
            env=full,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdin is not None
        try:
            proc.stdin.write(payload.encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass  # a waiter that returns at once (not interactive) may not read its payload
        self.procs.append(proc)
        return proc

    def record(self, client: int) -> dict[str, str]:
        path = self.world.state / "presence" / f"claude-{client}"
        if not path.exists():
            return {}
        return dict(line.split(": ", 1) for line in path.read_text().splitlines() if ": " in line)

    def listening(self, client: int, waiter: int) -> bool:
        rec = self.record(client)
        return rec.get("waiter") == str(waiter) and rec.get("state") == "listening"

    def end(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(10)


@pytest.fixture
def waiters(world: World) -> Iterator[Waiters]:
    w = Waiters(world)
    try:
        yield w
    finally:
        w.end()


def ask_for_a_wake(world: World, waiter: int | None) -> str:
    """What a send on the `woken` route does: file, touch the wake mark, signal the waiter."""
    msg_id = world.send("worker", "ask", "wake up for this", body="WAKE-BODY")
    (world.state / "seats" / "worker" / "wake").touch()
    if waiter is not None:
        os.kill(waiter, signal.SIGUSR1)
    return msg_id


def ended(proc: subprocess.Popen[bytes], within: float) -> int | None:
    try:
        return proc.wait(within)
    except subprocess.TimeoutExpired:
        return None


def test_a_send_that_asks_wakes_the_session_at_once_and_claims_nothing(
    world: World, waiters: Waiters
) -> None:
    client = waiters.client()
    waiter = waiters.start(client.pid)
    assert wait_until(lambda: waiters.listening(client.pid, waiter.pid), 10)

    started = time.monotonic()
    msg_id = ask_for_a_wake(world, waiter.pid)

    assert ended(waiter, 5) == 2, "exit 2 wakes the session"
    assert time.monotonic() - started < 3
    assert waiter.stderr is not None
    assert waiter.stderr.read().decode() == "new mail below (else: hail inbox)\n"
    assert waiters.record(client.pid)["state"] == "fired"
    assert world.run("sent", msg_id, cwd="boss").stdout.startswith("delivered"), "claims nothing"


def test_a_wake_asked_without_a_signal_is_seen_at_the_next_look(
    world: World, waiters: Waiters
) -> None:
    client = waiters.client()
    waiter = waiters.start(client.pid)
    assert wait_until(lambda: waiters.listening(client.pid, waiter.pid), 10)
    ask_for_a_wake(world, None)
    assert ended(waiter, 1 + 3 * policy.WAITER_CHECK_SECONDS) == 2


def test_unread_mail_without_a_wake_asked_wakes_nobody(world: World, waiters: Waiters) -> None:
    """A quiet fyi, or mail the Stop cap left unread: the waiter keeps waiting."""
    world.send("worker", "fyi", "no hurry", body="QUIET")
    client = waiters.client()
    waiter = waiters.start(client.pid)
    assert wait_until(lambda: waiters.listening(client.pid, waiter.pid), 10)
    os.kill(waiter.pid, signal.SIGUSR1)
    assert ended(waiter, 2.5) is None


def test_mid_turn_it_wakes_nobody(world: World, waiters: Waiters) -> None:
    client = waiters.client()
    waiter = waiters.start(client.pid)
    assert wait_until(lambda: waiters.listening(client.pid, waiter.pid), 10)
    # A prompt starts a turn: its hook marks the mailbox (hooked newer than stopping).
    world.run("deliver", "--format", "claude", cwd="worker", stdin='{"prompt":"go on"}')
    msg_id = world.send("worker", "ask", "during the turn", body="MID-TURN")
    time.sleep(0.05)
    (world.state / "seats" / "worker" / "wake").touch()
    os.kill(waiter.pid, signal.SIGUSR1)
    assert ended(waiter, 2.5) is None
    assert world.run("sent", msg_id).stdout.startswith("delivered")


def test_a_newer_waiter_of_the_same_client_replaces_the_older(
    world: World, waiters: Waiters
) -> None:
    # This test's process stands in for Claude Code: both waiters are its children, as Claude
    # Code's hooks are its own, so each is "a waiter of that client".
    client = os.getpid()
    first = waiters.start(client)
    assert wait_until(lambda: waiters.listening(client, first.pid), 10)
    second = waiters.start(client, STOP)
    assert ended(first, 5) == 0, "the older one ends quietly"
    assert waiters.listening(client, second.pid)
    assert second.poll() is None


def forge_listening(world: World, client: int, victim: int) -> None:
    """A presence record of `client` naming `victim`, a process that is no waiter of it, as its
    listening waiter (its start right, so only the waiter check can tell)."""
    from hail.store.presence import waiter as presence
    from hail.store.store import Store

    procs = hails_backend()
    forged = presence.Waiter(
        client, procs.start(client), victim, procs.start(victim), ["worker"], since=time.time()
    )
    presence.write_waiter(Store(str(world.state)), forged)


def test_a_starting_waiter_never_signals_what_a_forged_record_names(
    world: World, waiters: Waiters
) -> None:
    """The waiter a new one replaces is nudged only when it is a waiter of that client, the
    question a send asks: a `sleep` named there would die of SIGUSR1."""
    client = os.getpid()
    victim = waiters.client()
    forge_listening(world, client, victim.pid)

    waiter = waiters.start(client)

    assert wait_until(lambda: waiters.listening(client, waiter.pid), 10)
    time.sleep(2 * policy.WAITER_CHECK_SECONDS)
    assert victim.poll() is None, f"the named process got a signal (status {victim.returncode})"
    assert waiter.poll() is None and waiters.listening(client, waiter.pid)


def test_a_record_naming_a_live_non_waiter_does_not_end_the_waiter(
    world: World, waiters: Waiters
) -> None:
    """A record that names a live process other than a waiter of this client as `listening` is no
    newer waiter: the waiter takes its record back and goes on listening."""
    client = os.getpid()
    waiter = waiters.start(client)
    assert wait_until(lambda: waiters.listening(client, waiter.pid), 10)
    victim = waiters.client()

    forge_listening(world, client, victim.pid)

    assert wait_until(
        lambda: waiters.listening(client, waiter.pid), 1 + 3 * policy.WAITER_CHECK_SECONDS
    )
    time.sleep(2 * policy.WAITER_CHECK_SECONDS)
    assert waiter.poll() is None, "it still listens"
    assert victim.poll() is None


def test_it_ends_within_a_look_of_its_client_ending(world: World, waiters: Waiters) -> None:
    client = waiters.client()
    waiter = waiters.start(client.pid)
    assert wait_until(lambda: waiters.listening(client.pid, waiter.pid), 10)
    client.kill()
    client.wait()
    assert ended(waiter, 1 + 3 * policy.WAITER_CHECK_SECONDS) == 0
    assert waiters.record(client.pid) == {}, "its record is gone"


@pytest.mark.parametrize("backend", ["portable", "proc"])
def test_it_ends_within_a_look_of_its_client_ending_as_a_zombie(
    world: World, waiters: Waiters, backend: str
) -> None:
    """Claude Code's hooks write to a socket it reads. A client killed and not yet reaped is a
    zombie, which `kill 0` still finds (the portable backend's check between its looks): the
    socket's end tells the waiter its client is gone."""
    if backend == "proc" and (SHAPED or not os.path.isdir("/proc/self")):
        pytest.skip("no /proc here")
    ours, theirs = socket.socketpair()
    client = subprocess.Popen(["sleep", "120"], pass_fds=(ours.fileno(),))
    waiters.procs.append(client)
    ours.close()  # the client holds that end alone, as Claude Code does
    full = {
        **world.env,
        "CLAUDE_PID": str(client.pid),
        "HAIL_PROCESS_BACKEND": backend,
        **INTERACTIVE,
    }
    waiter = subprocess.Popen(
        [hail_bin(), "listen", "--format", "claude"],
        cwd=world.root / "worker",
        env=full,
        stdin=subprocess.PIPE,
        stdout=theirs.fileno(),
        stderr=subprocess.PIPE,
    )
    waiters.procs.append(waiter)
    theirs.close()
    assert waiter.stdin is not None
    waiter.stdin.write(START.encode())
    waiter.stdin.close()
    assert wait_until(lambda: waiters.listening(client.pid, waiter.pid), 10)
    time.sleep(2 * policy.WAITER_CHECK_SECONDS)
    assert waiter.poll() is None, "it listens while its client lives"
    os.kill(client.pid, signal.SIGKILL)  # not reaped: a zombie until the test's teardown
    assert ended(waiter, 1 + 3 * policy.WAITER_CHECK_SECONDS) == 0
    assert waiters.record(client.pid) == {}, "its record is gone"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_the_clients_signal_ends_it_quietly(
    world: World, waiters: Waiters, sig: signal.Signals
) -> None:
    client = waiters.client()
    waiter = waiters.start(client.pid)
    assert wait_until(lambda: waiters.listening(client.pid, waiter.pid), 10)
    waiter.send_signal(sig)
    assert ended(waiter, 5) == 0
    assert waiters.record(client.pid) == {}


@pytest.mark.parametrize(
    "env",
    [
        {"CLAUDE_CODE_ENTRYPOINT": "sdk-cli", "CLAUDE_CODE_SESSION_ATTENDED": "0"},  # claude -p
        {"CLAUDE_CODE_SESSION_ATTENDED": "0"},
        {"CLAUDE_PID": ""},
    ],
    ids=["claude-p", "unattended", "no-client-pid"],
)
def test_outside_an_interactive_session_it_returns_at_once(
    world: World, waiters: Waiters, env: dict[str, str]
) -> None:
    client = waiters.client()
    started = time.monotonic()
    waiter = waiters.start(client.pid, env=env)
    assert ended(waiter, 10) == 0
    assert time.monotonic() - started < 5
    assert not (world.state / "presence").exists(), "nothing written"


def test_a_session_start_marks_its_mailbox_between_turns(world: World, waiters: Waiters) -> None:
    world.run("deliver", "--format", "claude", cwd="worker", stdin='{"prompt":"a turn"}')
    box = world.state / "seats" / "worker"
    assert not (box / "stopping").exists(), "a turn runs"
    client = waiters.client()
    waiter = waiters.start(client.pid, START)
    assert wait_until(lambda: waiters.listening(client.pid, waiter.pid), 10)
    assert (box / "stopping").stat().st_mtime_ns >= (box / "hooked").stat().st_mtime_ns


def test_a_stop_does_not_mark_the_turn(world: World, waiters: Waiters) -> None:
    """Whether a Stop ends the turn is the Stop hook's to say (it may make the agent go on)."""
    world.run("deliver", "--format", "claude", cwd="worker", stdin='{"prompt":"a turn"}')
    box = world.state / "seats" / "worker"
    before = (box / "hooked").stat().st_mtime_ns
    client = waiters.client()
    waiter = waiters.start(client.pid, STOP)
    assert wait_until(lambda: waiters.listening(client.pid, waiter.pid), 10)
    assert (box / "hooked").stat().st_mtime_ns == before


@not_on_macos("without /proc, process facts come from `ps`, so the waiter imports subprocess")
def test_the_waiter_imports_no_click_or_libtmux(world: World) -> None:
    client = subprocess.Popen(["sleep", "30"])
    try:
        env = {**world.env, "CLAUDE_PID": str(client.pid), **INTERACTIVE}
        proc = subprocess.Popen(
            [sys.executable, "-X", "importtime", hail_bin(), "listen", "--format", "claude"],
            cwd=world.root / "worker",
            env=env,
            stdin=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        assert wait_until(lambda: (world.state / "presence" / f"claude-{client.pid}").exists(), 10)
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    finally:
        client.kill()
        client.wait()
    modules = {
        line.split("|")[-1].strip().split(".")[0]
        for line in err.decode().splitlines()
        if line.startswith("import time:")
    }
    assert "hail" in modules
    assert not modules & {"click", "libtmux", "tomlkit"}
    # The portable backend asks ps (subprocess, and what it loads) where there is no /proc.
    if hails_backend().name != "portable":
        lean = {"re", "json", "contextlib", "pathlib", "dataclasses", "select"}  # as the hook verbs
        assert not modules & (lean | {"subprocess"})
    assert not alive(proc.pid)


def test_an_older_waiter_that_finds_a_newer_one_fired_ends_without_a_second_wake(
    world: World, waiters: Waiters
) -> None:
    from hail.store.presence import waiter as waiter_records
    from hail.store.store import Store

    client = waiters.client()
    older = waiters.start(client.pid)
    assert wait_until(lambda: waiters.listening(client.pid, older.pid), 10)
    newer = waiters.client()  # stands in for the newer waiter's process
    store = Store(str(world.state))
    fired = waiter_records.Waiter(
        client.pid,
        hails_backend().start(client.pid),
        newer.pid,
        hails_backend().start(newer.pid),
        ["worker"],
        state=waiter_records.FIRED,
        since=time.time(),
    )
    waiter_records.write_waiter(store, fired)
    ask_for_a_wake(world, older.pid)
    assert ended(older, 5) == 0, "the session was woken once, by the newer waiter"
    assert waiters.record(client.pid)["state"] == "fired"


def test_a_waiter_started_just_after_the_one_it_replaces_fired_wakes_nobody_twice(
    world: World, waiters: Waiters
) -> None:
    """A Stop starts a new waiter while its session's old waiter has just woken it for a send,
    before the woken turn's prompt hook ran: the wake is served, and the new waiter waits for the
    next one."""
    client = waiters.client()
    first = waiters.start(client.pid)
    assert wait_until(lambda: waiters.listening(client.pid, first.pid), 10)
    msg_id = ask_for_a_wake(world, first.pid)
    assert ended(first, 5) == 2, "the first wake"
    second = waiters.start(client.pid, STOP)
    assert ended(second, 1 + 2 * policy.WAITER_CHECK_SECONDS) is None, "no second wake"
    assert waiters.listening(client.pid, second.pid)
    assert world.run("sent", msg_id).stdout.startswith("delivered")
    time.sleep(0.05)  # file times tick coarsely
    ask_for_a_wake(world, second.pid)
    assert ended(second, 5) == 2, "a later send wakes it"


def test_its_sleep_needs_nothing_macos_lacks(tmp_path: Path) -> None:
    """Under a macOS-shaped interpreter (no sigtimedwait, no /proc) the waiter's sleep ends on its
    own alarm, and at once on a send's signal, reaching for nothing a Mac lacks."""
    out, reaches = run_shaped(
        tmp_path,
        """
import os, signal, time
from hail.hooks import listen
signal.pthread_sigmask(signal.SIG_BLOCK, {listen.LOOK, listen.TICK, *listen.ENDS})
print(listen.sleep(0.2) == listen.TICK)
os.kill(os.getpid(), listen.LOOK)
began = time.monotonic()
print(listen.sleep(30) == listen.LOOK, time.monotonic() - began < 10)
os.kill(os.getpid(), signal.SIGTERM)
print(listen.sleep(30) in listen.ENDS)
""",
    )
    assert (out, reaches) == ("True\nTrue True\nTrue\n", "")


@not_on_macos("the benchmark reads the measured waiters' /proc, and forces the /proc backend")
def test_the_waiters_benchmark_measures_both_process_backends() -> None:
    """scripts/bench.py --waiter, shortened: the figures docs/performance.md quotes come from it.
    No figure is asserted (speed is measured, not tested)."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "bench.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--waiter", "--seconds", "1", "--sessions", "1",
         "--hail", hail_bin()],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr  # 1: past a goal on this machine now
    for backend in ("proc", "portable"):
        assert f"waiter (hail listen), {backend} backend: 1 sessions asleep" in proc.stdout
    assert proc.stdout.count("% of a core per session") == 2, proc.stdout


def test_at_session_start_it_records_the_model_only_that_payload_names(
    world: World, waiters: Waiters
) -> None:
    """docs/gauge.md "The agent record": Claude Code names its model at SessionStart alone."""
    client = waiters.client()
    start = (
        '{"session_id":"s-1","transcript_path":"/t/s-1.jsonl","hook_event_name":"SessionStart",'
        '"source":"startup","model":"claude-sonnet-4-5[1m]"}'
    )
    waiter = waiters.start(client.pid, start, env={"TMUX_PANE": "%2", "HAIL_SOCKET": "/t/sock"})
    assert wait_until(lambda: waiters.listening(client.pid, waiter.pid), 10)
    text = (world.state / "presence" / "agent-s-1").read_text()
    assert "model: claude-sonnet-4-5[1m]\n" in text and "file: /t/s-1.jsonl\n" in text
    assert "pane: %2\n" in text and "task: \n" in text
    stop = waiters.start(client.pid, STOP.replace('"s-1"', '"s-2"'))
    assert wait_until(lambda: waiters.listening(client.pid, stop.pid), 10)
    assert not (world.state / "presence" / "agent-s-2").exists(), "a Stop records nothing"


#: A stand-in Claude Code that starts `n` waiters at once as its own children (as its hooks are),
#: prints their pids and sleeps until it is killed.
RACING_CLIENT = """\
import json, os, subprocess, sys, time
argv, n, payload = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()
env = dict(os.environ, CLAUDE_PID=str(os.getpid()))
kids = [
    subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
    for _ in range(n)
]
for kid in kids:
    kid.stdin.write(payload)
    kid.stdin.close()
print(" ".join(str(kid.pid) for kid in kids), flush=True)
time.sleep(120)
"""


def test_ten_waiters_started_at_once_leave_one_and_none_once_their_client_dies(
    world: World, waiters: Waiters
) -> None:
    """Ten waiters of one client racing for its record: one listens, the rest end; and none is
    left a few looks after the client was killed."""
    client = subprocess.Popen(
        [sys.executable, "-c", RACING_CLIENT, json.dumps([hail_bin(), "listen", "--format",
         "claude"]), "10", START],
        cwd=world.root / "worker",
        env={**world.env, **INTERACTIVE},
        stdout=subprocess.PIPE,
    )  # fmt: skip
    waiters.procs.append(client)
    assert client.stdout is not None
    pids = [int(p) for p in client.stdout.readline().split()]
    assert len(pids) == 10

    def listening() -> list[int]:
        return [p for p in pids if alive(p)]

    assert wait_until(lambda: len(listening()) == 1, 5 + 3 * policy.WAITER_CHECK_SECONDS)
    (left,) = listening()
    assert waiters.listening(client.pid, left)
    time.sleep(2 * policy.WAITER_CHECK_SECONDS)
    assert listening() == [left], "it stays the one"

    client.kill()
    client.wait()
    assert wait_until(lambda: not listening(), 1 + 2 * policy.WAITER_CHECK_SECONDS), listening()
