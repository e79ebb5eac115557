"""The native routes of a send (docs/transport.md "Routes") on a scratch tmux server: a stand-in
`claude` (a captured screen under that process name) with a real waiter (`hail listen`) serving
it, and a stand-in `codex` whose thread is on record. The route comes from hail's hook records; the
screen only decides a turn the records say is running."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hail.store.presence import base as presence_base
from hail.store.presence import plugin as plugin_records
from hail.store.presence import queue as queue_records
from hail.store.presence import waiter as waiter_records
from hail.store.store import Store
from tests.scenarios.conftest import HERE, Scene, script_command
from tests.support.entry import hail_bin
from tests.support.procs import hails_backend, wait_until

SCREENS = HERE.parent / "data" / "screens"
STILL = HERE / "still_screen.py"
COMPOSER = HERE / "fake_composer.py"
START = b'{"session_id":"s-1","hook_event_name":"SessionStart","source":"startup"}'
INTERACTIVE = {"CLAUDE_CODE_ENTRYPOINT": "cli", "CLAUDE_CODE_SESSION_ATTENDED": "1"}


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


class PaneChild:
    """A process the stand-in agent started as its own child (as a harness runs its hooks), seen
    from the test: its pid, and its exit status once the stand-in saw it end."""

    def __init__(self, spawn_dir: Path, pid: int) -> None:
        self.status = spawn_dir / f"status-{pid}"
        self.pid = pid

    def poll(self) -> int | None:
        return int(self.status.read_text()) if self.status.exists() else None

    def wait(self, timeout: float) -> int | None:
        wait_until(lambda: self.status.exists(), timeout)
        return self.poll()

    def send_signal(self, sig: int) -> None:
        with contextlib.suppress(OSError):
            os.kill(self.pid, sig)


class Claude:
    """The stand-in Claude Code in RECV, and its waiter (its own child, as Claude Code's hooks)."""

    def __init__(self, scene: Scene, screen: str) -> None:
        self.scene = scene
        scene.env["HAIL_AGENT_COMMANDS"] = "bash,cat,claude"
        self.spawn_dir = scene.root / f"claude-{screen}"
        self.spawn_dir.mkdir(exist_ok=True)
        exe = scene.root / "bin" / "claude"
        if not exe.exists():
            exe = script_command(scene.root, "claude", STILL, str(SCREENS / screen))
        scene.respawn(scene.recv, scene.seat_dir("worker"), f"exec '{exe}' '{self.spawn_dir}'")
        # tmux names the pane's command from argv (the interpreter); ps, as hail's survey, `claude`.
        assert wait_until(
            lambda: comm(int(scene.server.display(scene.recv, "#{pane_pid}"))) == "claude", 10
        )
        self.pid = int(scene.server.display(scene.recv, "#{pane_pid}"))
        assert wait_until(lambda: scene.screen(scene.recv).strip() != "", 10)
        self.waiter: PaneChild | None = None

    def listen(self) -> PaneChild:
        env = {
            **self.scene.env,
            "CLAUDE_PID": str(self.pid),
            "TMUX": f"{self.scene.socket},1,0",  # as tmux sets it in its panes
            "TMUX_PANE": self.scene.recv,
            **INTERACTIVE,
        }
        (self.spawn_dir / "stdin").write_bytes(START)
        spec = {
            "argv": [hail_bin(), "listen", "--format", "claude"],
            "env": env,
            "cwd": str(self.scene.seat_dir("worker")),
            "stdin": str(self.spawn_dir / "stdin"),
        }
        (self.spawn_dir / "spawn.json").write_text(json.dumps(spec))
        (self.spawn_dir / "pid").unlink(missing_ok=True)
        os.kill(self.pid, signal.SIGUSR2)
        assert wait_until(lambda: (self.spawn_dir / "pid").exists(), 10)
        waiter = self.waiter = PaneChild(self.spawn_dir, int((self.spawn_dir / "pid").read_text()))
        store = Store(str(self.scene.state))
        assert wait_until(
            lambda: any(w.pid == waiter.pid for w in waiter_records.waiters(store)), 10
        )
        return waiter

    def turn_starts(self) -> None:
        """A prompt's hook: the records say a turn runs."""
        hook = self.scene.as_pane(
            self.scene.recv, "deliver", "--format", "claude", stdin='{"prompt":"go"}'
        )
        assert hook.rc == 0

    def end(self) -> None:
        if self.waiter is not None and self.waiter.poll() is None:
            self.waiter.send_signal(signal.SIGKILL)
            self.waiter.wait(10)


@pytest.fixture
def claude_factory(scene: Scene) -> Iterator[list[Claude]]:
    made: list[Claude] = []
    try:
        yield made
    finally:
        for c in made:
            c.end()


def claude(
    scene: Scene, made: list[Claude], screen: str = "cc53-latest-default-mode.txt"
) -> Claude:
    c = Claude(scene, screen)
    made.append(c)
    return c


def test_an_idle_claude_with_a_waiter_is_woken_and_nothing_is_typed(
    scene: Scene, claude_factory: list[Claude]
) -> None:
    c = claude(scene, claude_factory)
    waiter = c.listen()
    before = scene.screen(scene.recv)

    sent = scene.as_pane(scene.sender, "worker", "ask", "are the tests green")

    assert sent.rc == 0, sent.err
    assert sent.err == (
        f"hail: woken: worker's session in {scene.recv} takes it in a turn of its own; nothing "
        "typed\n"
    )
    assert waiter.wait(5) == 2, "the waiter woke its session"
    assert scene.screen(scene.recv) == before, "nothing typed"
    assert f"{sent.id}.md" in scene.new_files("worker"), "unread until the woken turn's hook"


def test_without_a_waiter_the_same_claude_is_typed_into(
    scene: Scene, claude_factory: list[Claude]
) -> None:
    claude(scene, claude_factory)  # settings that predate the waiter: nothing listens
    sent = scene.as_pane(scene.sender, "worker", "ask", "are the tests green")
    assert f"typed into {scene.recv}" in sent.err or "hail: typed:" in sent.err, sent.err
    assert "woken" not in sent.err
    assert wait_until(lambda: f"id:{sent.id}" in scene.screen(scene.recv).replace(" ", ""), 5)


def test_mid_turn_nothing_is_woken_and_the_hooks_carry_it(
    scene: Scene, claude_factory: list[Claude]
) -> None:
    c = claude(scene, claude_factory, "cc55-latest-busy.txt")
    waiter = c.listen()
    c.turn_starts()
    before = scene.screen(scene.recv)

    sent = scene.as_pane(scene.sender, "worker", "ask", "a question while you work")

    assert sent.rc == 0, sent.err
    assert sent.err == "hail: busy: arrives at worker's next tool call or when its turn ends\n"
    time.sleep(2 * 1.0)
    assert waiter.poll() is None, "the waiter did not fire"
    assert scene.screen(scene.recv) == before


def test_a_dialog_during_a_turn_files_the_message_and_types_nothing(
    scene: Scene, claude_factory: list[Claude]
) -> None:
    c = claude(scene, claude_factory, "cc54-latest-permission-dialog.ansi.txt")
    waiter = c.listen()
    c.turn_starts()
    before = scene.screen(scene.recv)

    sent = scene.as_pane(scene.sender, "worker", "ask", "are you there")

    assert sent.rc == 5, sent.err
    assert (
        f"not typed (a dialog in {scene.recv} holds its turn; it arrives with the next tool call "
        "once the dialog is answered)" in sent.err
    )
    assert scene.screen(scene.recv) == before, "the dialog is untouched"
    assert waiter.poll() is None
    receipt = scene.as_pane(scene.sender, "sent", sent.id)
    assert receipt.out == "delivered\n"


def test_a_waiter_of_another_process_is_not_this_panes(
    scene: Scene, claude_factory: list[Claude]
) -> None:
    """A record whose client is not the pane's process (another server's pane of the same id)."""
    c = claude(scene, claude_factory)
    other = subprocess.Popen(["sleep", "60"])
    try:
        store = Store(str(scene.state))
        fake = waiter_records.Waiter(
            other.pid,
            hails_backend().start(other.pid),
            other.pid,
            hails_backend().start(other.pid),
            ["worker"],
            scene.recv,
        )
        waiter_records.write_waiter(store, fake)
        c.scene.as_pane(scene.recv, "brief", "--hook")  # between turns
        sent = scene.as_pane(scene.sender, "worker", "ask", "for the pane's own session")
        assert "woken" not in sent.err, sent.err
    finally:
        other.kill()
        other.wait()


def test_seats_shows_each_agents_route(scene: Scene, claude_factory: list[Claude]) -> None:
    c = claude(scene, claude_factory)
    assert route_cell(scene) == "type"
    c.listen()
    assert route_cell(scene) == "wake"
    c.turn_starts()
    assert route_cell(scene) == "hooks"


def route_cell(scene: Scene) -> str:
    table = scene.as_pane(scene.sender, "seats", "worker")
    head, row = table.out.splitlines()[:2]
    return row[head.index("ROUTE") :].split()[0]


def thread_id_now(created: float | None = None) -> str:
    """A Codex thread id (a UUIDv7) created now, or at `created`."""
    ms = f"{int((time.time() if created is None else created) * 1000):012x}"
    return f"{ms[:8]}-{ms[8:]}-7e91-a994-a12591cb9434"


def codex_on_record(
    scene: Scene,
    *,
    daemon: bool,
    known: bool = True,
    created: float | None = None,
    hidden: bool = False,
) -> queue_records.Thread:
    """A stand-in Codex TUI in the recipient's pane (an interpreter named `codex`, so a `codex
    queue` run fails), its thread on record as hail's hooks leave it, between turns: without the
    daemon the record names its TUI; under it, only once a send found the TUI in its pane
    (`known`: its TUI, pane and server written in). The thread was created now, or at `created`.
    A `hidden` TUI runs without TMUX_PANE: only a survey can place it in its pane."""
    scene.env["HAIL_AGENT_COMMANDS"] = "codex"
    exe = script_command(scene.root, "codex", COMPOSER, "codex")
    hide = "env -u TMUX_PANE " if hidden else ""
    scene.respawn(scene.recv, scene.seat_dir("worker"), f"exec {hide}'{exe}'")
    assert wait_until(lambda: "READY" in scene.screen(scene.recv), 10)
    tui = int(scene.server.display(scene.recv, "#{pane_pid}"))
    store = Store(str(scene.state))
    Path(presence_base.directory(store)).mkdir(parents=True, exist_ok=True)
    thread = queue_records.Thread(
        thread_id_now(created),
        "worker",
        daemon=daemon,
        tui=tui if known else 0,
        tui_start=hails_backend().start(tui) if known else "",
        pane=scene.recv if known else "",
        since=time.time(),
        server=scene.socket if known else "",
    )
    (Path(presence_base.directory(store)) / f"codex-{thread.id}").write_text(thread.text())
    scene.as_pane(scene.recv, "brief", "--hook")  # between turns
    return thread


@pytest.mark.parametrize("server", [False, True], ids=["surveyed", "by-records"])
def test_a_codex_queue_that_fails_falls_back_to_typing(scene: Scene, server: bool) -> None:
    """A thread on record whose TUI is the pane's Codex, but `codex queue` fails (the stand-in's
    binary is an interpreter): the envelope is typed into the idle composer instead, whether the
    route came from a survey (a TUI without TMUX_PANE, which the process table cannot place) or
    from the record alone (then the pane is surveyed to type)."""
    codex_on_record(scene, daemon=True, known=server, hidden=not server)

    sent = scene.as_pane(scene.sender, "worker", "ask", "queue or type", prefix=IMPORTTIME)

    assert sent.rc == 0, sent.err
    assert "libtmux" in imported(sent.err), "the pane was surveyed (to type, or to find the TUI)"
    assert "not Codex's own binary; typing instead" in sent.err, sent.err
    assert f"hail: typed: into {scene.recv}" in sent.err
    assert f"SUBMITTED [hail kind:ask from:boss/{scene.sender}" in scene.screen(scene.recv)


@pytest.mark.parametrize("flag", ["--no-submit"])
def test_a_send_that_asks_for_typing_types_even_with_a_waiter(
    scene: Scene, claude_factory: list[Claude], flag: str
) -> None:
    c = claude(scene, claude_factory)
    waiter = c.listen()
    sent = scene.as_pane(scene.sender, "worker", "ask", "type this one", flag)
    assert sent.rc == 0, sent.err
    assert "hail: typed: into" in sent.err and "woken" not in sent.err, sent.err
    assert wait_until(lambda: f"id:{sent.id}" in scene.screen(scene.recv).replace(" ", ""), 5)
    time.sleep(1.5)
    assert waiter.poll() is None, "the waiter was not asked"


def test_a_forged_waiter_record_naming_another_process_is_never_signalled(
    scene: Scene, claude_factory: list[Claude]
) -> None:
    """A record of the pane's own Claude Code process, listening, whose waiter is a `sleep`: the
    send checks the named process is hail's waiter of that Claude Code process before the signal,
    so the sleep is not signalled (SIGUSR1 would end it) and the send types instead of saying
    `woken` (docs/transport.md "Evidence")."""
    c = claude(scene, claude_factory)
    other = subprocess.Popen(["sleep", "60"])
    try:
        store = Store(str(scene.state))
        procs = hails_backend()
        forged = waiter_records.Waiter(
            c.pid, procs.start(c.pid), other.pid, procs.start(other.pid), ["worker"], scene.recv
        )
        waiter_records.write_waiter(store, forged)
        c.scene.as_pane(scene.recv, "brief", "--hook")  # between turns

        sent = scene.as_pane(scene.sender, "worker", "ask", "for the pane's own session")

        assert "woken" not in sent.err, sent.err
        assert f"process {other.pid} is no waiter of worker's Claude Code" in sent.err, sent.err
        time.sleep(0.2)
        assert other.poll() is None, "the sleep the record names was not signalled"
    finally:
        other.kill()
        other.wait()


def imported(err: str) -> set[str]:
    """The modules a run imported, from its `-X importtime` lines on stderr."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in err.splitlines()
        if line.startswith("import time:")
    }


def said(err: str) -> str:
    return "".join(line + "\n" for line in err.splitlines() if not line.startswith("import time:"))


#: The installed hail run by its own interpreter with `-X importtime`: every module it imports is
#: named on stderr.
IMPORTTIME = (sys.executable, "-X", "importtime")
#: What the records' routes never import: the tmux library and the typing route, and the
#: dataclasses machinery (with inspect, ast, re and enum, about 1.2 bare interpreter starts).
NOT_ON_THE_RECORDS_ROUTES = frozenset(
    {"libtmux", "hail.transport.panes", "hail.transport.wake", "dataclasses"}
)


def test_a_woken_send_goes_by_the_records_with_no_tmux_library(
    scene: Scene, claude_factory: list[Claude]
) -> None:
    """The waiter's record names its pane and tmux server: the send reads no screen, surveys no
    pane and never imports libtmux (docs/transport.md "Routes")."""
    c = claude(scene, claude_factory)
    waiter = c.listen()
    (record,) = waiter_records.waiters(Store(str(scene.state)))
    assert (record.pane, record.server) == (scene.recv, scene.socket)

    sent = scene.as_pane(scene.sender, "worker", "ask", "are the tests green", prefix=IMPORTTIME)

    assert sent.rc == 0, sent.err
    assert said(sent.err) == (
        f"hail: woken: worker's session in {scene.recv} takes it in a turn of its own; nothing "
        "typed\n"
    )
    modules = imported(sent.err)
    assert "hail.commands.send" in modules, "the import lines are read"
    assert not NOT_ON_THE_RECORDS_ROUTES & modules, modules
    assert waiter.wait(5) == 2, "the waiter woke its session"
    filed = (scene.state / "seats" / "worker" / "new" / f"{sent.id}.md").read_text()
    assert filed.startswith(f"from: boss/{scene.sender}\n"), "signed as a survey would sign it"


def test_a_record_of_another_tmux_server_is_not_taken_without_a_survey(
    scene: Scene, claude_factory: list[Claude], tmp_path: Path
) -> None:
    """A record naming another server (a socket of the same path recreated by a new server has
    another inode) is checked against a survey: here the pane's process is the record's, so the
    survey still wakes it."""
    import socket

    c = claude(scene, claude_factory)
    c.listen()
    store = Store(str(scene.state))
    (record,) = waiter_records.waiters(store)
    other = socket.socket(socket.AF_UNIX)
    other.bind(str(tmp_path / "other"))
    try:
        record.server = str(tmp_path / "other")
        waiter_records.write_waiter(store, record)
        sent = scene.as_pane(scene.sender, "worker", "ask", "which server", prefix=IMPORTTIME)
    finally:
        other.close()
    assert sent.rc == 0, sent.err
    assert "hail: woken:" in said(sent.err)
    assert "libtmux" in imported(sent.err), "surveyed"


def test_a_codex_without_its_daemon_has_its_empty_composer_typed_into(scene: Scene) -> None:
    """Without its daemon Codex reads its queue every 10 s: its idle, empty composer is typed into
    instead, and no `codex queue` runs (the stand-in's would fail)."""
    codex_on_record(scene, daemon=False)
    assert route_cell(scene) == "queue-10s", "seats says its queue is read every 10 s"

    sent = scene.as_pane(scene.sender, "worker", "ask", "type into the empty composer")

    assert sent.rc == 0, sent.err
    assert sent.err == f"hail: typed: into {scene.recv}\n", "no queue was tried"
    assert f"SUBMITTED [hail kind:ask from:boss/{scene.sender}" in scene.screen(scene.recv)


def test_an_opencode_plugins_send_goes_by_the_records_with_no_tmux_library(scene: Scene) -> None:
    """The plugin's prompt hook records its opencode process (the hook's parent: here this test's
    process) with its pane and server; a send to that seat leaves the wake mark from the record
    alone."""
    hook_env = {"TMUX": f"{scene.socket},1,0"}
    hooked = scene.as_pane(
        scene.recv, "deliver", "--format", "opencode", stdin='{"watching":true}', env=hook_env
    )
    assert hooked.rc == 0, hooked
    store = Store(str(scene.state))
    (plugin,) = plugin_records.plugins(store, "worker")
    assert (plugin.pid, plugin.pane, plugin.server) == (os.getpid(), scene.recv, scene.socket)

    sent = scene.as_pane(scene.sender, "worker", "ask", "are you there?", prefix=IMPORTTIME)

    assert sent.rc == 0, sent.err
    assert said(sent.err) == (
        f"hail: woken by its plugin: opencode in {scene.recv} takes it when its session is idle\n"
    )
    assert not NOT_ON_THE_RECORDS_ROUTES & imported(sent.err)
    assert (scene.state / "seats" / "worker" / "wake").read_text() == sent.id


def test_a_record_of_an_ended_claude_is_not_taken(
    scene: Scene, claude_factory: list[Claude]
) -> None:
    """A waiter record naming this pane and server whose Claude Code process has ended: the send
    surveys tmux, and the pane's own Claude, which has no waiter, is typed into."""
    claude(scene, claude_factory)
    ended = subprocess.Popen(["sleep", "60"])
    start = hails_backend().start(ended.pid)
    ended.kill()
    ended.wait()
    store = Store(str(scene.state))
    record = waiter_records.Waiter(
        ended.pid, start, ended.pid, start, ["worker"], scene.recv, server=scene.socket
    )
    waiter_records.write_waiter(store, record)
    scene.as_pane(scene.recv, "brief", "--hook")  # between turns

    sent = scene.as_pane(scene.sender, "worker", "ask", "for the live one", prefix=IMPORTTIME)

    assert "woken" not in said(sent.err), sent.err
    assert "libtmux" in imported(sent.err), "surveyed"
    assert f"hail: typed: into {scene.recv}" in said(sent.err)
