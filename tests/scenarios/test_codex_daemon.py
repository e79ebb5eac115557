"""A send queues to a Codex under its shared daemon by asking the daemon itself (docs/transport.md
"Codex's daemon"): `thread/queue/add` over the daemon's control socket, as `codex queue` does,
with no Codex process started. A stand-in daemon (`codex_daemon.py`) answers as the pinned one
does; the stand-in TUI is an interpreter named `codex`, so a `codex queue` run would fail and type.
The real daemon is driven by tests/real_clients/test_native_wake.py."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from hail import policy
from hail.store.presence import queue as queue_records
from hail.store.store import Store
from tests.scenarios.conftest import HERE, Scene
from tests.scenarios.test_native_routes import (
    IMPORTTIME,
    NOT_ON_THE_RECORDS_ROUTES,
    codex_on_record,
    imported,
    said,
)
from tests.support.procs import hails_backend

DAEMON = HERE / "codex_daemon.py"


class Daemon:
    """The stand-in daemon's process and what it was told."""

    def __init__(self, scene: Scene, mode: str) -> None:
        self.link = (
            scene.root / "home" / ".codex" / "app-server-control" / "app-server-control.sock"
        )
        self.log = scene.root / "daemon.jsonl"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(DAEMON),
                str(self.link),
                str(scene.root / "d.sock"),
                str(self.log),
                mode,
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline() == "LISTENING\n"

    def told(self) -> list[dict[str, object]]:
        text = self.log.read_text() if self.log.exists() else ""
        return [json.loads(line) for line in text.splitlines()]

    def end(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def daemon(request: pytest.FixtureRequest, scene: Scene) -> Iterator[Daemon]:
    d = Daemon(scene, getattr(request, "param", "queue"))
    try:
        yield d
    finally:
        d.end()


def test_a_queued_send_asks_the_daemon_itself_and_starts_no_process(
    scene: Scene, daemon: Daemon
) -> None:
    thread = codex_on_record(scene, daemon=True)

    sent = scene.as_pane(scene.sender, "worker", "ask", "is the queue quick", prefix=IMPORTTIME)

    assert sent.rc == 0, sent.err
    assert said(sent.err) == (
        f"hail: queued: Codex in {scene.recv} takes it as its next prompt; nothing typed\n"
    )
    modules = imported(sent.err)
    assert "hail.transport.codex_daemon" in modules, "the import lines are read"
    # No process is started on the /proc backend; the portable one (macOS) asks `ps` of the TUI.
    no_process = {"subprocess"} if hails_backend().name == "proc" else set()
    assert not (NOT_ON_THE_RECORDS_ROUTES | no_process) & modules, modules
    told = daemon.told()
    first, second, third = (m for m in told if "pong" not in m)
    assert first["method"] == "initialize"
    assert first["params"]["capabilities"] == {"experimentalApi": True}  # type: ignore[index]
    assert second == {"method": "initialized"}
    assert third["method"] == "thread/queue/add"
    params = third["params"]
    assert isinstance(params, dict)
    assert params["threadId"] == thread.id
    assert params["clientUserMessageId"] == f"hail-{sent.id}"
    (text_input,) = params["input"]
    envelope = text_input["text"]
    assert envelope.startswith(f"[hail kind:ask from:boss/{scene.sender} id:{sent.id}] ")
    assert "\n" not in envelope and "is the queue quick" in envelope
    assert {"pong": "are you there"} in told, "the daemon's ping was answered"
    time.sleep(0.5)
    assert "SUBMITTED" not in scene.screen(scene.recv), "nothing typed"
    assert f"{sent.id}.md" in scene.new_files("worker")


@pytest.mark.parametrize("daemon", ["refuse"], indirect=True)
def test_a_daemon_that_refuses_the_queue_has_the_envelope_typed(
    scene: Scene, daemon: Daemon
) -> None:
    codex_on_record(scene, daemon=True)

    sent = scene.as_pane(scene.sender, "worker", "ask", "queue or type")

    assert sent.rc == 0, sent.err
    assert "Codex's daemon refused the queue: thread not found; typing instead" in sent.err
    assert f"hail: typed: into {scene.recv}" in sent.err
    assert f"SUBMITTED [hail kind:ask from:boss/{scene.sender} id:{sent.id}]" in scene.screen(
        scene.recv
    )


def test_a_file_where_the_daemons_socket_goes_is_not_asked(scene: Scene) -> None:
    """No socket of the user's at the daemon's path (here a plain file): `codex queue` is run as
    before, which the stand-in TUI's binary cannot be, so the envelope is typed."""
    link = scene.root / "home" / ".codex" / "app-server-control" / "app-server-control.sock"
    link.parent.mkdir(parents=True)
    link.write_text("not a socket\n")
    codex_on_record(scene, daemon=True)

    sent = scene.as_pane(scene.sender, "worker", "ask", "queue or type")

    assert sent.rc == 0, sent.err
    assert "not Codex's own binary; typing instead" in sent.err, sent.err
    assert f"hail: typed: into {scene.recv}" in sent.err


def test_the_first_send_finds_the_tui_by_its_process_and_needs_no_tmux(
    scene: Scene, daemon: Daemon
) -> None:
    """Under the daemon no hook names the TUI: the first send finds it in the process table (the
    Codex that is its pane's agent, in the thread's seat, older than the thread), queues with no
    tmux call, and writes the TUI, its pane and its server into the thread's record."""
    thread = codex_on_record(scene, daemon=True, known=False)

    sent = scene.as_pane(scene.sender, "worker", "ask", "first ask", prefix=IMPORTTIME)

    assert sent.rc == 0, sent.err
    assert said(sent.err) == (
        f"hail: queued: Codex in {scene.recv} takes it as its next prompt; nothing typed\n"
    )
    assert not NOT_ON_THE_RECORDS_ROUTES & imported(sent.err), "no survey"
    (record,) = queue_records.threads(Store(str(scene.state)))
    tui = int(scene.server.display(scene.recv, "#{pane_pid}"))
    assert (record.id, record.tui, record.pane, record.server) == (
        thread.id,
        tui,
        scene.recv,
        scene.socket,
    )
    assert [m["method"] for m in daemon.told() if "method" in m][-1] == "thread/queue/add"


def test_a_tui_younger_than_the_thread_is_not_taken_for_its_own(
    scene: Scene, daemon: Daemon
) -> None:
    """The pane's Codex started after the thread was created (a thread of an earlier TUI): it is
    not the thread's, by the process table as by a survey, so nothing is queued to it."""
    codex_on_record(scene, daemon=True, known=False, created=time.time() - 60)

    sent = scene.as_pane(scene.sender, "worker", "ask", "whose thread", prefix=IMPORTTIME)

    assert sent.rc == 0, sent.err
    assert "libtmux" in imported(sent.err), "surveyed"
    assert f"hail: typed: into {scene.recv}" in said(sent.err)
    assert not any(m.get("method") == "thread/queue/add" for m in daemon.told())


@pytest.mark.parametrize("daemon", ["chatter"], indirect=True)
def test_a_daemon_that_never_answers_the_queue_holds_the_send_no_longer_than_its_bound(
    scene: Scene, daemon: Daemon
) -> None:
    """Notifications keep coming and the reply never does: the send ends by CODEX_QUEUE_TIMEOUT
    from its start, not per message, and types nothing, since the queue may have taken it."""
    codex_on_record(scene, daemon=True)

    started = time.monotonic()
    sent = scene.as_pane(scene.sender, "worker", "ask", "are you there")
    took = time.monotonic() - started

    assert sent.rc == 5, sent.err
    assert "not queued (Codex's daemon gave no answer once asked to queue it" in sent.err
    assert "it may be queued all the same" in sent.err
    assert took < policy.CODEX_QUEUE_TIMEOUT + 5, took
    assert "SUBMITTED" not in scene.screen(scene.recv), "nothing typed"
    assert f"{sent.id}.md" in scene.new_files("worker"), "the message waits in the inbox"


def test_two_codex_tuis_in_the_seat_are_told_apart_by_a_survey_only(
    scene: Scene, daemon: Daemon
) -> None:
    """A second Codex works in the same seat, in a pane of its own, and both started before the
    thread: the process table cannot say whose thread it is, so the send surveys tmux."""
    codex_on_record(scene, daemon=True, known=False, created=time.time() + 5)
    scene.new_pane(scene.seat_dir("worker"), str(scene.root / "bin" / "codex"))
    time.sleep(0.5)  # it runs, well before the thread's creation

    sent = scene.as_pane(scene.sender, "worker", "ask", "which of you", prefix=IMPORTTIME)

    assert "libtmux" in imported(sent.err), "surveyed"
    assert not any(m.get("method") == "thread/queue/add" for m in daemon.told()), sent.err
