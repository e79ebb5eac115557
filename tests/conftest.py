"""Every test runs in a scratch world: its own HOME, XDG_STATE_HOME and no tmux of the user's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

#: Variables that would let a test reach the user's tmux, configs or identity.
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
)


def hail_bin() -> str:
    """The installed `hail` entry point beside this interpreter (the venv's), else on PATH."""
    beside = Path(sys.executable).parent / "hail"
    if beside.exists():
        return str(beside)
    found = shutil.which("hail")
    if found is None:
        raise RuntimeError("the hail entry point is not installed: pip install -e .")
    return found


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
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


@dataclass
class Seats:
    """A scratch folder holding seat directories and the state root (`<root>/state/hail`)."""

    root: Path

    @property
    def state(self) -> Path:
        return self.root / "state" / "hail"

    def seat_dir(self, name: str) -> Path:
        return self.root / name

    def make_seat(self, name: str, content: str | None = None) -> Path:
        d = self.root / name
        d.mkdir(parents=True, exist_ok=True)
        (d / ".hail-seat").write_text((content if content is not None else name) + "\n")
        return d


@dataclass
class World(Seats):
    """Two seat directories, `boss` and `worker`, a scratch state, and a way to run hail in them."""

    env: dict[str, str] = field(default_factory=dict)

    def send(
        self,
        to: str,
        kind: str,
        *args: str,
        body: str | None = None,
        cwd: str = "boss",
        known: bool = True,
    ) -> str:
        """A real send without waking anyone (exit 0 or 5); returns the printed id.

        Without tmux a seat is known once it was used: `known` first runs `whoami` in the
        recipient's directory when it has no mailbox yet.
        """
        seat = to.split("@", 1)[0].split("/", 1)[0]
        if known and not (self.state / "seats" / seat).exists() and (self.root / seat).is_dir():
            self.run("whoami", cwd=seat)
        proc = self.run(to, kind, *args, "--no-wake", stdin=body, cwd=cwd)
        assert proc.returncode in (0, 5), proc.stderr
        lines = proc.stdout.splitlines()
        assert lines and lines[0].startswith("id="), proc.stdout
        return lines[0][3:]

    def run(
        self,
        *args: str,
        cwd: str | Path = "boss",
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[str]:
        """Run the installed hail; stdin is /dev/null unless given."""
        full_env = {**self.env, **(env or {})}
        where = cwd if isinstance(cwd, Path) else self.root / cwd
        data = stdin.encode() if isinstance(stdin, str) else stdin
        proc = subprocess.run(
            [hail_bin(), *args],
            cwd=where,
            env=full_env,
            input=data,
            stdin=None if data is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
        return subprocess.CompletedProcess(
            proc.args,
            proc.returncode,
            proc.stdout.decode("utf-8", errors="replace"),
            proc.stderr.decode("utf-8", errors="replace"),
        )


def send(world: World, kind: str, headline: str, body: str | None = None, *opts: str) -> str:
    """A real send from boss to worker without waking anyone; returns the id."""
    return world.send("worker", kind, headline, *opts, body=body)


@pytest.fixture
def world(tmp_path: Path) -> World:
    """SPEC §14's harness without tmux: HAIL_SOCKET points nowhere, sends use --no-wake."""
    w = World(tmp_path)
    w.env = {
        k: v for k, v in os.environ.items() if k not in SCRUBBED and not k.startswith("PYTEST_")
    }
    w.env.update(
        HOME=str(tmp_path / "home"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        HAIL_ENVELOPE_MAX="160",
        HAIL_AGENT_COMMANDS="bash,cat",
        HAIL_SOCKET="/nonexistent/socket",
    )
    w.make_seat("boss")
    w.make_seat("worker")
    return w
