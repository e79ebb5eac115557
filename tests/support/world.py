"""A scratch world without tmux: seat directories, a state root, and hail run in them."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.entry import run_hail
from tests.support.ids import id_of

#: Variables that would let a test reach the user's tmux, configs or identity.
SCRUBBED = (
    "TMUX",
    "TMUX_PANE",
    "HAIL_SOCKET",
    "HAIL_SEAT",
    "HAIL_ENVELOPE_MAX",
    "HAIL_AGENT_COMMANDS",
    "HAIL_DEBUG",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "CODEX_THREAD_ID",
    "CODEX_SESSION_ID",
    "COPILOT_HOME",
    "COPILOT_AGENT_SESSION_ID",
    # The person's own config folder (hail's config.toml, opencode's plugins): HOME's stands in.
    "XDG_CONFIG_HOME",
    # Set in an agent's tool calls (tests run from one): a hook would take itself for one.
    "CLAUDECODE",
    "CLAUDE_PROJECT_DIR",
)


def clean_env(root: Path) -> dict[str, str]:
    """This process's environment without anything of the user's tmux, configs or identity, with
    HOME and XDG_STATE_HOME under `root`; agents are `bash` and `cat`, envelopes 160 wide."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED and not k.startswith("PYTEST_")}
    env.update(
        HOME=str(root / "home"),
        XDG_STATE_HOME=str(root / "state"),
        HAIL_ENVELOPE_MAX="160",
        HAIL_AGENT_COMMANDS="bash,cat",
    )
    return env


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
    """Seat directories, a scratch state, and a way to run hail in them."""

    env: dict[str, str] = field(default_factory=dict)

    def send(
        self,
        to: str,
        kind: str,
        *args: str,
        body: str | bytes | None = None,
        cwd: str = "boss",
        known: bool = True,
    ) -> str:
        """A real send without waking anyone (`--no-wake`: exit 5); returns the printed id.

        `args` are the headline and any options, as on the command line. Without tmux a seat is
        known once it was used: `known` first runs `whoami` in the recipient's directory when it
        has no mailbox yet.
        """
        seat = to.split("@", 1)[0].split("/", 1)[0]
        if known and not (self.state / "seats" / seat).exists() and (self.root / seat).is_dir():
            self.run("whoami", cwd=seat)
        proc = self.run(to, kind, "--no-wake", *args, stdin=body, cwd=cwd)
        assert proc.returncode == 5, (proc.returncode, proc.stdout, proc.stderr)
        return id_of(proc.stdout)

    def post(self, mailbox: str, msg_id: str, body: str) -> None:
        """An unread fyi from boss filed straight into `mailbox` (a sub-seat's too, which a send
        could only make through tmux), under a fixed id that keeps a test readable."""
        from hail.message import render
        from hail.store.store import Store

        store = Store(str(self.state))
        store.reserve_id(mailbox, 0)  # ids/ exists
        os.symlink(mailbox, os.path.join(store.ids, msg_id))
        headers = {"from": "boss", "reply": "boss", "kind": "fyi", "id": msg_id, "ask": "h"}
        store.mailbox(mailbox).post(msg_id, render(headers, body), inline=False)

    def run(
        self,
        *args: str,
        cwd: str | Path = "boss",
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[str]:
        """Run the installed hail in a seat directory (or any path); stdin is /dev/null unless given."""
        where = cwd if isinstance(cwd, Path) else self.root / cwd
        return run_hail(
            *args, cwd=where, env={**self.env, **(env or {})}, stdin=stdin, timeout=timeout
        )
