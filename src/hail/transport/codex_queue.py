"""Codex's queue for the thread of the TUI in a pane [docs/transport.md "Routes"]: through Codex's
shared daemon, asked directly (`transport/codex_daemon.py`), or without the daemon `codex queue
--thread <id> --message <envelope>`.

The queued text reaches the TUI as a prompt of its own (UserPromptSubmit carries it verbatim), so
the envelope is queued exactly as it would be typed and the prompt hook frames the body under it.

Only for a thread whose TUI is alive in the pane: with Codex's shared daemon, a message queued to
a thread whose TUI has exited is run by the daemon with nobody watching. Without the daemon, the
hook that recorded the thread was the TUI's own child, so its record names that TUI; under the
daemon no hook names its TUI, so the thread counts as the pane's when the pane's TUI started
before the thread was created (its id is a UUIDv7, which carries that time).

A send runs outside Codex's sandbox, and the model in it may write its workspace, so the queue
runs with least privilege [docs/transport.md "What the queue runs"]: only the TUI's
own native binary, known by what it is (a native executable named `codex`, the file the TUI runs
now, outside the workspace and temporary directories: never an interpreter, a wrapper script or a
replaced file); with HOME, CODEX_HOME and a PATH of system directories only; from `/`. If no such
binary can be named, the send types instead.
"""

from __future__ import annotations

import os

from hail import policy
from hail.harnesses.codex import HARNESS as CODEX
from hail.process.base import CHAIN_MAX, DELETED
from hail.store.presence import queue as presence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.process.base import Processes
    from hail.store.presence.queue import Thread
    from hail.transport.panes import Pane

#: How much later than the TUI's start (to the clock tick, or the second where `ps` says it) a
#: thread it created may say it was created: the TUI creates its thread as it starts.
START_SLACK_SECONDS = 1.0
#: The one program the queue runs: Codex's native binary (the npm package's `bin/codex.js` is a
#: node script that execs `vendor/<target>/bin/codex`, which the TUI process then is).
NATIVE_NAME = CODEX.name
#: Native executables: ELF, and Mach-O (32/64-bit, either byte order, universal).
NATIVE_MAGIC = (
    b"\x7fELF",
    b"\xfe\xed\xfa\xce",
    b"\xfe\xed\xfa\xcf",
    b"\xce\xfa\xed\xfe",
    b"\xcf\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
)
#: The word of a Codex daemon's command line (`codex app-server --listen unix:// …`).
APP_SERVER = "app-server"
#: What `codex queue` is run with: no directory a workspace chose is on its PATH.
SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"
#: The variables `codex queue` is given from the TUI's environment: where its state is.
KEPT_VARIABLES = ("HOME", "CODEX_HOME")
#: Directories any sandboxed model may write, beside its workspace.
TEMP_ROOTS = ("/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/dev/shm")


def live_thread(ctx: Ctx, pane: Pane, mailbox: str) -> tuple[Thread, int] | None:
    """The mailbox's newest recorded thread and the pid of its TUI, when that TUI runs in the pane."""
    procs = ctx.procs()
    tui = procs.agent_pid(pane.pid, CODEX.name)
    if tui is None:
        return None
    found = presence.threads(ctx.store, mailbox)
    if not found:
        return None
    thread = found[0]  # a seat holds one Codex TUI: older threads of the mailbox are dropped
    if not thread.daemon:
        if thread.tui == tui and procs.is_running(thread.tui, thread.tui_start):
            return thread, tui
        return None
    created = presence.thread_created(thread.id)
    started = procs.started_at(tui)
    if created is None or started is None or started > created + START_SLACK_SECONDS:
        return None  # a thread of an earlier TUI, or one this TUI resumed: not provably its own
    return thread, tui


def tui_by_processes(
    procs: Processes, thread: Thread, home: str | None, root: str | None
) -> tuple[int, str, str] | None:
    """The TUI of a thread under the daemon, found with no tmux call: the one Codex process (not
    the daemon's own) of the thread's seat (at its bound `root`) that started before the thread
    was created, when it is the agent of its tmux pane (its TMUX_PANE, below a child of the tmux
    server its TMUX names) as a survey would find it; (its pid, its pane, its server's socket), or
    None (then the send surveys tmux)."""
    created = presence.thread_created(thread.id)
    if created is None:
        return None
    found = [
        pid
        for pid in procs.pids_of(CODEX.name)
        if _could_be_the_tui(procs, pid, created, thread.mailbox, (home, root))
    ]
    return _in_its_pane(procs, found[0]) if len(found) == 1 else None


def _could_be_the_tui(
    procs: Processes, pid: int, created: float, mailbox: str, dirs: tuple[str | None, str | None]
) -> bool:
    """A Codex TUI, older than the thread, working in the thread's seat (`dirs`: HOME, where
    seats end, and the seat's bound root)."""
    home, root = dirs
    started = procs.started_at(pid)
    if started is None or started > created + START_SLACK_SECONDS:
        return False
    if APP_SERVER in procs.args(pid):
        return False  # the daemon's own processes
    from hail.seat import seat_at

    seat = seat_at(procs.cwd(pid) or "", home)  # no cwd read: no seat
    if seat is None or seat.name != mailbox:
        return False
    return root is None or os.path.realpath(seat.root) == os.path.realpath(root)


def _in_its_pane(procs: Processes, pid: int) -> tuple[int, str, str] | None:
    """The Codex process `pid` with its pane and server, when it is the agent of that pane."""
    env = procs.environment(pid) or {}
    pane, (socket, _, rest) = env.get("TMUX_PANE", ""), env.get("TMUX", "").partition(",")
    server = rest.split(",", 1)[0]
    if not pane or not socket or not (server.isascii() and server.isdigit()):
        return None
    root = pid  # the pane's own process: the one the tmux server started
    for _ in range(CHAIN_MAX):
        parent = procs.parent(root)
        if parent == int(server):
            break
        if parent <= 1:
            return None
        root = parent
    else:
        return None
    if procs.agent_pid(root, CODEX.name) != pid:
        return None  # another Codex (a `codex exec` of a tool, say) under the pane's own agent
    return pid, pane, socket


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots if r)


def _is_native(path: str) -> bool:
    """A regular file that starts as a native executable does (not `#!`: no script)."""
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return False
    try:
        import stat

        return stat.S_ISREG(os.fstat(fd).st_mode) and os.read(fd, 4) in NATIVE_MAGIC
    except OSError:
        return False
    finally:
        os.close(fd)


def native_binary(procs: Processes, tui: int, env: dict[str, str]) -> tuple[str, str]:
    """The TUI's own native Codex binary, and "" (or "" and why there is none)."""
    exe = procs.executable(tui)
    if exe is None:
        return "", f"cannot read the program of Codex's process {tui}"
    if exe.endswith(DELETED) or not os.path.isabs(exe):
        return "", f"the program of Codex's process {tui} was replaced since it started"
    real = os.path.realpath(exe)
    if os.path.basename(real) != NATIVE_NAME or not _is_native(real):
        return "", f"Codex's process {tui} runs {os.path.basename(real)}, not Codex's own binary"
    writable = [os.path.realpath(d) for d in (procs.cwd(tui), env.get("TMPDIR")) if d]
    if _inside(real, writable + [os.path.realpath(r) for r in TEMP_ROOTS]):
        return "", f"Codex's binary {real} lies in a directory its model may write"
    return real, ""


def queue_env(env: dict[str, str]) -> dict[str, str]:
    """The environment `codex queue` runs with: the TUI's HOME and CODEX_HOME, a system PATH."""
    kept = {k: env[k] for k in KEPT_VARIABLES if env.get(k)}
    return kept | {"PATH": SYSTEM_PATH}


def queue(ctx: Ctx, thread: Thread, tui: int, text: str, client_id: str) -> str:
    """Queue `text` for the thread: through Codex's daemon when it runs one (nothing is run),
    else with the TUI's own binary, least privileged; "" once queued, else why not (the caller
    then types instead). `client_id` names the queued prompt to Codex."""
    procs = ctx.procs()
    start = procs.start(tui)
    env = procs.environment(tui)
    if env is None or not env.get("HOME"):
        return f"cannot read the environment of Codex's process {tui}"
    if thread.daemon:
        from hail.transport import codex_daemon

        address = codex_daemon.address(codex_daemon.socket_path(env))
        if address is not None:
            if not procs.is_running(tui, start):
                return f"Codex's process {tui} ended"
            try:
                return codex_daemon.queue_add(
                    address, thread.id, text, client_id, policy.CODEX_QUEUE_TIMEOUT
                )
            except codex_daemon.Unreachable:
                pass  # a socket its daemon left: `codex queue` knows what to do then
    exe, why = native_binary(procs, tui, env)
    if not exe:
        return why
    if not procs.is_running(tui, start):
        return f"Codex's process {tui} ended"  # never queued to a TUI that is gone
    import subprocess

    try:
        proc = subprocess.run(
            [exe, "queue", "--thread", thread.id, "--message", text],
            env=queue_env(env),
            cwd="/",
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=policy.CODEX_QUEUE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"codex queue failed: {e}"
    if proc.returncode != 0:
        said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        first = next((line for line in said if line.startswith("Error")), said[0] if said else "")
        return f"codex queue exited {proc.returncode}: {first[:200]}"
    return ""
