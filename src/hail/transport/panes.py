"""Which tmux panes run an agent, and which seat each pane works in [docs/seats.md "Agent panes"].

One `list-panes` call; one `ps` call only when some pane's current command is not already an agent
(an agent running a tool shows the tool as the current command, so its root process and that
root's direct children are checked too). A pane's seat comes from its current directory, never from
its environment: identity is the directory.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hail import policy
from hail.errors import HailError
from hail.seat import find_seat
from hail.transport.tmux import PaneRow, Tmux

DEFAULT_AGENTS = ("claude", "codex")


@dataclass(frozen=True)
class Pane:
    """A live pane: what tmux reports, the agent running there (if any) and the pane's seat."""

    id: str
    pid: int
    command: str
    in_mode: bool
    session: str
    window: str
    size: str
    path: str
    agent: str | None
    seat: str | None

    @property
    def is_codex(self) -> bool:
        return self.agent == "codex"

    @property
    def label(self) -> str:
        """`%N:<agent>`, as `hail seats` lists agents."""
        return f"{self.id}:{self.agent}"


class Panes:
    """The panes of one survey, with the seat questions routing and `hail seats` ask."""

    def __init__(self, panes: list[Pane]) -> None:
        self.panes = panes

    def get(self, pane_id: str) -> Pane | None:
        return next((p for p in self.panes if p.id == pane_id), None)

    def in_seat(self, seat: str) -> list[Pane]:
        return [p for p in self.panes if p.seat == seat]

    def agents_in(self, seat: str) -> list[Pane]:
        return [p for p in self.panes if p.seat == seat and p.agent is not None]

    def seat_names(self) -> set[str]:
        return {p.seat for p in self.panes if p.seat is not None}


def agent_commands(env: Mapping[str, str]) -> list[str]:
    """HAIL_AGENT_COMMANDS as a list; unset or blank means `claude,codex`."""
    names = [n.strip() for n in env.get("HAIL_AGENT_COMMANDS", "").split(",") if n.strip()]
    return names or list(DEFAULT_AGENTS)


def process_name(text: str) -> str:
    """The last `/` component without leading `-`: macOS prints full paths and login shells `-zsh`."""
    return text.strip().rsplit("/", 1)[-1].lstrip("-")


@dataclass(frozen=True)
class _Procs:
    names: dict[int, str]
    children: dict[int, list[int]]


def _processes(env: Mapping[str, str]) -> _Procs:
    """Every process's name and parent from one `ps`; empty when ps cannot run."""
    try:
        proc = subprocess.run(
            ["ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "comm="],
            env=dict(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=policy.PS_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return _Procs({}, {})
    names: dict[int, str] = {}
    children: dict[int, list[int]] = {}
    for line in proc.stdout.decode("utf-8", errors="replace").split("\n"):
        parts = line.split(None, 2)
        if len(parts) < 3:
            continue
        try:
            pid, ppid = int(parts[0]), int(parts[1])
        except ValueError:
            continue
        names[pid] = process_name(parts[2])
        children.setdefault(ppid, []).append(pid)
    return _Procs(names, children)


def _agent_of(row: PaneRow, commands: list[str], procs: _Procs | None) -> str | None:
    """The pane's agent: its current command, its root process, a direct child of the root, or
    a child of the root's foreground child.

    The last form is npm's Codex: the shell runs `codex`, a node script (the pane's current command
    is `node`) that starts the native `codex` binary as its own child.
    """
    current = process_name(row.command)
    if current in commands:
        return current
    if procs is None:
        return None
    root = procs.names.get(row.pid)
    if root in commands:
        return root
    children = procs.children.get(row.pid, [])
    for child in children:
        name = procs.names.get(child)
        if name in commands:
            return name
    for child in children:
        if procs.names.get(child) != current:
            continue
        for grandchild in procs.children.get(child, []):
            name = procs.names.get(grandchild)
            if name in commands:
                return name
    return None


def _seat_at(path: str, home: str | None) -> str | None:
    if not path:
        return None
    try:
        found = find_seat(path, home)
    except (HailError, OSError):
        # A pane sitting under a bad marker has no seat; it does not break the survey.
        return None
    return found.name if found is not None else None


def survey(tmux: Tmux, env: Mapping[str, str], home: str | Path | None) -> Panes:
    """Every pane with its agent and seat. Raises TmuxError when the panes cannot be listed."""
    home_dir = None if home is None else str(home)
    rows = tmux.list_panes()
    commands = agent_commands(env)
    needs_ps = any(process_name(r.command) not in commands for r in rows)
    procs = _processes(env) if needs_ps else None
    seats: dict[str, str | None] = {}
    panes: list[Pane] = []
    for row in rows:
        if row.path not in seats:
            seats[row.path] = _seat_at(row.path, home_dir)
        panes.append(
            Pane(
                row.id, row.pid, row.command, row.in_mode, row.session, row.window, row.size,
                row.path, _agent_of(row, commands, procs), seats[row.path],
            )
        )  # fmt: skip
    return Panes(panes)
