#!/usr/bin/env python3
"""Hook-path timings of the installed `hail` as ratios to a bare interpreter start [docs/hooks.md
"Hook-path performance"].

`hail deliver` runs on every prompt and after every tool call of every agent on the machine, and
`hail brief --hook` at every session start, so their cost is measured against `python -c pass` of
the same interpreter, in the same run and the same environment, as whole processes: each child is
started with `posix_spawn` and reaped with `wait4`, which gives its wall time and its own CPU time.
Baseline and cases run interleaved in shuffled rounds, so machine noise hits both alike.

Two states are built in the layout of docs/files.md "Layout" by writing the files directly: a small
one (a handful of seats) and a large one (1 000 seats, 100 000 read messages, 1 000 holds and 1 000
pending records), the latter cached in the temp directory under a layout version. Every process gets
a scratch HOME and XDG_STATE_HOME, no TMUX or TMUX_PANE, `HAIL_SOCKET` pointing nowhere, and a seat
directory as its working directory.

Modes:
  (default)  small state, every case, a table of medians and ratios against the targets;
  --check    the gate of `just check`: the hook cases on the small state, mean CPU time over
             at least 30 runs each, `ok|SLOW  <verb>  <ratio>x`, exit 1 past BENCH_FACTOR (2.0);
  --full     small and large state, more runs, plus `seats` and `doctor` with 1 000 seats;
  --imports  the slowest imports of each case (`-X importtime`), largest first;
  --instructions  the hook cases' instructions as ratios to the baseline's, counted by
             valgrind's callgrind: the figure a busy machine does not move;
  --validate every case once, untimed, checking that it does what it is meant to;
  --waiter   Claude Code's waiter (`hail listen`) asleep: CPU and memory per waiting session over
             --seconds (30) for --sessions (3) stand-in sessions, wakeups per second, and the time
             from a send's signal to its exit 2, on each process backend (--backend proc,
             portable or both: HAIL_PROCESS_BACKEND); exit 1 past 0.1 % of a core or 15 MB;
             `--hail .venv-macos/bin/hail` measures it under the macOS-shaped interpreter;
  --routes   the send's own time on each route (woken, busy, typed, --no-wake) to a stand-in Claude
             Code on a scratch tmux server (docs/transport.md "Routes");
  --remote   a warm and a cold send to a seat on another machine over localhost ssh, median of
             --runs (5): scripts/bench_remote.py (docs/seats.md "Other machines");
  --gauge    the context gauges of 30 agents whose files are 50 MB each, read in one process,
             against reading none, median of --runs (20): scripts/bench_gauge.py
             (docs/performance.md "The context gauge").
  --seats    `hail seats`, `hail watch --once` and one watch refresh with 30 agent panes whose
             files are 50 MB each, on a scratch tmux server; with --before REV also hail at that
             revision: scripts/bench_seats.py (docs/performance.md "The context gauge").
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

#: Bump when the generated layout changes, so a cached large state is rebuilt.
LAYOUT_VERSION = 1
#: A cached large state older than this is rebuilt: its pending record must stay under 7 days old.
CACHE_MAX_AGE = 24 * 3600.0

CHECK_RUNS = 30
DEFAULT_RUNS = 40
FULL_RUNS = 100
#: `seats` and `doctor` on 1 000 seats are slow by nature; a few runs show whether they stay under 1 s.
SLOW_CASE_RUNS = 10
WARMUP_RUNS = 3
DEFAULT_BENCH_FACTOR = 2.0
#: The verbs agents run most besides the hooks, and a send that needs no tmux.
LEAN_TARGET = 1.5
#: How much a case may grow from the small state to the large one.
SCALE_TARGET = 1.1
SEATS_DOCTOR_LIMIT_MS = 1000.0

#: Variables that would reach the user's tmux, configs or identity, or change hail's behaviour.
SCRUBBED = (
    "TMUX",
    "TMUX_PANE",
    "HAIL_SOCKET",
    "HAIL_SEAT",
    "HAIL_ENVELOPE_MAX",
    "HAIL_AGENT_COMMANDS",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "CODEX_THREAD_ID",
    "CODEX_SESSION_ID",
    "PYTHONIMPORTTIME",
    # an installed package has its bytecode cached; without this a warm-up run writes it
    "PYTHONDONTWRITEBYTECODE",
)

# --- the states -----------------------------------------------------------------------------------

BENCH = "bench"  # reads: empty deliver, brief --hook, sent
INBOX5 = "inbox5"  # holds five unread messages with bodies
PEER = "peer"  # the other end of bench's mail
SENDER = "sender"  # sends the send case
SINK = "sink"  # receives the send case


@dataclass(frozen=True)
class Shape:
    """How much history a state holds besides the seats every case needs."""

    name: str
    other_seats: int  # besides bench, inbox5, peer, sender, sink
    read_messages: int  # in cur/ as <id>.read.md, every one indexed in ids/
    bench_read: int  # of those, in bench's own mailbox (a hook must never list cur/)
    holds: int  # in effect; BENCH_HOLDS of them involve bench, the rest are between others
    pending: int  # one in bench's mailbox (delivered, 10 min old), the rest in other seats'


BENCH_HOLDS = 10
SMALL = Shape("small", other_seats=0, read_messages=20, bench_read=10, holds=BENCH_HOLDS, pending=1)
LARGE = Shape(
    "large", other_seats=995, read_messages=100_000, bench_read=10_000, holds=1000, pending=1000
)

BODY = (
    "The change touches the session store and the token refresh path.\n"
    "Please check that the retry loop cannot spin when the clock jumps back,\n"
    "and that the old cookie format still reads."
)


@dataclass
class World:
    """A state on disk: HOME, XDG_STATE_HOME, the seat directories, and the ids the cases use."""

    root: Path
    shape: Shape
    sent_id: str = ""  # a message bench sent and peer read
    unread_ids: list[str] = field(default_factory=list)  # inbox5's five

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def state_home(self) -> Path:
        return self.root / "state"

    @property
    def hail(self) -> Path:
        return self.state_home / "hail"

    def seat_dir(self, seat: str) -> Path:
        return self.root / "ws" / seat

    def mailbox(self, seat: str) -> Path:
        return self.hail / "seats" / seat

    def seat_names(self) -> list[str]:
        return [BENCH, INBOX5, PEER, SENDER, SINK] + [
            f"s{i:04d}" for i in range(self.shape.other_seats)
        ]

    def reset(self) -> None:
        """Undo what the cases leave behind, also after an interrupted run of a cached state."""
        for msg_id in self.unread_ids:
            give_back(self.mailbox(INBOX5), msg_id)
        for directory in (self.mailbox(SINK) / "new", self.mailbox(SENDER) / "pending"):
            for name in os.listdir(directory):
                forget(self, name.removesuffix(".md"))
        log = self.hail / "hook-errors.log"
        if log.exists():
            raise BenchError(f"hail logged hook errors: {log.read_text(errors='replace')}")


class BenchError(Exception):
    """The state or a case does not behave as the benchmark assumes."""


def give_back(box: Path, msg_id: str) -> None:
    """A message a delivery claimed goes back to new/, so the next run finds it unread."""
    with contextlib.suppress(FileNotFoundError):
        os.rename(box / "cur" / f"{msg_id}.injected.md", box / "new" / f"{msg_id}.md")


def forget(world: World, msg_id: str) -> None:
    """Remove every trace of one send to SINK: its message, its index link, its pending record."""
    for path in (
        world.mailbox(SINK) / "new" / f"{msg_id}.md",
        world.hail / "ids" / msg_id,
        world.mailbox(SENDER) / "pending" / msg_id,
    ):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class Writer:
    """Writes docs/files.md "Layout" directly: 0700 directories, 0600 files, no fsync."""

    def __init__(self, world: World, now: float) -> None:
        self.world = world
        self.now = now
        self.serial = 0
        self.made: set[Path] = set()

    def new_id(self) -> str:
        """Distinct per-second stamps, oldest first, all of them in the past."""
        self.serial += 1
        t = self.now - 300_000 + self.serial
        return (
            f"{time.strftime('%m%dT%H%M%S', time.gmtime(t))}-{(self.serial * 40503) & 0xFFFF:04x}"
        )

    def dirs(self, path: Path) -> None:
        if path in self.made:
            return
        if not path.exists():
            self.dirs(path.parent)
            os.mkdir(path, 0o700)
        self.made.add(path)

    def file(self, path: Path, text: str) -> None:
        self.dirs(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)

    def seat(self, name: str) -> None:
        """A workspace with a `.hail-seat` file, and its binding `seats/<seat>/root`."""
        ws = self.world.seat_dir(name)
        self.dirs(ws)
        self.file(ws / ".hail-seat", f"{name}\n")
        self.file(self.world.mailbox(name) / "root", f"{ws}\n")

    def message(self, sender: str, to: str, where: str, body: str = BODY) -> str:
        """A message from `sender` to `to`, filed as `new` (unread) or `read` (claimed by inbox)."""
        msg_id = self.new_id()
        headline = f"review the session store change {self.serial}"
        text = (
            f"from: {sender}\nreply: {sender}\nkind: ask\nid: {msg_id}\n"
            f"time: {iso(self.now - 3600)}\nask: {headline}\n\n{body}\n"
        )
        box = self.world.mailbox(to)
        path = box / "new" / f"{msg_id}.md" if where == "new" else box / "cur" / f"{msg_id}.read.md"
        self.file(path, text)
        self.dirs(self.world.hail / "ids")
        os.symlink(to, self.world.hail / "ids" / msg_id)
        return msg_id

    def hold(self, issuer: str, to: str) -> None:
        msg_id = self.new_id()
        self.file(
            self.world.hail / "holds" / msg_id,
            f"id: {msg_id}\nkind: hold\nissuer: {issuer}\nto: {to}\nscope: src/auth\n"
            f"time: {iso(self.now - 3600)}\nexpires: {iso(self.now + 30 * 86400)}\n"
            f"headline: do not touch the auth module while it is redesigned\n",
        )

    def pending(self, owner: str, msg_id: str, to: str) -> None:
        self.file(
            self.world.mailbox(owner) / "pending" / msg_id,
            f"id: {msg_id}\nkind: ask\nto: {to}\nepoch: {int(self.now - 600)}\n"
            f"headline: review the session store change\n",
        )


def build(world: World) -> None:
    """Write the whole state of `world.shape`; the caller removes a half-written one."""
    shape = world.shape
    w = Writer(world, time.time())
    names = world.seat_names()
    others = names[5:]
    for name in names:
        w.seat(name)
    for name in (BENCH, INBOX5, PEER, SENDER, SINK):
        for sub in ("new", "cur", "tmp", "pending"):
            w.dirs(world.mailbox(name) / sub)
    # bench's read history, then the sent id, then everyone else's history
    for _ in range(shape.bench_read):
        w.message(PEER, BENCH, "read")
    world.sent_id = w.message(BENCH, PEER, "read")
    readers = others or [PEER, SINK]
    for i in range(shape.read_messages - shape.bench_read - 1):
        to = readers[i % len(readers)]
        w.message(readers[(i + 1) % len(readers)], to, "read")
    # five unread messages with bodies, oldest first
    world.unread_ids = [w.message(PEER, INBOX5, "new") for _ in range(5)]
    # holds: some involve bench (shown in full), the rest are between other seats (counted)
    for i in range(shape.holds):
        if i < BENCH_HOLDS:
            w.hold(PEER, BENCH)
        else:
            w.hold(others[i % len(others)], others[(i + 1) % len(others)])
    # bench's one pending send is still unread by peer, ten minutes old: listed, never deleted
    late = w.message(BENCH, PEER, "new")
    w.pending(BENCH, late, PEER)
    for i in range(shape.pending - 1):
        owner = others[i % len(others)]
        w.pending(owner, w.new_id(), others[(i + 1) % len(others)])
    os.mkdir(world.home, 0o700)
    meta = f"{LAYOUT_VERSION}\n{w.now}\n{world.sent_id}\n{' '.join(world.unread_ids)}\n"
    (world.root / "complete").write_text(meta)


def small_world(scratch: Path) -> World:
    world = World(scratch / "small", SMALL)
    world.root.mkdir()
    build(world)
    return world


def large_world(cache_root: Path | None = None, shape: Shape = LARGE) -> World:
    """The large state, reused from the temp directory while its layout version and age fit."""
    base = cache_root or Path(tempfile.gettempdir())
    root = base / f"hail-bench-{shape.name}-v{LAYOUT_VERSION}-{os.getuid()}"
    world = World(root, shape)
    marker = root / "complete"
    if marker.exists():
        lines = marker.read_text().split("\n")
        if lines[0] == str(LAYOUT_VERSION) and time.time() - float(lines[1]) < CACHE_MAX_AGE:
            world.sent_id = lines[2]
            world.unread_ids = lines[3].split()
            world.reset()
            return world
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(mode=0o700)
    started = time.monotonic()
    print(f"building the {shape.name} state in {root} …", file=sys.stderr, flush=True)
    try:
        build(world)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    print(f"  built in {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
    return world


# --- the cases -------------------------------------------------------------------------------------

# What Claude Code sends on stdin [docs/real-clients.md "Claude Code hooks"].
_COMMON = (
    '"session_id":"6f1c2f7e-9a53-4d0e-8d6b-2b1f3c4d5e6f",'
    '"transcript_path":"/home/u/.claude/projects/-home-u-src-app/6f1c2f7e-9a53-4d0e-8d6b-2b1f3c4d5e6f.jsonl",'
)
QWEN_SESSION = "90698993-fa70-4177-a676-3f069a807528"
# What Qwen Code sends on stdin instead [docs/hooks.md "Qwen Code"].
_QWEN_COMMON = (
    f'"session_id":"{QWEN_SESSION}",'
    f'"transcript_path":"/home/u/.qwen/projects/-home-u-src-app/chats/{QWEN_SESSION}.jsonl",'
)
PROMPT_PAYLOAD = (
    "{" + _COMMON + '"cwd":"{cwd}","hook_event_name":"UserPromptSubmit",'
    '"prompt":"run the tests and fix what fails","prompt_id":"p-0193","permission_mode":"default"}'
)
TOOL_PAYLOAD = (
    "{" + _COMMON + '"cwd":"{cwd}","hook_event_name":"PostToolUse","tool_name":"Bash",'
    '"tool_input":{"command":"pytest -q tests/unit","description":"Run the unit tests"},'
    '"tool_response":{"stdout":"' + "." * 600 + '\\n412 passed in 3.81s\\n","stderr":"",'
    '"interrupted":false,"isImage":false,"noOutputExpected":false},'
    '"tool_use_id":"toolu_01AbCdEfGhIjKlMnOpQrStUv","duration_ms":4123,"prompt_id":"p-0193",'
    '"permission_mode":"default","effort":{"level":"high"}}'
)
STOP_PAYLOAD = (
    "{" + _COMMON + '"cwd":"{cwd}","hook_event_name":"Stop","stop_hook_active":false,'
    '"last_assistant_message":"All 412 tests pass.","prompt_id":"p-0193",'
    '"permission_mode":"default","effort":{"level":"high"}}'
)
# What Copilot CLI 1.0.102 sends: camelCase, its seat's directory in `cwd` (its hooks run in the git
# root) [docs/hooks.md "Copilot CLI"].
COPILOT_PROMPT_PAYLOAD = (
    '{"sessionId":"efb0b787-1413-457c-a97a-b13319f537ed","timestamp":1796612285456,'
    '"cwd":"{cwd}","prompt":"run the tests and fix what fails"}'
)
COPILOT_PRE_TOOL_PAYLOAD = (
    '{"sessionId":"efb0b787-1413-457c-a97a-b13319f537ed","timestamp":1796612285748,'
    '"cwd":"{cwd}","toolName":"bash","toolArgs":{"command":"hail sink fyi --re 1207T030000-ab12 '
    '\'GO: the parser change is safe to land\'","description":"Answer the ask"}}'
)
SESSION_PAYLOAD = (
    "{" + _COMMON + '"cwd":"{cwd}","hook_event_name":"SessionStart","source":"startup",'
    '"model":"claude-opus-4-8[1m]"}'
)


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


@dataclass
class Case:
    """One command line run in one seat of one state, with what its output must show."""

    name: str  # as printed: the verb and its options
    world: World | None  # None: the baseline, run in a seat of the small state
    seat: str
    argv: list[str]
    target: float | None  # ratio to the baseline, or None
    check: Callable[[Result], str | None]  # None when the output is as expected, else why not
    payload: str | None = None
    hook: bool = False  # one of the cases `--check` gates
    env: dict[str, str] | None = None  # what the harness adds to its hooks' environment
    after: Callable[[Result], None] | None = None  # undo what the run changed
    limit_ms: float | None = None  # an absolute wall-time bound instead of a ratio
    optional: bool = False  # a failing optional case is reported and left out, not fatal
    max_runs: int | None = None
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @property
    def state(self) -> str:
        return "-" if self.world is None else self.world.shape.name


def expect_code(code: int, *, empty: bool = False) -> Callable[[Result], str | None]:
    def check(r: Result) -> str | None:
        if r.code != code:
            return f"exit {r.code}, expected {code}"
        if empty and (r.stdout or r.stderr):
            return f"expected no output, got {r.stdout!r} {r.stderr!r}"
        return None

    return check


def expect_text(code: int, must: str, count: int = 1) -> Callable[[Result], str | None]:
    def check(r: Result) -> str | None:
        if r.code != code:
            return f"exit {r.code}, expected {code}: {r.stderr.strip()}"
        if r.stdout.count(must) != count:
            return f"expected {count} × {must!r} in stdout, got {r.stdout[:300]!r}"
        return None

    return check


def expect_lines(n: int) -> Callable[[Result], str | None]:
    def check(r: Result) -> str | None:
        if r.code != 0 or len(r.stdout.splitlines()) != n:
            return (
                f"exit {r.code}, {len(r.stdout.splitlines())} lines, expected {n}: {r.stderr[:300]}"
            )
        return None

    return check


def no_traceback(r: Result) -> str | None:
    """`doctor` exits 1 here (HAIL_SOCKET points nowhere), but must finish its report."""
    if r.code not in (0, 1) or "Traceback" in r.stderr or "internal error" in r.stderr:
        return f"exit {r.code}: {r.stderr[-500:]}"
    return None


#: The agent record the prompt payload's session leaves [docs/gauge.md "The agent record"].
AGENT_RECORD = "presence/agent-6f1c2f7e-9a53-4d0e-8d6b-2b1f3c4d5e6f"


def hook_cases(world: World, hail: str) -> list[Case]:
    """The cases `just check` gates, in one state: Claude Code's hooks, Qwen Code's prompt and tool
    hooks, which also keep its session's socket on record (`store/presence/door.py`), and Copilot
    CLI's prompt hook (its seat from the payload's `cwd`) and permission answer."""

    def forget_task(_: Result) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(world.hail / AGENT_RECORD)

    return [
        Case(
            "deliver --format claude",
            world,
            BENCH,
            [hail, "deliver", "--format", "claude"],
            1.3,
            expect_code(0, empty=True),
            payload=PROMPT_PAYLOAD,
            hook=True,
        ),
        Case(
            # Every run a session's first prompt: its agent record read, the others listed, and
            # the record written.
            "deliver --format claude (a new task line)",
            world,
            BENCH,
            [hail, "deliver", "--format", "claude"],
            1.3,
            expect_code(0, empty=True),
            payload=PROMPT_PAYLOAD,
            hook=True,
            after=forget_task,
        ),
        Case(
            "deliver --format claude --event PostToolUse",
            world,
            BENCH,
            [hail, "deliver", "--format", "claude", "--event", "PostToolUse"],
            1.3,
            expect_code(0, empty=True),
            payload=TOOL_PAYLOAD,
            hook=True,
        ),
        Case(
            "deliver --format claude --event Stop",
            world,
            BENCH,
            [hail, "deliver", "--format", "claude", "--event", "Stop"],
            1.3,
            expect_code(0, empty=True),
            payload=STOP_PAYLOAD,
            hook=True,
        ),
        Case(
            "deliver --format copilot",
            world,
            BENCH,
            [hail, "deliver", "--format", "copilot"],
            1.3,
            expect_code(0, empty=True),
            payload=COPILOT_PROMPT_PAYLOAD,
            hook=True,
        ),
        Case(
            "deliver --format copilot --event PreToolUse (a hail command)",
            world,
            BENCH,
            [hail, "deliver", "--format", "copilot", "--event", "PreToolUse"],
            1.3,
            expect_text(0, '"permissionDecision":"allow"'),
            payload=COPILOT_PRE_TOOL_PAYLOAD,
            hook=True,
        ),
        Case(
            "brief --hook",
            world,
            BENCH,
            [hail, "brief", "--hook"],
            1.3,
            expect_text(0, "hail brief for bench"),
            payload=SESSION_PAYLOAD,
            hook=True,
        ),
        Case(
            "sent <id>",
            world,
            BENCH,
            [hail, "sent", world.sent_id],
            1.3,
            expect_text(0, "read "),
            hook=True,
        ),
        *qwen_cases(world, hail),
    ]


def qwen_env() -> dict[str, str]:
    """What Qwen Code hands its hooks: its session's socket (named after the session process,
    which is this process: it spawns hail itself), the child token and the session id."""
    return {
        "QWEN_CODE_MESSAGING_SOCKET": f"/run/user/1000/qwen-socks/{os.getpid()}.sock",
        "QWEN_CODE_MESSAGING_TOKEN": "c0ffee" * 10 + "c0ff",
        "QWEN_CODE_SESSION_ID": QWEN_SESSION,
        "TMUX_PANE": "%7",
    }


def qwen_cases(world: World, hail: str) -> list[Case]:
    """Qwen Code's prompt and tool hooks: Claude Code's payloads under its own transcript path."""
    env = qwen_env()
    return [
        Case(
            f"deliver --format qwen{event}",
            world,
            BENCH,
            [hail, "deliver", "--format", "qwen", *argv],
            1.3,
            expect_code(0, empty=True),
            payload=payload.replace(_COMMON, _QWEN_COMMON),
            hook=True,
            env=env,
        )
        for event, argv, payload in (
            ("", [], PROMPT_PAYLOAD),
            (" --event PostToolUse", ["--event", "PostToolUse"], TOOL_PAYLOAD),
        )
    ]


def all_cases(world: World, hail: str) -> list[Case]:
    """Every case of one state: the hook cases, five unread bodies, a send."""

    def give_back_five(_: Result) -> None:
        for msg_id in world.unread_ids:
            give_back(world.mailbox(INBOX5), msg_id)

    def forget_send(r: Result) -> None:
        for line in r.stdout.splitlines():
            if line.startswith("id="):
                forget(world, line[3:])

    return [
        *hook_cases(world, hail),
        *lean_cases(world, hail),
        Case(
            "deliver --format claude (5 unread)",
            world,
            INBOX5,
            [hail, "deliver", "--format", "claude"],
            1.6,
            expect_text(0, "[/hail:", 5),
            payload=PROMPT_PAYLOAD,
            after=give_back_five,
        ),
        Case(
            f"{SINK} ask (no tmux, exit 5)",
            world,
            SENDER,
            [hail, SINK, "ask", "is the session store change ready to land?"],
            LEAN_TARGET,
            expect_text(5, "id="),
            after=forget_send,
        ),
    ]


def lean_cases(world: World, hail: str) -> list[Case]:
    """The verbs agents run most, apart from the hooks: parsed without click, no tmux loaded."""
    sent = world.sent_id
    return [
        Case("inbox", world, BENCH, [hail, "inbox"], LEAN_TARGET, expect_code(0)),
        Case("show <id>", world, BENCH, [hail, "show", sent], LEAN_TARGET, expect_code(0)),
        Case(
            "await <id> (receipt there)",
            world,
            BENCH,
            [hail, "await", sent, "--timeout", "0"],
            LEAN_TARGET,
            expect_text(0, "read "),
        ),
        Case("whoami", world, BENCH, [hail, "whoami"], LEAN_TARGET, expect_text(0, "seat: ")),
        Case("brief", world, BENCH, [hail, "brief"], LEAN_TARGET, expect_code(0)),
    ]


#: What pip (distlib) writes for a `[project.scripts]` entry; its `import re` runs on every call.
PIP_SCRIPT = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from hail.entry import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""


def entry_cases(world: World, python: str, scratch: Path) -> list[Case]:
    """The empty deliver started other ways, to see what the console script itself costs."""
    pip_script = scratch / "hail-pip"
    pip_script.write_text(PIP_SCRIPT.format(python=python))
    pip_script.chmod(0o755)
    direct = (
        "import sys; from hail.entry import main; "
        "sys.argv[1:] = ['deliver', '--format', 'claude']; sys.exit(main())"
    )
    return [
        Case(
            "deliver --format claude via python -c main()",
            world,
            BENCH,
            [python, "-c", direct],
            None,
            expect_code(0, empty=True),
            payload=PROMPT_PAYLOAD,
            optional=True,
        ),
        Case(
            "deliver --format claude via pip's script (import re)",
            world,
            BENCH,
            [str(pip_script), "deliver", "--format", "claude"],
            None,
            expect_code(0, empty=True),
            payload=PROMPT_PAYLOAD,
            optional=True,
        ),
    ]


def seat_cases(world: World, hail: str) -> list[Case]:
    seats = len(world.seat_names())
    return [
        Case(
            f"seats ({seats} seats)",
            world,
            BENCH,
            [hail, "seats"],
            None,
            expect_lines(seats + 1),
            limit_ms=SEATS_DOCTOR_LIMIT_MS,
            max_runs=SLOW_CASE_RUNS,
            optional=True,
        ),
        Case(
            f"doctor ({seats} seats)",
            world,
            BENCH,
            [hail, "doctor"],
            None,
            no_traceback,
            limit_ms=SEATS_DOCTOR_LIMIT_MS,
            max_runs=SLOW_CASE_RUNS,
            optional=True,
        ),
    ]


# --- running ---------------------------------------------------------------------------------------


class Runner:
    """Starts each case as a whole process and keeps its wall and CPU time."""

    def __init__(self, env: dict[str, str], scratch: Path, fallback_cwd: Path) -> None:
        self.env = env
        self.fallback_cwd = fallback_cwd
        self.out = os.open(scratch / "stdout", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        self.err = os.open(scratch / "stderr", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)

    def close(self) -> None:
        os.close(self.out)
        os.close(self.err)

    def run(self, case: Case, env: dict[str, str] | None = None) -> tuple[Result, float, float]:
        """One run: (result, wall ms, child CPU ms). Output goes to files, so a big one never blocks."""
        for fd in (self.out, self.err):
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
        cwd = self.fallback_cwd if case.world is None else case.world.seat_dir(case.seat)
        os.chdir(cwd)
        stdin_fd = self._stdin(case, cwd)
        actions = [
            (os.POSIX_SPAWN_DUP2, stdin_fd, 0),
            (os.POSIX_SPAWN_DUP2, self.out, 1),
            (os.POSIX_SPAWN_DUP2, self.err, 2),
        ]
        try:
            start = time.perf_counter_ns()
            pid = os.posix_spawn(
                case.argv[0], case.argv, env or env_for(case, self.env), file_actions=actions
            )
            _, status, usage = os.wait4(pid, 0)
            wall = (time.perf_counter_ns() - start) / 1e6
        finally:
            os.close(stdin_fd)
        cpu = (usage.ru_utime + usage.ru_stime) * 1000
        result = Result(
            os.waitstatus_to_exitcode(status), self._read(self.out), self._read(self.err)
        )
        if case.after is not None:
            case.after(result)
        return result, wall, cpu

    @staticmethod
    def _stdin(case: Case, cwd: Path) -> int:
        """The harness's payload already in a closed pipe, as a hook gets it; else /dev/null."""
        if case.payload is None:
            return os.open(os.devnull, os.O_RDONLY)
        read_end, write_end = os.pipe()
        os.write(write_end, case.payload.replace("{cwd}", str(cwd)).encode())
        os.close(write_end)
        return read_end

    @staticmethod
    def _read(fd: int) -> str:
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8", errors="replace")


def validate(runner: Runner, cases: Iterable[Case]) -> list[Case]:
    """Each case once, untimed: a benchmark of a command that fails measures nothing.

    Returns the cases to time: a failing optional one is reported on stderr and left out.
    """
    kept = []
    for case in cases:
        result, _, _ = runner.run(case)
        why = case.check(result)
        if case.world is not None:
            case.world.reset()
        if why is None:
            kept.append(case)
        elif case.optional:
            print(f"bench: left out {case.name} [{case.state}]: {why}", file=sys.stderr)
        else:
            raise BenchError(f"{case.name} [{case.state}]: {why}")
    return kept


def measure(runner: Runner, baseline: Case, cases: Sequence[Case], runs: int) -> None:
    """Warm-up runs, then rounds of every case and the baseline in a fresh random order each."""
    everyone = [baseline, *cases]
    for case in everyone:
        for _ in range(WARMUP_RUNS if case.max_runs is None else 1):
            runner.run(case)
    rng = random.Random(0x4A11)
    for round_no in range(runs):
        order = [c for c in everyone if c.max_runs is None or round_no < c.max_runs]
        rng.shuffle(order)
        for case in order:
            result, wall, cpu = runner.run(case)
            why = case.check(result)
            if why is not None:
                raise BenchError(f"{case.name} [{case.state}], round {round_no}: {why}")
            case.wall.append(wall)
            case.cpu.append(cpu)


# --- reporting -------------------------------------------------------------------------------------


@dataclass
class Row:
    case: Case
    wall: float
    cpu: float
    ratio: float
    cpu_ratio: float
    vs_small: float | None
    ok: bool
    target: str


def rows_of(baseline: Case, cases: Sequence[Case]) -> list[Row]:
    base_wall = statistics.median(baseline.wall)
    base_cpu = statistics.median(baseline.cpu)
    small: dict[str, float] = {}
    rows = []
    for case in cases:
        wall = statistics.median(case.wall)
        cpu = statistics.median(case.cpu)
        ratio, cpu_ratio = wall / base_wall, cpu / base_cpu
        if case.world is not None and case.world.shape.name == "small":
            small[case.name] = wall
        vs_small = wall / small[case.name] if case.state == "large" and case.name in small else None
        targets, ok = [], True
        if case.target is not None:
            targets.append(f"≤{case.target:g}×")
            ok = ratio <= case.target
        if vs_small is not None and case.target is not None:
            targets.append(f"≤{SCALE_TARGET:g}× small")
            ok = ok and vs_small <= SCALE_TARGET
        if case.limit_ms is not None:
            targets.append(f"<{case.limit_ms:g} ms")
            ok = wall < case.limit_ms
        rows.append(Row(case, wall, cpu, ratio, cpu_ratio, vs_small, ok, ", ".join(targets) or "-"))
    return rows


def cells(name: str, state: str, case: Case, r: Row | None) -> list[str]:
    """One table row; `r` is None for the baseline, whose ratios are 1 by definition."""
    wall = statistics.median(case.wall)
    cpu = statistics.median(case.cpu)
    if r is None:
        return [name, state, str(len(case.wall)), f"{wall:.1f}", f"{cpu:.1f}", "1.00", "1.00"]
    verdict = ("ok" if r.ok else "SLOW") if r.target != "-" else ""
    return [
        name,
        state,
        str(len(case.wall)),
        f"{wall:.1f}",
        f"{cpu:.1f}",
        f"{r.ratio:.2f}",
        f"{r.cpu_ratio:.2f}",
        "" if r.vs_small is None else f"{r.vs_small:.2f}",
        r.target,
        verdict,
    ]


def print_table(baseline: Case, rows: Sequence[Row]) -> None:
    head = ["case", "state", "runs", "wall ms", "cpu ms", "×base", "cpu ×base", "vs small"]
    head += ["target", ""]
    table = [head, cells("python -c pass (baseline)", "-", baseline, None)]
    table += [cells(r.case.name, r.case.state, r.case, r) for r in rows]
    widths = [max(len(row[i]) for row in table if i < len(row)) for i in range(len(head))]
    numeric = {2, 3, 4, 5, 6, 7}
    for row in table:
        padded = [
            cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        print("  ".join(padded).rstrip())
    print("medians; ×base = wall-time ratio to the baseline, which the target judges")
    load = os.getloadavg()[0]
    cpus = os.cpu_count() or 1
    if load > cpus:
        print(f"load average {load:.1f} on {cpus} CPUs: wall times are noisy, cpu ×base less so")


# --- modes -----------------------------------------------------------------------------------------


def base_env(world: World) -> dict[str, str]:
    """The environment of every child: the caller's, scrubbed, with a scratch HOME and state."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env.update(
        HOME=str(world.home),
        XDG_STATE_HOME=str(world.state_home),
        HAIL_SOCKET="/nonexistent/socket",
    )
    return env


def env_for(case: Case, env: dict[str, str]) -> dict[str, str]:
    """The children of a case see the HOME and state of its world."""
    if case.world is None:
        return env
    homes = {"HOME": str(case.world.home), "XDG_STATE_HOME": str(case.world.state_home)}
    return {**env, **homes, **(case.env or {})}


def run_check(runner: Runner, baseline: Case, cases: Sequence[Case], runs: int) -> int:
    """docs/hooks.md "Hook-path performance": mean CPU time over ≥ 30 runs each, a verb past
    BENCH_FACTOR × baseline fails."""
    factor = bench_factor()
    measure(runner, baseline, cases, runs)
    base = statistics.fmean(baseline.cpu)
    failed = 0
    for case in cases:
        ratio = statistics.fmean(case.cpu) / base
        slow = ratio > factor
        failed += slow
        print(f"{'SLOW' if slow else 'ok  '}  {case.name}  {ratio:.2f}x")
    print(
        f"mean CPU time over {runs} runs each, baseline python -c pass {base:.1f} ms; "
        f"limit {factor:g}x (BENCH_FACTOR)"
    )
    return 1 if failed else 0


def bench_factor() -> float:
    text = os.environ.get("BENCH_FACTOR", "").strip()
    if not text:
        return DEFAULT_BENCH_FACTOR
    try:
        value = float(text)
    except ValueError:
        raise SystemExit(f"BENCH_FACTOR={text} is not a number") from None
    if not value > 0:
        raise SystemExit(f"BENCH_FACTOR={text} must be positive")
    return value


IMPORT_RUNS = 7


def run_instructions(runner: Runner, baseline: Case, cases: Sequence[Case]) -> int:
    """Each hook case's instructions as a ratio to the baseline's, counted by valgrind's callgrind:
    the one figure a busy machine does not move. Each case runs once first, so the records its
    hook keeps are current, as they are on every call but a session's first."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("bench: --instructions needs valgrind", file=sys.stderr)
        return 2
    counter = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null"]

    def count(case: Case) -> int:
        runner.run(case)
        result, _, _ = runner.run(replace(case, argv=[*counter, *case.argv], wall=[], cpu=[]))
        found = [w for w in result.stderr.split("Collected :")[1:2] for w in w.split()[:1]]
        if not found or not found[0].isdigit():
            raise BenchError(f"{case.name}: callgrind counted nothing: {result.stderr[-300:]}")
        return int(found[0])

    base = count(baseline)
    print(f"python -c pass  {base / 1e6:.1f} M instructions")
    for case in cases:
        n = count(case)
        print(f"{n / base:.3f}x  {n / 1e6:.1f} M  {case.name}")
    return 0


def run_imports(runner: Runner, cases: Sequence[Case], python: str, top: int) -> None:
    """`python -X importtime <console script> …` of each case, medians of several runs.

    Prints the total, the modules with the most time of their own, and the import tree two levels
    deep (what the script imports, and what those import), which names who pulls a costly module in.
    """
    for case in cases:
        traced = replace(case, argv=[python, "-X", "importtime", *case.argv], wall=[], cpu=[])
        own: dict[str, list[int]] = {}
        cumulative: dict[str, list[int]] = {}
        depth: dict[str, int] = {}
        for _ in range(IMPORT_RUNS):
            result, _, _ = runner.run(traced)
            for line in result.stderr.splitlines():
                parts = line.removeprefix("import time:").split("|")
                if len(parts) != 3 or not parts[0].strip().isdigit():
                    continue
                name = parts[2].strip()
                depth[name] = (len(parts[2]) - len(parts[2].lstrip()) - 1) // 2
                own.setdefault(name, []).append(int(parts[0]))
                cumulative.setdefault(name, []).append(int(parts[1]))
        self_us = {n: statistics.median(v) for n, v in own.items()}
        cumul_us = {n: statistics.median(v) for n, v in cumulative.items()}
        total = sum(cumul_us[n] for n in cumul_us if depth[n] == 0)
        print(f"\n{case.name} [{case.state}]: {len(own)} modules, {total / 1000:.1f} ms in imports")
        print("  most time of their own:")
        for name in sorted(self_us, key=lambda n: -self_us[n])[:top]:
            print(f"    {self_us[name] / 1000:6.2f} ms  {name}")
        print("  import tree, two levels, 0.5 ms or more:")
        for name in cumul_us:  # in import order
            if depth[name] <= 1 and cumul_us[name] >= 500:
                print(f"    {cumul_us[name] / 1000:6.2f} ms  {'  ' * depth[name]}{name}")


# --- the waiter and the send's routes [docs/hooks.md "The waiter", docs/transport.md "Routes"] -----

#: The waiter's goals while it waits: a thousandth of a core and 15 MB per waiting session.
WAITER_CPU_TARGET = 0.1  # percent of one core
WAITER_RSS_TARGET_MB = 15.0
WAITER_SECONDS = 30.0
WAITER_SESSIONS = 3
WAKES = 5
ROUTE_RUNS = 10
#: What Claude Code's hooks see in the interactive TUI (docs/real-clients.md "Claude Code asyncRewake").
INTERACTIVE = {"CLAUDE_CODE_ENTRYPOINT": "cli", "CLAUDE_CODE_SESSION_ATTENDED": "1"}
#: Claude Code's composer between its rules, idle and during a turn (docs/transport.md "Screen
#: classes"): enough for the send to judge the screen.
IDLE_SCREEN = "\n".join(["", "─" * 60, "❯\u00a0", "─" * 60, "  ? for shortcuts", ""])
BUSY_SCREEN = "\n".join(["✻ Working…", "─" * 60, "❯\u00a0", "─" * 60, "  esc to interrupt", ""])


def _proc(pid: int, name: str) -> str:
    with open(f"/proc/{pid}/{name}", encoding="utf-8", errors="replace") as f:
        return f.read()


def _cpu_ns(pid: int) -> int:
    """CPU time the process has run, in ns, with that of the children it reaped (a `ps` the
    portable backend ran): `/proc/<pid>/schedstat` counts its own exactly, where `stat`'s clock
    ticks (1/100 s) would round an idle waiter's cost to zero or one tick."""
    fields = _proc(pid, "stat").rsplit(")", 1)[1].split()
    tick = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
    children = (int(fields[13]) + int(fields[14])) * tick
    try:
        return int(_proc(pid, "schedstat").split()[0]) + children
    except (OSError, IndexError, ValueError):
        return (int(fields[11]) + int(fields[12])) * tick + children


def _status_kb(pid: int, key: str, name: str = "status") -> int:
    total = 0
    for line in _proc(pid, name).splitlines():
        if line.split(":", 1)[0] in key.split("+"):
            total += int(line.split()[1])
    return total


class Waiters:
    """Waiters (`hail listen`), each serving a stand-in Claude Code: a `sleep` of its own, or the
    given process."""

    def __init__(self, world: World, hail: str, env: dict[str, str]) -> None:
        self.world, self.hail, self.env = world, hail, env
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(
        self, client_pid: int | None = None, seat: str = BENCH, pane: str = ""
    ) -> subprocess.Popen[bytes]:
        if client_pid is None:
            client = subprocess.Popen(["sleep", "3600"])
            self.procs.append(client)
            client_pid = client.pid
        env = {**self.env, "CLAUDE_PID": str(client_pid), **INTERACTIVE}
        if pane:
            env["TMUX_PANE"] = pane
        waiter = subprocess.Popen(
            [self.hail, "listen", "--format", "claude"],
            cwd=self.world.seat_dir(seat),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.procs.append(waiter)
        assert waiter.stdin is not None
        payload = SESSION_PAYLOAD.replace("{cwd}", str(self.world.seat_dir(seat)))
        waiter.stdin.write(payload.encode())
        waiter.stdin.close()
        record = self.world.hail / "presence" / f"claude-{client_pid}"
        deadline = time.monotonic() + 10
        while f"waiter: {waiter.pid}\n" not in (record.read_text() if record.exists() else ""):
            if time.monotonic() > deadline or waiter.poll() is not None:
                said = waiter.stderr.read().decode() if waiter.stderr else ""
                raise BenchError(f"the waiter did not start: {said}")
            time.sleep(0.02)
        return waiter

    def end(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        self.procs.clear()


#: The process backends a waiter can be measured on, and the variable that forces one (the
#: process module's `HAIL_PROCESS_BACKEND`; a hail without that module ignores it and uses /proc).
BACKENDS = ("proc", "portable")
BACKEND_ENV = "HAIL_PROCESS_BACKEND"


def run_waiters(world: World, hail: str, sessions: int, seconds: float, backend: str) -> int:
    """`run_waiter` on each backend asked for (`both`: one after the other)."""
    worst = 0
    for name in BACKENDS if backend == "both" else (backend,):
        worst = max(worst, run_waiter(world, hail, sessions, seconds, name))
    return worst


def run_waiter(world: World, hail: str, sessions: int, seconds: float, backend: str) -> int:
    """The waiter asleep: CPU and memory per waiting session, then how long a wake takes. The
    figures come from /proc of the measured waiters (the benchmark reads it; hail does not)."""
    env = {**base_env(world), BACKEND_ENV: backend}
    waiters = Waiters(world, hail, env)
    try:
        pids = [waiters.start().pid for _ in range(sessions)]
        time.sleep(1.0)  # past its start-up
        cpu0 = [_cpu_ns(p) for p in pids]
        switches0 = [_status_kb(p, "voluntary_ctxt_switches") for p in pids]
        started = time.monotonic()
        time.sleep(seconds)
        elapsed = time.monotonic() - started
        used = [_cpu_ns(p) - c for p, c in zip(pids, cpu0, strict=True)]
        wakeups = [
            (_status_kb(p, "voluntary_ctxt_switches") - s) / elapsed
            for p, s in zip(pids, switches0, strict=True)
        ]
        rss = [_status_kb(p, "VmRSS") / 1024 for p in pids]
        uss = [_status_kb(p, "Private_Clean+Private_Dirty", "smaps_rollup") / 1024 for p in pids]
        pss = [_status_kb(p, "Pss", "smaps_rollup") / 1024 for p in pids]
        waiters.end()
        wakes = [_one_wake(world, waiters) for _ in range(WAKES)]
    finally:
        waiters.end()
    cpu = [100 * ns / 1e9 / elapsed for ns in used]
    print(
        f"waiter (hail listen), {backend} backend: {sessions} sessions asleep for {elapsed:.0f} s"
    )
    print(
        f"  CPU      {statistics.fmean(cpu):.4f} % of a core per session (max {max(cpu):.4f})"
        f"   goal <= {WAITER_CPU_TARGET} %"
    )
    print(f"  wakeups  {statistics.fmean(wakeups):.2f} per second")
    print(
        f"  memory   RSS {statistics.fmean(rss):.1f} MB, its own (USS) {statistics.fmean(uss):.1f}"
        f" MB, PSS {statistics.fmean(pss):.1f} MB   goal <= {WAITER_RSS_TARGET_MB:g} MB"
    )
    print(
        f"  wake     {statistics.median(wakes):.1f} ms from the send's signal to its exit 2 (median of {len(wakes)})"
    )
    over = max(cpu) > WAITER_CPU_TARGET or max(rss) > WAITER_RSS_TARGET_MB
    return 1 if over else 0


def _one_wake(world: World, waiters: Waiters) -> float:
    """File a message for bench, ask for the wake as a send does, and time the waiter's exit 2."""
    waiter = waiters.start()
    msg_id = Writer(world, time.time()).message(PEER, BENCH, "new")
    box = world.mailbox(BENCH)
    Path(box / "wake").touch()
    started = time.perf_counter()
    os.kill(waiter.pid, signal.SIGUSR1)
    code = waiter.wait(10)
    took = (time.perf_counter() - started) * 1000
    forget_message(world, BENCH, msg_id)
    waiters.end()
    if code != 2:
        raise BenchError(f"the waiter exited {code}, not 2, for a wake")
    return took


def forget_message(world: World, seat: str, msg_id: str) -> None:
    for path in (world.mailbox(seat) / "new" / f"{msg_id}.md", world.hail / "ids" / msg_id):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


class Scratch:
    """A tmux server of its own (socket and TMUX_TMPDIR in the scratch directory): SENDER's shell,
    and in SINK a stand-in Claude Code (a copy of `bash` named `claude`) showing a screen, which
    starts its waiter as its own child, as Claude Code runs its hooks."""

    def __init__(self, world: World, scratch: Path, env: dict[str, str]) -> None:
        tmp = Path(tempfile.mkdtemp(prefix="hbt", dir="/tmp"))
        self.tmpdir = tmp
        self.socket = str(tmp / "s")
        self.env = {**env, "TMUX_TMPDIR": str(tmp), "HAIL_SOCKET": self.socket, "LANG": "C.UTF-8"}
        (scratch / "bin").mkdir(exist_ok=True)
        for agent in ("claude", "codex"):  # copies of bash under the agents' names
            shutil.copy(shutil.which("bash") or "/bin/bash", scratch / "bin" / agent)
        self.bin = scratch / "bin"
        self.screens = scratch / "screens"
        self.screens.mkdir(exist_ok=True)
        self.world = world
        self.tmux(
            "new-session",
            "-d",
            "-s",
            "b",
            "-x",
            "200",
            "-y",
            "50",
            "-c",
            str(world.seat_dir(SENDER)),
            "bash --norc --noprofile",
        )
        self.sender = self.tmux("display", "-p", "-t", "b:0", "#{pane_id}")
        self.sink = self.tmux(
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-c",
            str(world.seat_dir(SINK)),
            "sleep 3600",
        )

    def tmux(self, *args: str) -> str:
        out = subprocess.run(
            ["tmux", "-u", "-S", self.socket, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return out.stdout.strip()

    def show(self, text: str, hail: str = "", agent: str = "claude") -> int:
        """Restart SINK's pane on `text` and a stand-in `agent` (with `hail`, a Claude Code's
        waiter); its pid."""
        path = self.screens / f"{abs(hash(text))}.txt"
        path.write_text(text)
        payload = self.screens / "session.json"
        payload.write_text(SESSION_PAYLOAD.replace("{cwd}", str(self.world.seat_dir(SINK))))
        interactive = " ".join(f"{k}={v}" for k, v in INTERACTIVE.items())
        listen = (
            f"CLAUDE_PID=$$ {interactive} {hail} listen --format claude <{payload}; "
            if hail
            else ""
        )
        script = f"{listen}sleep 3600; :"
        self.tmux(
            "respawn-pane",
            "-k",
            "-t",
            self.sink,
            f"cat '{path}'; exec '{self.bin / agent}' -c '{script}'",
        )
        deadline = time.monotonic() + 10
        while True:
            pid = int(self.tmux("display", "-p", "-t", self.sink, "#{pane_pid}"))
            try:
                if _proc(pid, "comm").strip() == agent:
                    return pid
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise BenchError(f"the stand-in {agent} did not start")
            time.sleep(0.02)

    def close(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self.tmux("kill-server")
        shutil.rmtree(self.tmpdir, ignore_errors=True)


#: The routes `--routes` times, in order; `bare` and `hook` are the baseline and the hook beside.
ROUTES = (
    "woken",
    "queued (Codex's daemon)",
    "plugin (opencode)",
    "busy",
    "typed",
    "not woken (--no-wake)",
)
#: The stand-in for Codex's daemon that the scenario tests use: it answers `thread/queue/add` as
#: Codex 0.171's daemon does, at once (the real one takes 10-15 ms of its own to answer).
CODEX_DAEMON = Path(__file__).resolve().parent.parent / "tests" / "scenarios" / "codex_daemon.py"


def run_routes(world: World, hail: str, scratch: Path, runs: int, python: str) -> int:
    """The send's own time on each route, to a stand-in agent on a scratch tmux server, as wall
    and CPU ratios to a bare interpreter start timed in the same rounds, beside the prompt hook."""
    if shutil.which("tmux") is None:
        print("bench: --routes needs tmux", file=sys.stderr)
        return 2
    env = {**base_env(world), "HAIL_AGENT_COMMANDS": "claude"}
    server = Scratch(world, scratch, env)
    waiters = Waiters(world, hail, server.env)
    link = world.home / ".codex" / "app-server-control" / "app-server-control.sock"
    daemon = subprocess.Popen(
        [
            sys.executable,
            str(CODEX_DAEMON),
            str(link),
            str(server.tmpdir / "d"),
            os.devnull,
            "queue",
        ],
        stdout=subprocess.DEVNULL,
    )
    timings: dict[str, list[tuple[float, float]]] = {}
    try:
        if not _until(lambda: link.exists()):
            raise BenchError("the stand-in Codex daemon did not start")
        for _ in range(runs):
            for route in ROUTES:
                timings.setdefault("python -c pass", []).append(
                    _timed([python, "-c", "pass"], server.env, world.seat_dir(SINK), server)
                )
                timings.setdefault(route, []).append(
                    _route_once(world, hail, server, waiters, route)
                )
            hook = [hail, "deliver", "--format", "claude"]
            timings.setdefault("hook: deliver", []).append(
                _timed(hook, server.env, world.seat_dir(SINK), server)
            )
    finally:
        daemon.kill()
        daemon.wait()
        link.unlink(missing_ok=True)
        waiters.end()
        server.close()
    print_routes(timings, runs)
    return 0


def print_routes(timings: dict[str, list[tuple[float, float]]], runs: int) -> None:
    bare = timings["python -c pass"]
    bare_wall = statistics.median(w for w, _ in bare)
    bare_cpu = statistics.median(c for _, c in bare)
    print(f"the send's own time per route, medians of {runs} runs (a stand-in agent on tmux):")
    for route, pairs in timings.items():
        wall = statistics.median(w for w, _ in pairs)
        cpu = statistics.median(c for _, c in pairs)
        print(
            f"  {route:<24} {wall:7.1f} ms wall {wall / bare_wall:5.1f}x  "
            f"{cpu:6.1f} ms CPU {cpu / bare_cpu:5.1f}x"
        )
    print(
        "  queued, Codex's own      its daemon answers thread/queue/add in 10-15 ms (Codex 0.171):"
        " tests/real_clients/test_send_to_model.py prints the whole send"
    )


def _timed(argv: list[str], env: dict[str, str], cwd: Path, server: Scratch) -> tuple[float, float]:
    """One run of `argv`; (wall ms, CPU ms)."""
    started = time.perf_counter_ns()
    child = _spawn(argv, env, cwd, server.screens / "err")
    _, _, usage = os.wait4(child, 0)
    return (time.perf_counter_ns() - started) / 1e6, (usage.ru_utime + usage.ru_stime) * 1000


def _route_once(
    world: World, hail: str, server: Scratch, waiters: Waiters, route: str
) -> tuple[float, float]:
    """One send to SINK on `route`; (wall ms, CPU ms of the send and the processes it waited for).
    Setting the route up (the pane's screen, a waiter, the turn's marks) is not timed."""
    waiters.end()
    for record in (world.hail / "presence").glob("c[lo]*-*"):  # claude-*, codex-*
        record.unlink()
    for record in (world.hail / "presence").glob("opencode-*"):
        record.unlink()
    listens = route in ("woken", "busy")
    agent = "codex" if route.startswith("queued") else "claude"
    screen = BUSY_SCREEN if route == "busy" else IDLE_SCREEN
    pid = server.show(screen, hail if listens else "", agent)
    sink_env = {**server.env, "TMUX_PANE": server.sink}
    between_turns = [hail, "brief", "--hook"]
    subprocess.run(between_turns, cwd=world.seat_dir(SINK), env=sink_env, capture_output=True)
    record = world.hail / "presence" / f"claude-{pid}"
    if listens and not _until(lambda: "state: listening" in _text(record)):
        raise BenchError("the stand-in's waiter did not start")
    if route.startswith("plugin"):  # the records an opencode plugin's hooks write
        plugin = world.hail / "presence" / f"opencode-{pid}"
        plugin.write_text(
            f"opencode: {pid}\nopencode-start: {_proc(pid, 'stat').rsplit(')', 1)[1].split()[19]}\n"
            f"mailbox: {SINK}\npane: {server.sink}\nserver: {server.socket}\n"
        )
        (world.mailbox(SINK) / "watched").touch()
    if agent == "codex":  # the record of a Codex thread under the daemon, its TUI found
        ms = f"{int(time.time() * 1000):012x}"
        thread = f"{ms[:8]}-{ms[8:]}-7e91-a994-a12591cb9434"  # a UUIDv7 of now
        (world.hail / "presence" / f"codex-{thread}").write_text(
            f"thread: {thread}\nmailbox: {SINK}\ndaemon: yes\ntui: {pid}\n"
            f"tui-start: {_proc(pid, 'stat').rsplit(')', 1)[1].split()[19]}\n"
            f"pane: {server.sink}\nserver: {server.socket}\nsince: {time.time():.3f}\n"
        )
    if route == "busy":
        subprocess.run(
            [hail, "deliver", "--format", "claude"],
            cwd=world.seat_dir(SINK),
            env=sink_env,
            input=b'{"prompt":"go"}',
            capture_output=True,
            check=True,
        )  # a turn runs
    argv = [hail, "sink", "ask", "how long does this send take"]
    if route.startswith("not woken"):
        argv.append("--no-wake")
    err = server.screens / "err"
    started = time.perf_counter_ns()
    child = _spawn(argv, {**server.env, "TMUX_PANE": server.sender}, world.seat_dir(SENDER), err)
    _, status, usage = os.wait4(child, 0)
    wall = (time.perf_counter_ns() - started) / 1e6
    said = err.read_text()
    code = os.waitstatus_to_exitcode(status)
    wanted = {
        "woken": "hail: woken:",
        "queued (Codex's daemon)": "hail: queued:",
        "plugin (opencode)": "hail: woken by its plugin:",
        "busy": "hail: busy:",
        "typed": "hail: typed:",
    }
    if route in wanted and (code != 0 or wanted[route] not in said):
        raise BenchError(f"the {route} send exited {code}: {said.strip()}")
    if route == "woken" and not _until(lambda: "state: fired" in _text(record)):
        raise BenchError("the waiter did not wake its session")
    for name in os.listdir(world.mailbox(SINK) / "new"):
        forget_message(world, SINK, name.removesuffix(".md"))
    pending = world.mailbox(SENDER) / "pending"
    for name in os.listdir(pending) if pending.is_dir() else []:
        os.unlink(pending / name)
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def _text(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def _until(check: Callable[[], bool], seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _spawn(argv: list[str], env: dict[str, str], cwd: Path, err: Path) -> int:
    """Start a process in `cwd` with stdin and stdout on /dev/null and stderr in `err`."""
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return os.posix_spawn(
            argv[0],
            argv,
            env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, str(err), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
            ],
        )
    finally:
        os.chdir(old)


def find_hail(arg: str | None) -> str:
    path = Path(arg) if arg else Path(sys.executable).parent / "hail"
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise SystemExit(f"no hail entry point at {path}: pip install -e . (or pass --hail PATH)")
    return str(path.absolute())


def interpreter_of(hail: str) -> str:
    """The interpreter on the console script's `#!` line, so the baseline starts the same one."""
    with open(hail, "rb") as f:
        first = f.readline(4096).decode(errors="replace")
    if first.startswith("#!"):
        words = first[2:].split()
        if words and words[0].endswith("/env") and len(words) > 1:
            words = [shutil.which(words[1]) or words[1]]
        if words and "python" in Path(words[0]).name and os.access(words[0], os.X_OK):
            return words[0]
    return sys.executable


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="the gate of just check")
    mode.add_argument("--full", action="store_true", help="small and large state, every case")
    mode.add_argument("--imports", action="store_true", help="the slowest imports of each case")
    mode.add_argument(
        "--instructions", action="store_true", help="each hook's instructions (valgrind)"
    )
    mode.add_argument(
        "--waiter", action="store_true", help="the waiter asleep: CPU, memory, and a wake"
    )
    mode.add_argument("--routes", action="store_true", help="the send's own time on each route")
    mode.add_argument("--remote", action="store_true", help="a send over localhost ssh")
    mode.add_argument("--gauge", action="store_true", help="30 agents' gauges, 50 MB files")
    mode.add_argument(
        "--seats", action="store_true", help="hail seats and a watch refresh, 30 agents, 50 MB"
    )
    mode.add_argument(
        "--validate", action="store_true", help="run every case once and check its output"
    )
    p.add_argument("--hail", help="the hail entry point (default: beside this interpreter)")
    p.add_argument("--python", help="the baseline interpreter (default: hail's #! interpreter)")
    p.add_argument("--runs", type=int, help="timed runs per case")
    p.add_argument("--top", type=int, default=12, help="imports shown per case with --imports")
    p.add_argument("--large", action="store_true", help="with --imports or --validate: large too")
    p.add_argument("--cache", type=Path, help="where the large state is cached (default: tmp)")
    p.add_argument("--before", metavar="REV", help="with --seats: also hail at this git revision")
    p.add_argument("--sessions", type=int, default=WAITER_SESSIONS, help="waiters with --waiter")
    p.add_argument(
        "--seconds", type=float, default=WAITER_SECONDS, help="how long --waiter lets them sleep"
    )
    p.add_argument(
        "--backend",
        choices=(*BACKENDS, "both"),
        default="both",
        help=f"the process backend of --waiter's waiters ({BACKEND_ENV})",
    )
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    hail = find_hail(args.hail)
    if args.remote:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import bench_remote

        return bench_remote.run(hail, args.runs or 5)
    if args.gauge:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import bench_gauge

        return bench_gauge.run(args.python or interpreter_of(hail), args.runs or bench_gauge.RUNS)
    if args.seats:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import bench_seats

        python = args.python or interpreter_of(hail)
        return bench_seats.run(python, args.runs or bench_seats.RUNS, args.before)
    python = args.python or interpreter_of(hail)
    runs = args.runs or (CHECK_RUNS if args.check else FULL_RUNS if args.full else DEFAULT_RUNS)
    if args.check and runs < CHECK_RUNS:
        raise SystemExit(f"--check needs at least {CHECK_RUNS} runs")
    old_cwd = os.getcwd()
    old_umask = os.umask(0o022)
    scratch = Path(tempfile.mkdtemp(prefix="hail-bench-"))
    try:
        small = small_world(scratch)
        if args.waiter:
            return run_waiters(small, hail, args.sessions, args.seconds, args.backend)
        if args.routes:
            return run_routes(small, hail, scratch, args.runs or ROUTE_RUNS, python)
        worlds = [small]
        if args.full or (args.large and (args.imports or args.validate)):
            worlds.append(large_world(args.cache))
        runner = Runner(base_env(small), scratch, small.seat_dir(BENCH))
        baseline = Case("python -c pass", None, BENCH, [python, "-c", "pass"], None, expect_code(0))
        try:
            if args.check or args.instructions:
                cases: list[Case] = hook_cases(small, hail)
            else:
                cases = [c for w in worlds for c in all_cases(w, hail)]
                cases += entry_cases(small, python, scratch)
                if args.full or args.validate:
                    cases += seat_cases(worlds[-1], hail)
            cases = validate(runner, cases)
            validate(runner, [baseline])
            if args.validate:
                print(f"ok: {len(cases)} cases behave as expected")
                return 0
            if args.instructions:
                return run_instructions(runner, baseline, cases)
            if args.imports:
                run_imports(runner, [c for c in cases if c.argv[0] == hail], python, args.top)
                return 0
            if args.check:
                return run_check(runner, baseline, cases, runs)
            measure(runner, baseline, cases, runs)
            for world in worlds:
                world.reset()
            rows = rows_of(baseline, cases)
            print(f"hail: {hail}\npython: {python}\n")
            print_table(baseline, rows)
            return 0
        finally:
            runner.close()
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    finally:
        os.chdir(old_cwd)
        os.umask(old_umask)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
