"""hail talks only to the server it is pointed at, and `hail demo` runs end to end on its own."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.scenarios.conftest import Scene
from tests.support.entry import hail_bin


def _default_socket(scene: Scene) -> Path:
    return Path(scene.env["TMUX_TMPDIR"]) / f"tmux-{os.getuid()}" / "default"


def test_the_transport_never_reaches_a_default_server(scene: Scene) -> None:
    # TMUX is unset and TMUX_TMPDIR is private: a fallback to tmux's default server could only
    # create or reach <TMUX_TMPDIR>/tmux-<uid>/default, and nothing may.
    assert "TMUX" not in scene.env
    sent = scene.as_pane(scene.sender, "worker", "ask", "only the scratch server")
    assert sent.rc == 0, sent.err
    assert scene.wait_count(scene.recv, f"id:{sent.id}", 2)
    assert scene.as_pane(scene.sender, "read", "worker", "3").rc == 0
    assert scene.as_pane(scene.sender, "keys", "worker", "Enter").rc == 0
    assert scene.as_pane(scene.sender, "seats").rc == 0
    assert not _default_socket(scene).exists()
    # With neither HAIL_SOCKET nor TMUX, the default server is asked; none runs, so nothing is typed.
    fallback = scene.as_pane(
        scene.sender, "worker", "ask", "no server here", env={"HAIL_SOCKET": ""}
    )
    assert fallback.rc == 5
    assert "not typed (no tmux server)" in fallback.err
    assert not _default_socket(scene).exists()
    panes = scene.tmux("list-panes", "-a", "-F", "#{pane_id}").split()
    assert panes == [scene.sender, scene.recv]


def test_a_bad_hail_socket_counts_as_no_tmux_server(scene: Scene) -> None:
    bogus = scene.root / "not-a-socket"
    bogus.write_text("")
    # A known seat (it has a mailbox), so only the transport is missing.
    assert scene.as_pane(scene.sender, "worker", "announce", "known now").rc == 0
    r = scene.as_pane(scene.sender, "worker", "ask", "bad socket", env={"HAIL_SOCKET": str(bogus)})
    assert r.rc == 5
    assert "not typed (no tmux server)" in r.err
    read = scene.as_pane(scene.sender, "read", "worker", env={"HAIL_SOCKET": str(bogus)})
    assert read.rc == 1
    assert f"HAIL_SOCKET={bogus} is not a tmux socket" in read.err


@pytest.mark.parametrize("depth", ["short", "deep"])
def test_hail_demo_runs_end_to_end_and_leaves_nothing_behind(scene: Scene, depth: str) -> None:
    """Deep: a TMPDIR of 90 characters, too deep for a tmux socket on macOS (104 bytes)."""
    env = {k: v for k, v in scene.env.items() if k != "HAIL_SOCKET"}
    tmp = scene.root / "tmp"
    if depth == "deep":
        tmp = tmp / ("d" * (90 - len(str(tmp)) - 1))
        assert len(str(tmp)) == 90
    tmp.mkdir(parents=True)
    env["TMPDIR"] = str(tmp)
    proc = subprocess.run(
        [hail_bin(), "demo"],
        cwd=scene.root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "injected" in proc.stdout
    assert " injected " in proc.stdout.split("hail await", 1)[1]
    # The screens as a person sees them: the composer's no-break space is a space, not an escape.
    assert re.search(r"^     │ ❯\xa0\[hail kind:ask from:boss/%\d+ id:", proc.stdout, re.M)
    assert re.search(r"^     │ ❯\xa0\[hail kind:fyi from:worker/%\d+ id:", proc.stdout, re.M)
    assert "\\x" not in proc.stdout and "\\u" not in proc.stdout
    # The person's loop: asked, answered with --as person, the asker's wait returning it.
    person = proc.stdout.split("worker asks you, the person", 1)[1]
    assert re.search(r"fyi from:person id:\S+ re:\S+\] GO: tag it", person), person
    assert list(tmp.iterdir()) == []
    # The scene's own server and state were not used.
    assert scene.tmux("list-panes", "-a", "-F", "#{pane_id}").split() == [scene.sender, scene.recv]
    assert not scene.state.exists()


def test_hail_demo_explains_a_missing_tmux(scene: Scene) -> None:
    proc = subprocess.run(
        [hail_bin(), "demo"],
        cwd=scene.root,
        env={**scene.env, "PATH": str(scene.root / "empty-bin")},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    assert "needs tmux" in proc.stderr and "install tmux" in proc.stderr
