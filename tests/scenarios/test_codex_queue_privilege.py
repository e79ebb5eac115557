"""Codex's queue runs only Codex's own binary, least privileged (docs/transport.md "What the queue
runs"): a send runs outside Codex's sandbox, so nothing the sandboxed model could write
(its workspace, a wrapper, a replaced binary, a directory on the TUI's PATH) may be run by it.

Each test puts a stand-in TUI named `codex` in the pane, records its thread as hail's prompt hook
would (no daemon: the record names the TUI), and plants a program that writes a marker file if it
ever runs. The send must file the message and run nothing planted."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import time
from pathlib import Path

import pytest

from hail.store.presence import base as presence_base
from hail.store.presence import queue as queue_records
from hail.store.store import Store
from hail.transport.codex_queue import TEMP_ROOTS
from tests.real_clients.clients import REPO
from tests.scenarios.conftest import Scene
from tests.support.procs import hails_backend, wait_until

THREAD = "01a23222-0086-7e91-a994-a12591cb9434"


def planted(path: Path, marker: Path) -> Path:
    """An executable at `path` that appends its ancestry (pids, itself first) and its words to
    `marker` when it runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "#!/bin/sh\n"
        'p=$$; up=""\n'
        'while [ -n "$p" ] && [ "$p" -gt 1 ]; do up="$up,$p"; p=$(/bin/ps -o ppid= -p "$p" | tr -d " "); done\n'
        f"echo \"$up $0 $*\" >> '{marker}'\n"
    )
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
    Path(presence_base.directory(store)).mkdir(parents=True, exist_ok=True)
    thread = queue_records.Thread(
        THREAD, "worker", False, tui, procs.start(tui), scene.recv, since=time.time()
    )
    (Path(presence_base.directory(store)) / f"codex-{thread.id}").write_text(thread.text())
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
    pinned = _pinned_codex()
    if pinned is None:
        pytest.skip("the pinned Codex is not installed (tests/real_clients installs it)")
    if not _may_be_written_by_a_model(pinned, scene):
        _queue_runs_nothing_planted(scene, pinned)
        return
    # A checkout in /tmp holds the pinned Codex where a model may write, which hail rightly
    # refuses to run: the test runs its vendor directory (the binary and the resources it reads
    # beside it) where a real install lies, linked where it can be, else copied.
    where = beyond_the_model(scene)
    vendor = pinned.parent.parent
    try:
        shutil.copytree(vendor, where / vendor.name, copy_function=_link_or_copy)
        _queue_runs_nothing_planted(scene, where / vendor.name / "bin" / "codex")
    finally:
        shutil.rmtree(where, ignore_errors=True)
        with contextlib.suppress(OSError):
            where.parent.rmdir()  # when no other run uses it


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _queue_runs_nothing_planted(scene: Scene, codex: Path) -> None:
    marker = scene.root / "ran"
    bindir = scene.seat_dir("worker") / ".venv" / "bin"
    for name in ("lsb_release", "getconf", "uname", "sh"):
        planted(bindir / name, marker)
    planted(scene.seat_dir("worker") / "queue", marker)
    codex_home = scene.root / "codex-home"
    codex_home.mkdir()
    tui = tui_in_pane(
        scene,
        f"exec env PATH='{bindir}:/usr/bin:/bin' CODEX_HOME='{codex_home}' '{codex}' mcp-server",
    )
    # settled as a TUI would be before its first prompt: its state databases made
    assert wait_until(lambda: (codex_home / "state_5.sqlite").exists(), 20)

    said = send(scene)

    # It ran Codex's own binary: that refused a thread with no rollout, or, on a loaded machine,
    # ran past the queue's timeout; hail then typed nothing into the non-composer.
    ran = "codex queue exited 1" in said or f"['{codex}', 'queue'" in said
    assert ran, said
    # The TUI's own processes run what its PATH finds (the workspace chose that for itself): each
    # run's ancestry tells them apart from what the send ran.
    runs = marker.read_text().splitlines() if marker.exists() else []
    assert all(f",{tui}," in run.split()[0] + "," for run in runs), runs


def _may_be_written_by_a_model(path: Path, scene: Scene) -> bool:
    """Whether hail takes `path` for a directory a sandboxed model may write: a temporary
    directory (`codex_queue.TEMP_ROOTS`, TMPDIR) or the scene's workspaces."""
    real = os.path.realpath(path)
    roots = [*TEMP_ROOTS, os.environ.get("TMPDIR", ""), str(scene.root)]
    return any(
        r and (real == os.path.realpath(r) or real.startswith(os.path.realpath(r) + os.sep))
        for r in roots
    )


def beyond_the_model(scene: Scene) -> Path:
    """A fresh directory no model may write, as a real install's is, wherever the checkout lies:
    the checkout's `.cache`, else (a checkout in /tmp) the cache of this user's real home; the
    caller removes it."""
    home = Path(pwd.getpwuid(os.geteuid()).pw_dir)
    for base in (REPO / ".cache", home / ".cache"):
        if not _may_be_written_by_a_model(base, scene):
            return base / "hail-test-native" / scene.root.name
    pytest.skip(f"neither {REPO} nor {home} lies outside the temporary directories")


def test_a_native_codex_runs_with_a_system_path_from_the_root(scene: Scene) -> None:
    """A native binary named `codex` that, as the queue runs it, would run a script `queue` found
    in its working directory or on its PATH (a copy of bash does: `bash queue --thread …`). From
    `/` with a system PATH it finds neither the workspace's `./queue` nor `.venv/bin/queue`."""
    bash = shutil.which("bash")
    assert bash is not None
    native = beyond_the_model(scene) / "codex"
    native.parent.mkdir(parents=True)
    try:
        shutil.copy(bash, native)
        marker = scene.root / "ran"
        bindir = scene.seat_dir("worker") / ".venv" / "bin"
        planted(bindir / "queue", marker)
        planted(scene.seat_dir("worker") / "queue", marker)
        tui_in_pane(
            scene, f"exec env PATH='{bindir}:/usr/bin:/bin' '{native}' -c 'sleep 600; exit'"
        )

        said = send(scene)

        assert "codex queue exited 127" in said, said  # it ran the binary, which found no `queue`
        assert not marker.exists(), marker.read_text()
    finally:
        shutil.rmtree(native.parent)
        with contextlib.suppress(OSError):
            native.parent.parent.rmdir()  # when no other run uses it
