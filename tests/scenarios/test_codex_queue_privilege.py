"""Codex's queue runs only Codex's own binary, least privileged (docs/transport.md "What the queue
runs"): a send runs outside Codex's sandbox, so nothing the sandboxed model could write
(its workspace, a wrapper, a replaced binary, a directory on the TUI's PATH) may be run by it.

Each test puts a stand-in TUI named `codex` in the pane, records its thread as hail's prompt hook
would (no daemon: the record names the TUI), and plants a program that writes a marker file if it
ever runs. The send must file the message and run nothing planted."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from hail.store import presence
from hail.store.store import Store
from tests.real_clients.clients import REPO
from tests.scenarios.conftest import Scene
from tests.support.procs import hails_backend, wait_until

THREAD = "01a23222-0086-7e91-a994-a12591cb9434"


def planted(path: Path, marker: Path) -> Path:
    """An executable at `path` that appends to `marker` when it runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\n")
    path.chmod(0o755)
    return path


def tui_in_pane(scene: Scene, command: str) -> int:
    """Run `command` as the recipient pane's Codex, in its workspace; record its thread."""
    scene.env["HAIL_AGENT_COMMANDS"] = "codex"
    scene.respawn(scene.recv, scene.seat_dir("worker"), command)
    procs = hails_backend()
    assert wait_until(
        lambda: procs.comm(int(scene.server.display(scene.recv, "#{pane_pid}"))) == "codex", 10
    )
    tui = int(scene.server.display(scene.recv, "#{pane_pid}"))
    store = Store(str(scene.state))
    Path(presence.directory(store)).mkdir(parents=True, exist_ok=True)
    thread = presence.Thread(
        THREAD, "worker", False, tui, procs.start(tui), scene.recv, since=time.time()
    )
    (Path(presence.directory(store)) / f"codex-{thread.id}").write_text(thread.text())
    scene.as_pane(scene.recv, "brief", "--hook")  # between turns
    return tui


def send(scene: Scene) -> str:
    sent = scene.as_pane(scene.sender, "worker", "ask", "queue or type")
    assert sent.rc in (0, 5), sent.err
    assert f"{sent.id}.md" in scene.new_files("worker"), "the message is filed all the same"
    return sent.err


def test_a_codex_wrapper_that_does_not_exec_never_runs_the_workspaces_queue(scene: Scene) -> None:
    """`codex` is a shell script that stays the TUI process (the system's shell runs it): the
    workspace's own `./queue` must not run, as `bash queue --thread …` from there would."""
    marker = scene.root / "ran"
    planted(scene.seat_dir("worker") / "queue", marker)
    wrapper = scene.root / "wrapper" / "codex"
    wrapper.parent.mkdir()
    wrapper.write_text("#!/bin/bash\nsleep 600\n")
    wrapper.chmod(0o755)
    tui_in_pane(scene, f"exec '{wrapper}'")

    said = send(scene)

    assert "not Codex's own binary; typing instead" in said, said
    assert not marker.exists(), marker.read_text()


def test_a_replaced_codex_binary_is_never_run(scene: Scene) -> None:
    """The TUI's file was replaced while it runs, so its path reads `…/codex (deleted)`: neither
    a file of that name nor the new `codex` runs."""
    marker = scene.root / "ran"
    native = scene.root / "opt" / "codex"
    native.parent.mkdir()
    shutil.copy(shutil.which("sleep") or "/bin/sleep", native)
    tui_in_pane(scene, f"exec '{native}' 600")
    native.unlink()
    planted(native, marker)
    planted(native.parent / "codex (deleted)", marker)

    said = send(scene)

    assert "was replaced since it started; typing instead" in said, said
    assert not marker.exists(), marker.read_text()


def _pinned_codex() -> Path | None:
    found = sorted((REPO / ".cache" / "real-clients").glob("*codex*/node_modules/@openai/codex-*"))
    for package in found:
        for exe in package.glob("vendor/*/bin/codex"):
            return exe
    return None


def test_a_workspace_directory_on_the_tuis_path_runs_nothing_planted(scene: Scene) -> None:
    """The real Codex binary as the TUI, with the workspace's `.venv/bin` first on its PATH:
    `codex queue` looks up `lsb_release` and `getconf` by PATH, so it must run with a PATH of
    system directories only, from outside the workspace."""
    codex = _pinned_codex()
    if codex is None:
        pytest.skip("the pinned Codex is not installed (tests/real_clients installs it)")
    marker = scene.root / "ran"
    bindir = scene.seat_dir("worker") / ".venv" / "bin"
    for name in ("lsb_release", "getconf", "uname", "sh"):
        planted(bindir / name, marker)
    planted(scene.seat_dir("worker") / "queue", marker)
    codex_home = scene.root / "codex-home"
    codex_home.mkdir()
    tui_in_pane(
        scene,
        f"exec env PATH='{bindir}:/usr/bin:/bin' CODEX_HOME='{codex_home}' '{codex}' mcp-server",
    )

    said = send(scene)

    assert "codex queue exited 1" in said, said  # it ran, and refused a thread with no rollout
    assert not marker.exists(), marker.read_text()
