"""The process backends (docs/transport.md "Processes") on live processes: `/proc`, and the
portable `ps`/`lsof` one forced on Linux. Each answers the same questions the same way; a start
identity reads the same for as long as its process runs and never for another process, a zombie
or a process that ended."""

from __future__ import annotations

import ast
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hail.process import choose
from hail.process.base import Processes
from hail.process.procfs import ProcFs
from hail.process.ps import LOOK_SECONDS, Ps, epoch_of
from tests.support.procs import wait_until

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="compares with /proc")

BACKENDS = [ProcFs, Ps]


@pytest.fixture(params=BACKENDS, ids=lambda b: b.name)
def procs(request: pytest.FixtureRequest) -> Processes:
    backend: type[Processes] = request.param
    return backend()


@pytest.fixture
def sleeper(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        ["sleep", "60"], cwd=tmp_path, env={"PATH": os.defpath, "HAIL_MARK": "a b c"}
    )
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_the_backend_is_chosen_by_capability_and_can_be_forced() -> None:
    assert isinstance(choose.backend({}), ProcFs), "this system has a readable /proc"
    assert isinstance(choose.backend({choose.BACKEND_ENV: "portable"}), Ps)
    assert isinstance(choose.backend({choose.BACKEND_ENV: "proc"}), ProcFs)


def test_a_start_identity_reads_the_same_while_the_process_runs(
    procs: Processes, sleeper: subprocess.Popen[bytes]
) -> None:
    start = procs.start(sleeper.pid)
    assert start
    time.sleep(1.1)  # past a second boundary: the portable identity is a second
    assert procs.start(sleeper.pid) == start
    assert procs.is_running(sleeper.pid, start)
    assert not procs.is_running(sleeper.pid, start + "0"), "another process with this pid"
    other = ProcFs() if isinstance(procs, Ps) else Ps()
    assert not procs.is_running(sleeper.pid, other.start(sleeper.pid)), "the other backend's"


def test_a_zombie_and_an_ended_process_have_no_start(procs: Processes) -> None:
    """Each reading by a backend of its own, as each hail command has (the portable one answers
    from one look for LOOK_SECONDS)."""
    fresh = type(procs)
    proc = subprocess.Popen(["sleep", "60"])
    start = fresh().start(proc.pid)
    proc.kill()  # not reaped yet: a zombie under this pid
    assert wait_until(lambda: _zombie(proc.pid), 5)
    assert fresh().start(proc.pid) == ""
    assert not fresh().is_running(proc.pid, start)
    proc.wait()
    assert fresh().start(proc.pid) == ""
    assert not fresh().is_running(proc.pid, start)


def test_the_portable_backend_answers_a_burst_from_one_look(
    sleeper: subprocess.Popen[bytes],
) -> None:
    """Within LOOK_SECONDS one `ps` serves every question about a live pid; a pid that ended is
    gone at once (`kill 0`, no look), and one the look does not hold is looked at afresh."""
    procs = Ps()
    start = procs.start(sleeper.pid)
    looked = procs._at
    assert procs.parent(sleeper.pid) == os.getpid()
    assert procs.args(sleeper.pid) == ["sleep", "60"]
    assert procs._at == looked, "the same look served the burst"
    late = subprocess.Popen(["sleep", "60"])
    try:
        assert procs.start(late.pid), "a process started since the look is looked at afresh"
    finally:
        late.kill()
        late.wait()
    sleeper.kill()
    sleeper.wait()
    assert procs.start(sleeper.pid) == "", "an ended process is gone at once"
    assert not procs.is_running(sleeper.pid, start)
    time.sleep(LOOK_SECONDS + 0.05)
    assert procs.start(sleeper.pid) == ""


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def test_the_facts_of_a_process(
    procs: Processes, sleeper: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    pid = sleeper.pid
    assert procs.parent(pid) == os.getpid()
    assert procs.args(pid) == ["sleep", "60"]
    assert procs.comm(pid) == "sleep"
    assert procs.cwd(pid) == str(tmp_path)
    assert procs.executable(pid) == os.path.realpath(shutil.which("sleep") or "")
    env = procs.environment(pid)
    assert env is not None and env["HAIL_MARK"] == "a b c" and env["PATH"] == os.defpath
    started = procs.started_at(pid)
    assert started is not None and abs(started - time.time()) < 5
    assert procs.descends_from(pid, os.getpid())
    assert not procs.descends_from(os.getpid(), pid)


def test_a_replaced_executable_says_so(procs: Processes, tmp_path: Path) -> None:
    copy = tmp_path / "codex"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", copy)
    proc = subprocess.Popen([str(copy), "60"])
    try:
        assert wait_until(lambda: ProcFs().comm(proc.pid) == "codex", 5)
        assert procs.executable(proc.pid) == str(copy)
        copy.unlink()
        copy.write_text("#!/bin/sh\n")
        assert (procs.executable(proc.pid) or "").endswith(" (deleted)")
    finally:
        proc.kill()
        proc.wait()


def test_the_agent_under_a_pane_and_a_waiter_of_a_client(procs: Processes, tmp_path: Path) -> None:
    """A stand-in client (a shell) whose child is a `…/hail listen`: it is the client's waiter;
    the same program under another process, or a `sleep`, is not."""
    hail = tmp_path / "hail"
    hail.write_text("#!/bin/sh\nsleep 60\n")
    hail.chmod(0o755)
    codex = tmp_path / "codex"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", codex)
    client = subprocess.Popen(["sh", "-c", f"'{hail}' listen --format claude; '{codex}' 60"])
    stray = subprocess.Popen([str(hail), "listen", "--format", "claude"])
    try:
        tree = ProcFs()
        assert wait_until(lambda: bool(tree.children().get(client.pid)), 5)
        waiter = tree.children()[client.pid][0]
        assert wait_until(lambda: tree.args(waiter)[1:2] == [str(hail)], 5)
        assert procs.is_waiter_of(waiter, client.pid)
        assert not procs.is_waiter_of(stray.pid, client.pid), "not under that client"
        assert not procs.is_waiter_of(client.pid, client.pid)
        assert procs.agent_pid(os.getpid(), "sh") == client.pid
        assert procs.agent_pid(client.pid, "codex") is None
    finally:
        for p in (client, stray):
            p.kill()
            p.wait()


def test_an_argument_that_holds_hail_listen_passes_for_a_waiter_only_under_its_client(
    tmp_path: Path,
) -> None:
    """`ps` joins a process's arguments with spaces, so one argument `…/hail listen --format claude`
    reads as a waiter's words on the portable backend (on `/proc` it stays one word). The check's
    other half does not read the arguments: the process must descend from the recorded Claude Code
    process, its parent chain read as numbers. So the split can make only that session's own
    processes (its hooks, its model's commands, which it can signal itself) pass, never another."""
    phrase = f"{tmp_path}/hail listen --format claude"
    shell = ["sh", "-c", "sleep 60; :", phrase]  # one argument holding the waiter's words
    # Each in a process group of its own, ended whole: the shells' sleeps too.
    client = subprocess.Popen(
        ["sh", "-c", f"{' '.join(repr(a) for a in shell)}; :"], start_new_session=True
    )
    stray = subprocess.Popen(shell, start_new_session=True)
    try:
        tree = ProcFs()
        assert wait_until(lambda: bool(tree.children().get(client.pid)), 5)
        under = tree.children()[client.pid][0]
        assert wait_until(lambda: tree.args(under)[-1:] == [phrase], 5)
        assert wait_until(lambda: tree.args(stray.pid)[-1:] == [phrase], 5)
        for procs in (ProcFs(), Ps()):
            assert not procs.is_waiter_of(stray.pid, client.pid), procs.name
        assert not ProcFs().is_waiter_of(under, client.pid), "one word on /proc"
        assert Ps().is_waiter_of(under, client.pid), "the split, under the client only"
    finally:
        for p in (client, stray):
            with contextlib.suppress(OSError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def test_only_proc_says_this_processs_start_without_a_subprocess() -> None:
    assert ProcFs().own_start() == int(ProcFs().start(os.getpid()))
    assert Ps().own_start() is None


def test_lstart_reads_as_utc_seconds() -> None:
    assert epoch_of("Tue Dec  1 19:52:22 2026") == 1796154742
    assert epoch_of("Thu Jan  1 00:00:00 1970") == 0
    assert epoch_of("Sat Feb 29 12:00:00 2024") == 1709208000
    assert epoch_of("not a time at all") is None


def test_the_portable_backend_runs_ps_with_a_fixed_environment() -> None:
    """Its reading does not depend on the caller's time zone or locale."""
    code = "from hail.process.ps import Ps; import os; print(Ps().start(os.getppid()))"
    out = {
        tz: subprocess.run(
            [sys.executable, "-c", code], env={**os.environ, "TZ": tz}, capture_output=True
        ).stdout
        for tz in ("UTC0", "America/New_York", "Asia/Kolkata")
    }
    assert len(set(out.values())) == 1 and out["UTC0"].startswith(b"ps:"), out


def test_no_module_but_the_proc_backend_names_proc() -> None:
    """Every process fact goes through the backends: no other module opens /proc (its docstrings
    and comments may say the word)."""
    src = Path(__file__).resolve().parents[2] / "src" / "hail"
    naming: list[str] = []
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        }
        naming += [
            f"{path.relative_to(src)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and node.value.startswith("/proc")
        ]
    assert naming and all(n.startswith("process/procfs.py:") for n in naming), naming


def test_every_process_of_an_agent_is_listed_by_its_name(procs: Processes, tmp_path: Path) -> None:
    codex = tmp_path / "codex"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", codex)
    runs = [subprocess.Popen([str(codex), "60"]) for _ in range(2)]
    try:
        assert wait_until(lambda: {r.pid for r in runs} <= set(procs.pids_of("codex")), 5)
        assert os.getpid() not in procs.pids_of("codex")
    finally:
        for r in runs:
            r.kill()
            r.wait()
    assert not {r.pid for r in runs} & set(procs.pids_of("codex"))
