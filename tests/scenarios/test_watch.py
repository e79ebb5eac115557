"""`hail watch` in a real terminal: a pane of a scratch tmux server, with a real tmux client
attached to that server (from a pane of a second scratch server), watching real traffic between
two stand-in agents [docs/watch.md].

The stand-ins are `hail demo`'s agent under the name `claude`: a Claude-like composer that submits
on Enter and runs `hail deliver --format claude` as its prompt hook, so hail types into it and its
hook claims mail, and watch classifies its screen as a send does. Every change is made with the
installed `hail` (a send, a person's prompt whose hook claims the mail, a reply, a hold, a wait
that another seat's wait crosses), and what the screen shows is read with capture-pane: each
change must show within a second of the command that made it.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import hail.demo_agent
from tests.scenarios.conftest import Scene, script_command
from tests.support.entry import hail_bin
from tests.support.ids import ID
from tests.support.procs import wait_until
from tests.support.tmux import ScratchTmux
from tests.support.world import clean_env

#: What "at a glance" means here: a change shows within this many seconds.
SHOWS_WITHIN = 1.0
AGENTS = "claude,codex"


@dataclass
class Cockpit:
    scene: Scene
    client: ScratchTmux
    panes: dict[str, str] = field(default_factory=dict)
    watch: str = ""
    latencies: dict[str, float] = field(default_factory=dict)

    def screen(self) -> str:
        return self.scene.screen(self.watch)

    def shows(self, what: str, check: Callable[[str], bool], within: float = SHOWS_WITHIN) -> None:
        """`check` holds for the watch's screen within `within` seconds from now."""
        start = time.monotonic()
        assert wait_until(lambda: check(self.screen()), within, 0.02), (
            f"{what}: not on the screen within {within} s:\n{self.screen()}"
        )
        self.latencies[what] = time.monotonic() - start

    def line(self, needle: str) -> str:
        return next((line for line in self.screen().split("\n") if needle in line), "")

    def say(self, seat: str, *args: str) -> tuple[int, str, str]:
        r = self.scene.as_pane(self.panes[seat], *args)
        return r.rc, r.out, r.err

    def popen(self, seat: str, *args: str) -> subprocess.Popen[str]:
        env = {**self.scene.env, "HAIL_SOCKET": self.scene.socket, "TMUX_PANE": self.panes[seat]}
        return subprocess.Popen(
            [hail_bin(), *args],
            cwd=self.scene.pane_path(self.panes[seat]),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def keys(self, *keys: str) -> None:
        self.scene.tmux("send-keys", "-t", self.watch, *keys)

    def client_pane(self) -> str:
        """The pane the attached client shows now."""
        return self.scene.tmux("list-clients", "-F", "#{pane_id}").strip()


def standin(scene: Scene, pane: str, cwd: Path, launcher: Path) -> None:
    hook = shlex.join([hail_bin(), "deliver", "--format", "claude"])
    script = f"HAIL_DEMO_HOOK={shlex.quote(hook)} exec {shlex.quote(str(launcher))}"
    scene.respawn(pane, cwd, script)
    assert wait_until(lambda: "❯\u00a0" in scene.screen(pane), 15), scene.screen(pane)


def start_watch(scene: Scene, *, env_prefix: str = "") -> str:
    """`hail watch` in a new window of the scratch server, in a directory that is no seat."""
    command = f"{env_prefix}HAIL_AGENT_COMMANDS={AGENTS} {shlex.quote(hail_bin())} watch"
    script = f"{command}; echo WATCH-ENDED rc=$?; exec cat"
    pane = scene.new_pane(scene.root, "sh", "-c", script)
    assert wait_until(lambda: "Seats (2)" in scene.screen(pane), 30), scene.screen(pane)
    return pane


@pytest.fixture
def cockpit(scene: Scene, tmp_path: Path) -> Iterator[Cockpit]:
    scene.env["HAIL_AGENT_COMMANDS"] = AGENTS
    launcher = script_command(scene.root, "claude", Path(hail.demo_agent.__file__))
    client = ScratchTmux(clean_env(tmp_path / "client"), prefix="hailclient")
    try:
        c = Cockpit(scene, client)
        c.panes = {"boss": scene.sender, "worker": scene.recv}
        for seat, pane in c.panes.items():
            standin(scene, pane, scene.seat_dir(seat), launcher)
        # A person's terminal: a real tmux client attached to the scratch server.
        attach = ["env", "-u", "TMUX", "tmux", "-u", "-S", scene.socket, "attach", "-t", "t"]
        (tmp_path / "client" / "home").mkdir(parents=True)
        client.new_session(tmp_path, attach, width=230, height=60)
        assert wait_until(lambda: scene.tmux("list-clients", "-F", "#{client_tty}").strip() != "")
        c.watch = start_watch(scene)
        scene.tmux("select-window", "-t", c.watch)
        assert wait_until(lambda: c.client_pane() == c.watch)
        boss, worker = c.panes["boss"], c.panes["worker"]
        c.shows("both stand-ins", lambda s: f"{boss}:claude" in s and f"{worker}:claude" in s, 10)
        yield c
        print("\nshown after:", ", ".join(f"{k} {v:.2f} s" for k, v in c.latencies.items()))
    finally:
        client.kill()


def row(screen: str, first: str) -> list[str]:
    """The cells of a table row whose first cell is `first`."""
    for line in screen.split("\n"):
        cells = [c for c in re.split(r"\s{2,}|│", line.strip("│ ")) if c.strip()]
        if cells and cells[0].strip() == first:
            return [c.strip() for c in cells]
    return []


def test_each_change_shows_within_a_second(cockpit: Cockpit) -> None:
    c = cockpit
    state = c.scene.state
    boss_row = row(c.screen(), "boss")
    assert boss_row[1:4] == [f"{c.panes['boss']}:claude", "type", "idle, no hooks"], boss_row

    # a send: filed, not typed
    rc, out, err = c.say("boss", "worker", "ask", "--no-wake", "Q1 review the parser")
    assert rc == 5, err
    q1 = out.split("=", 1)[1].strip()
    c.shows("a send", lambda s: "Q1 review the parser" in s and "delivered" in c.line("Q1 review"))
    assert "boss/" in c.line("Q1 review") and "→ worker" in c.line("Q1 review")
    assert row(c.screen(), "worker")[4] == "1"  # unread

    # a receipt: a person prompts worker; its hook claims the mail
    worker = c.panes["worker"]
    c.scene.tmux("send-keys", "-t", worker, "-l", "check your mail")
    assert wait_until(lambda: "check your mail" in c.scene.screen(worker))
    c.scene.tmux("send-keys", "-t", worker, "Enter")
    assert wait_until(lambda: (state / "seats/worker/cur" / f"{q1}.injected.md").exists(), 15)
    c.shows("a receipt", lambda s: re.search(r"injected \+\d+s", c.line("Q1 review")) is not None)
    c.shows(
        "the hook's mark", lambda s: row(s, "worker")[3] == "idle" and row(s, "worker")[4] == "0"
    )

    # a reply: typed into the idle asker, linked to its ask both ways
    rc, out, err = c.say("worker", "boss", "fyi", "--re", q1, "GO: A1 the parser is fine")
    assert rc == 0, err
    a1 = out.split("=", 1)[1].strip()
    c.shows(
        "a reply",
        lambda s: f"re {q1}" in c.line("GO: A1") and f"replied {a1}" in c.line("Q1 review"),
    )

    # a hold: in effect on worker, with its lapse time
    rc, out, err = c.say("boss", "worker", "hold", "--for", "2h", "HOLD: H1 no landing")
    assert rc == 0, err
    h1 = out.split("=", 1)[1].strip()
    c.shows(
        "a hold",
        lambda s: (
            "holds (1)" in s
            and "lapses in 1h59m" in c.line("HOLD: H1 no landing (until")
            and h1 in row(s, "worker")[6]
        ),
    )

    # a wait, then a crossing one: worker's ask --wait to boss while boss waits on worker
    boss_wait = c.popen("boss", "worker", "ask", "--wait", "40", "--no-wake", "Q2 can I land?")
    assert boss_wait.stdout is not None
    q2 = re.fullmatch(rf"id=({ID})\n", boss_wait.stdout.readline())
    assert q2, "ask --wait printed its id"
    waits = state / "waits"
    assert wait_until(lambda: waits.is_dir() and any(waits.iterdir()), 10)
    c.shows("a wait", lambda s: f"boss waits on worker for {q2.group(1)}" in s)
    rc, out, err = c.say("worker", "boss", "ask", "--wait", "40", "Q3 which parser?")
    assert rc == 6, err  # hail refuses the wait that would cross
    q3 = out.split("=", 1)[1].strip()
    c.shows(
        "a crossing wait",
        lambda s: (
            f"⚠ crossing: worker's ask {q3} to boss has no reply while boss waits on worker" in s
        ),
    )
    assert f"{q3} worker" in c.line(f"{q3} worker → boss: Q3 which parser?")  # an open ask

    # the answer ends the wait, and the crossing with it
    rc, _, err = c.say("worker", "boss", "fyi", "--re", q2.group(1), "GO: land it")
    assert rc == 0, err
    assert boss_wait.wait(timeout=30) == 0
    boss_wait.communicate()
    c.shows("the wait ended", lambda s: "waits (0)" in s and "crossing" not in s)


def test_the_keys_move_jump_open_filter_help_and_quit(cockpit: Cockpit) -> None:
    c = cockpit
    rc, out, err = c.say(
        "boss", "worker", "ask", "--no-wake", "Q1 a body to open", "line one\nline two"
    )
    assert rc == 5, err
    q1 = out.split("=", 1)[1].strip()
    c.shows("the message", lambda s: "Q1 a body to open" in s)

    # Enter on a seat brings its agent's pane up in the attached client
    c.keys("Down")
    c.keys("Enter")
    assert wait_until(lambda: c.client_pane() == c.panes["worker"], 3), c.client_pane()
    c.shows("the jump", lambda s: f"jumped to {c.panes['worker']}" in s)
    c.keys("Up", "Enter")
    assert wait_until(lambda: c.client_pane() == c.panes["boss"], 3), c.client_pane()
    c.scene.tmux("select-window", "-t", c.watch)

    # ? shows the help, Esc closes it
    c.keys("?")
    c.shows("the help", lambda s: "this help" in s and "bring its agent's pane up in tmux" in s)
    c.keys("Escape")
    c.shows("the help closed", lambda s: "this help" not in s)

    # Tab to the messages, Enter opens the newest in full
    c.keys("Tab", "Enter")
    c.shows("the message in full", lambda s: f"message {q1}" in s and "line two" in s)
    assert "ask: Q1 a body to open" in c.screen() and "receipt: delivered" in c.screen()
    c.keys("Escape")
    c.shows("the message closed", lambda s: f"message {q1}" not in s)

    # f shows only the highlighted seat, a shows all again
    c.keys("Tab", "Down", "f")
    c.shows("only worker", lambda s: "only worker" in s and not row(s, "boss"))
    c.keys("a")
    c.shows("every seat", lambda s: "only worker" not in s and row(s, "boss") != [])

    # q quits
    c.keys("q")
    c.shows("quit", lambda s: "WATCH-ENDED rc=0" in s, 5)


def test_a_jump_outside_tmux_says_so_and_changes_nothing(cockpit: Cockpit) -> None:
    c = cockpit
    c.keys("q")
    c.shows("quit", lambda s: "WATCH-ENDED rc=0" in s, 5)
    outside = start_watch(c.scene, env_prefix=f"env -u TMUX HAIL_SOCKET={c.scene.socket} ")
    c.watch = outside
    c.keys("Enter")
    c.shows("not inside tmux", lambda s: "not inside tmux, so there is no client to switch" in s)
    assert c.client_pane() != c.panes["boss"]
    c.keys("q")


def test_once_and_json_see_the_panes_and_their_screens(cockpit: Cockpit) -> None:
    c = cockpit
    r = c.scene.run(
        "watch", "--once", cwd=c.scene.root, env={**c.scene.env, "HAIL_SOCKET": c.scene.socket}
    )
    assert r.rc == 0, r.err
    assert row(r.out, "worker")[1:3] == [f"{c.panes['worker']}:claude", "type"]
    r = c.scene.run(
        "watch", "--json", cwd=c.scene.root, env={**c.scene.env, "HAIL_SOCKET": c.scene.socket}
    )
    data = json.loads(r.out)
    agents = {s["mailbox"]: s["agents"] for s in data["seats"]}
    assert agents["worker"] == [
        {
            "pane": c.panes["worker"],
            "agent": "claude",
            "state": "idle",
            "route": "type",
            "task": None,
            "gauge": None,
            "unknown": "no-record",  # no prompt yet: its hook recorded nothing
        }
    ]
    assert data["tmux"]["source"] == "HAIL_SOCKET" and data["tmux"]["error"] is None


def test_the_idle_benchmark_runs_and_reports_cpu_and_memory() -> None:
    """scripts/watch_bench.py's idle mode, shortened: the figures docs/watch.md quotes come
    from it. No figure is asserted (speed is measured, not tested)."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "watch_bench.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--idle", "--seconds", "1", "--hail", hail_bin()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^idle, 4 agents: CPU \d+\.\d\d% of one core over 1 s", proc.stdout, re.M)
    assert re.search(r"RSS \d+\.\d MiB", proc.stdout), proc.stdout
