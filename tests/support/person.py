"""hail run as a person runs it: in a session of its own with a terminal (a pseudo-terminal as
its controlling terminal), and outside the test's process tree (started by `sh`, which a second
fork leaves to init), so that neither the terminal check nor the walk up the parent chain of
`hail --as person` sees pytest or whatever agent runs the tests [docs/seats.md "Trust boundary"].
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from tests.support.entry import hail_bin

# Run by a fresh interpreter. Its child forks and ends, so init adopts the grandchild, which then
# starts a session of its own with the pty as its controlling terminal and runs `sh`, which runs
# hail with its output and status in files. The interpreter keeps the pty's master open (a
# terminal whose master closes hangs up its session) until the status is written.
_LAUNCH = """
import fcntl, os, pty, select, sys, termios, time
out, err, rc, stdin_path, *argv = sys.argv[1:]
master, slave = pty.openpty()
child = os.fork()
if child == 0:
    parent = os.getpid()
    if os.fork() == 0:
        while os.getppid() == parent:  # until init (or a subreaper) adopts it
            time.sleep(0.005)
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        os.dup2(os.open(stdin_path, os.O_RDONLY), 0)
        os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT, 0o600), 1)
        os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT, 0o600), 2)
        os.execvp("sh", ["sh", "-c", '"$@"; echo $? > "$0"', rc, *argv])
    os._exit(0)
os.waitpid(child, 0)
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    if os.path.exists(rc) and open(rc).read().strip():
        break
    if select.select([master], [], [], 0.02)[0]:
        try:
            os.read(master, 65536)
        except OSError:
            pass
"""


def run_as_person(
    *args: str,
    cwd: Path,
    env: Mapping[str, str],
    stdin: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """`hail <args>` at a terminal of its own, outside this process's tree; its status and output."""
    return launch_as_person([hail_bin(), *args], cwd=cwd, env=env, stdin=stdin, timeout=timeout)


def launch_as_person(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Any program as the person runs it (`hail watch`, which runs `hail --as person`), at a
    terminal of its own, outside this process's tree; its status and output."""
    with tempfile.TemporaryDirectory(prefix="person") as tmp:
        out, err, rc, given = (Path(tmp) / n for n in ("out", "err", "rc", "stdin"))
        given.write_text(stdin or "")
        subprocess.run(
            [sys.executable, "-c", _LAUNCH, *map(str, (out, err, rc, given)), *argv],
            cwd=cwd,
            env=dict(env),
            check=True,
            timeout=timeout,
        )
        assert rc.exists(), f"no status from {argv}: {err.read_text(errors='replace')}"
        return subprocess.CompletedProcess(
            argv,
            int(rc.read_text()),
            out.read_text(errors="replace"),
            err.read_text(errors="replace"),
        )


def without_agents(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with no agent's marker variable: what a person's shell has."""
    from hail.harnesses import registry

    markers = {m for h in registry.every() for m in h.markers}
    return {k: v for k, v in env.items() if k not in markers}
