"""What every suite shares, loaded as a pytest plugin (`pytest_plugins` in tests/conftest.py).

- `hail_bin`, `run_hail` (`tests.support.entry`): the one way to find and run the installed `hail`;
- `ID`, `id_of` (`tests.support.ids`): the one message-id pattern;
- `wait_until` and the process tree (`tests.support.procs`);
- `World`, `Seats`, `SCRUBBED` (`tests.support.world`): a scratch HOME and state with two seats;
- `ScratchTmux` (`tests.support.tmux`): a private tmux server and its reaper;
- `FarSide` (`tests.support.far`): a stand-in far machine named by HAIL_SSH, answering as the test
  says (no sshd; `tests.support.sshd` is the real one);
- `page`, `sections`, `documented`, … (`tests.support.docs`): docs/ read for the drift tests;

and the fixtures: `isolated_env` and `macos_reaches` (`tests.support.macos`, which fails a test
whose hail reached /proc in a macOS-shaped run; every test, automatically), `world` and
`scratch_tmux` (whose tests are marked `tmux`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.macos import macos_reaches
from tests.support.tmux import ScratchTmux
from tests.support.world import SCRUBBED, World, clean_env

__all__ = ["macos_reaches"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "scratch_tmux" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.tmux)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test runs in a scratch world: its own HOME, XDG_STATE_HOME and no tmux of the user's."""
    for name in SCRUBBED:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def world(tmp_path: Path) -> World:
    """Seats `boss` and `worker` without tmux: HAIL_SOCKET points nowhere, sends use --no-wake."""
    w = World(tmp_path, clean_env(tmp_path))
    w.env["HAIL_SOCKET"] = "/nonexistent/socket"
    w.make_seat("boss")
    w.make_seat("worker")
    return w


@pytest.fixture
def scratch_tmux(tmp_path: Path) -> Iterator[ScratchTmux]:
    """A private tmux server, not started yet: adjust its `env`, then `new_session`. It is reaped
    at teardown whatever the test did."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    server = ScratchTmux(clean_env(tmp_path))
    try:
        yield server
    finally:
        server.kill()
