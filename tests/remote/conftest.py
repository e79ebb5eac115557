"""Two machines on one host: a private sshd (tests/support/sshd.py) and, per machine, a HOME, a
state root, a tmux server and an ssh alias whose key lands in that machine's environment.

`alpha` runs `boss` (`bash --norc`), `beta` runs `worker` (`cat`, an agent under
HAIL_AGENT_COMMANDS). Each machine's hail reaches the other by its alias through
HAIL_SSH="ssh -F <config>"; `cut_off` gives beta a config where `alpha` refuses connections.
The finalizer ends every ssh master, sshd and both tmux servers, and checks none is left.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.scenarios.conftest import base_env
from tests.support.entry import HailRun, run_hail
from tests.support.procs import alive, wait_until
from tests.support.sshd import Sshd, have_sshd
from tests.support.tmux import ScratchTmux

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.tmux)
            if not have_sshd():
                item.add_marker(pytest.mark.skip(reason="needs OpenSSH's sshd and ssh"))


@dataclass
class Machine:
    """One stand-in machine: its root, environment and tmux server."""

    name: str
    root: Path
    server: ScratchTmux
    env: dict[str, str] = field(default_factory=dict)
    pane: str = ""
    #: The environment its ssh key lands in.
    landing: dict[str, str] = field(default_factory=dict)

    @property
    def state(self) -> Path:
        return self.root / "state" / "hail"

    def seat_dir(self, seat: str) -> Path:
        return self.root / seat

    def hail(
        self,
        seat: str,
        *args: str,
        stdin: str | bytes | None = None,
        env: dict[str, str] | None = None,
    ) -> HailRun:
        full = {**self.env, "TMUX_PANE": self.pane, **(env or {})}
        proc = run_hail(*args, cwd=self.seat_dir(seat), env=full, stdin=stdin, timeout=120)
        return HailRun(list(args), proc.returncode, proc.stdout, proc.stderr)

    def new_files(self, mailbox: str) -> list[str]:
        d = self.state / "seats" / mailbox / "new"
        return sorted(p.name for p in d.iterdir()) if d.is_dir() else []

    def screen(self) -> str:
        return self.server.capture(self.pane)


@dataclass
class Net:
    sshd: Sshd
    alpha: Machine
    beta: Machine
    configs: dict[str, Path] = field(default_factory=dict)

    def cut_off(self) -> None:
        """Beta can no longer reach alpha (a laptop behind NAT): its `alpha` alias is refused."""
        self.sshd.dead_alias("alpha")
        self.configs["beta"].write_text(self.sshd.aliases["alpha"] + self.sshd.aliases["beta"])


def _machine(name: str, seat: str, argv: list[str], sshd: Sshd) -> Machine:
    root = Path(tempfile.mkdtemp(prefix=f"h{name[0]}", dir="/tmp"))
    (root / "home").mkdir()
    server = ScratchTmux(base_env(root), prefix=f"hail-{name}")
    (root / seat).mkdir()
    (root / seat / ".hail-seat").write_text(f"{seat}\n")
    m = Machine(name, root, server)
    m.pane = server.new_session(root / seat, argv, width=200, height=50)
    config = sshd.dir / f"ssh-{name}.conf"
    m.env = {
        **server.env,
        "HAIL_SOCKET": server.socket,
        "HAIL_HOST": name,
        "HAIL_SSH": f"ssh -F {config}",
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
    }
    landing = {k: m.env[k] for k in ("HOME", "XDG_STATE_HOME", "PATH", "HAIL_SOCKET", "HAIL_HOST")}
    landing.update({k: m.env[k] for k in ("HAIL_SSH", "HAIL_AGENT_COMMANDS")})
    landing["HAIL_AGENT_COMMANDS"] = "bash,cat,claude"  # a stand-in Claude Code may run there
    landing.update(
        HAIL_ENVELOPE_MAX=m.env["HAIL_ENVELOPE_MAX"],
        LANG="C.UTF-8",
        TMUX_TMPDIR=m.env["TMUX_TMPDIR"],
    )
    sshd.machine(name, landing)
    m.landing = landing
    return m


@pytest.fixture
def net() -> Iterator[Net]:
    sshd = Sshd()
    machines: list[Machine] = []
    try:
        machines.append(_machine("alpha", "boss", ["bash", "--norc"], sshd))
        machines.append(_machine("beta", "worker", ["cat"], sshd))
        n = Net(sshd, machines[0], machines[1])
        for m in machines:
            n.configs[m.name] = sshd.client_config(m.name, ["alpha", "beta"])
        sshd.start()
        assert wait_until(lambda: n.beta.server.command(n.beta.pane) == "cat")
        yield n
        # One shared connection per host alias at most, whatever the test sent.
        assert len(sshd.masters()) <= len(sshd.aliases), sshd.masters()
    finally:
        left = sshd.masters() + sshd.sessions()  # sshd itself among its sessions
        sshd.stop()
        for m in machines:
            m.server.kill()
            shutil.rmtree(m.root, ignore_errors=True)
        assert left and not any(alive(p) for p in left), left
