"""End-to-end tests of hail against the real Claude Code, Codex, Gemini CLI and opencode TUIs.

Opt-in: they run only with ``HAIL_REAL_CLIENTS=1`` (CI sets it) and are skipped otherwise::

    HAIL_REAL_CLIENTS=1 .venv/bin/pytest tests/real_clients -v

The first run installs the client versions pinned in ``versions.json`` from the npm registry
into ``.cache/real-clients/`` (about 1.1 GB, under a minute); later runs reuse it. With
``HAIL_REAL_CLIENTS_LATEST=1`` the newest published versions are installed instead (a drift
check). Needs node/npm, tmux and python3 on PATH; no network beyond the npm registry: every
model API is a stdlib fake on 127.0.0.1 (``fake_anthropic.py``, ``fake_openai.py``,
``fake_gemini.py``, and ``fake_chat.py`` for opencode's OpenAI-compatible provider).

Each test gets its own HOME, XDG_STATE_HOME, fake servers and ``tmux -L <unique>`` server, with
hail's hooks installed by ``hail setup --yes --trust-codex`` next to a recording probe hook,
and ends all of it by pid. ``test_harness.py`` checks the harness itself with the probe hook
only, so a failure there is the harness's or the clients', never hail's.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from .clients import install, pinned_versions
from .world import World

HERE = Path(__file__).resolve().parent
ENABLED = os.environ.get("HAIL_REAL_CLIENTS") == "1"


@pytest.hookimpl(tryfirst=True)  # mark before ``-m`` deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason="real-client tests are opt-in: set HAIL_REAL_CLIENTS=1")
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.real_clients)
            if not ENABLED:
                item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call":
        item.stash[FAILED] = report.failed
    return report


FAILED = pytest.StashKey[bool]()


@pytest.fixture(scope="session")
def client_bin() -> Path:
    """The directory holding the pinned ``claude`` and ``codex``."""
    return install(pinned_versions())


def _world(request: pytest.FixtureRequest, world: World) -> Iterator[World]:
    try:
        yield world
    finally:
        if request.node.stash.get(FAILED, False):
            print("\n" + world.report())
        leftovers = world.close()
    assert not leftovers, f"processes outlived the test (killed): {leftovers}"


@pytest.fixture
def world(request: pytest.FixtureRequest, tmp_path: Path, client_bin: Path) -> Iterator[World]:
    """A world with hail's hooks installed by ``hail setup``."""
    yield from _world(request, World(tmp_path / "rc", client_bin))


@pytest.fixture
def spaced_world(
    request: pytest.FixtureRequest, tmp_path: Path, client_bin: Path
) -> Iterator[World]:
    """A world whose state root (XDG_STATE_HOME) holds a space."""
    yield from _world(request, World(tmp_path / "rc", client_bin, state_name="state with space"))


@pytest.fixture
def sandbox_world(request: pytest.FixtureRequest, client_bin: Path) -> Iterator[World]:
    """A world whose state is where a user's is (~/.local/state) and whose whole tree lies outside
    /tmp: Codex's default sandbox lets a command write its workspace, /tmp and $TMPDIR only, so
    nothing of hail's state is writable from inside it (pytest's tmp_path is under /tmp)."""
    root = Path("/var/tmp") / f"hail-rc-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        yield from _world(request, World(root / "rc", client_bin, home_state=True))
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def unset_world(
    request: pytest.FixtureRequest, tmp_path: Path, client_bin: Path
) -> Iterator[World]:
    """A world with hail on PATH and the probe hooks, but no hooks of hail's installed yet."""
    yield from _world(request, World(tmp_path / "rc", client_bin, setup=False))


@pytest.fixture
def bare_world(request: pytest.FixtureRequest, tmp_path: Path, client_bin: Path) -> Iterator[World]:
    """A world without hail: only the probe hook, which also adds a context marker."""
    yield from _world(
        request, World(tmp_path / "rc", client_bin, with_hail=False, probe_context=True)
    )


@pytest.fixture(params=["claude", "codex"])
def client(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["claude", "codex", "codex-daemon"])
def kind(request: pytest.FixtureRequest) -> str:
    """A client and how it runs: Claude Code, Codex without its daemon, Codex with it (plain
    `codex`, as users run it)."""
    return str(request.param)


@pytest.fixture(params=["claude", "codex-daemon", "codex", "opencode"])
def send_to_model_kind(request: pytest.FixtureRequest) -> str:
    """Every client a send wakes with nothing typed, and Codex without its daemon (typed)."""
    return str(request.param)


@pytest.fixture
def typing_world(
    request: pytest.FixtureRequest, tmp_path: Path, client_bin: Path
) -> Iterator[World]:
    """A world whose Claude Code settings predate the waiter: hail's hooks without `hail listen`."""
    yield from _world(request, World(tmp_path / "rc", client_bin, waiter=False))
