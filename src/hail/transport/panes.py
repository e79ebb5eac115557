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
from hail.harnesses import registry
from hail.harnesses.registry import agent_commands
from hail.process.base import RUNTIMES
from hail.process.choose import backend
from hail.seat import seat_at
from hail.transport.tmux import PaneRow, Tmux

#: The agents hail knows: every harness, by the name its process runs under.
DEFAULT_AGENTS = registry.NAMES


@dataclass(frozen=True)
class Pane:
    """A live pane: what tmux reports, the agent running there (if any) and the pane's seat."""

    id: str
    pid: int
    command: str
    path: str
    agent: str | None
    seat: str | None
    #: The agent itself holds the terminal (not a tool it runs): only then may hail type into an
    #: agent whose screen it does not know.
    foreground: bool = True

    @property
    def is_codex(self) -> bool:
        """Its agent runs commands from one shared daemon (Codex): its TMUX_PANE is not its own."""
        return self.agent in registry.NAMES and registry.get(self.agent).shared_daemon

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


def process_name(text: str) -> str:
    """The last `/` component without leading `-`: macOS prints full paths and login shells `-zsh`."""
    return text.strip().rsplit("/", 1)[-1].lstrip("-")


@dataclass(frozen=True)
class _Procs:
    names: dict[int, str]
    parents: dict[int, int]
    children: dict[int, list[int]]
    groups: dict[int, int]  # pid -> process group
    terminal_group: dict[int, int]  # pid -> foreground process group of its terminal


def _processes(env: Mapping[str, str]) -> _Procs:
    """Every process's name, parent and groups from one `ps`; empty when ps cannot run."""
    empty = _Procs({}, {}, {}, {}, {})
    facts = backend(env)
    try:
        proc = subprocess.run(
            ["ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid=", "-o", "tpgid=", "-o", "comm="],
            env=dict(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=policy.PS_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return empty
    procs = empty
    for line in proc.stdout.decode("utf-8", errors="replace").split("\n"):
        parts = line.split(None, 4)
        if len(parts) < 5:
            continue
        try:
            pid, ppid, pgid, tpgid = (int(p) for p in parts[:4])
        except ValueError:
            continue
        name = process_name(parts[4])
        if name in RUNTIMES:
            name = facts.script_agent(pid) or name  # Gemini CLI runs as `node`
        procs.names[pid] = name
        procs.parents[pid] = ppid
        procs.groups[pid] = pgid
        procs.terminal_group[pid] = tpgid
        procs.children.setdefault(ppid, []).append(pid)
    return procs


def _agent_of(row: PaneRow, commands: list[str], procs: _Procs | None) -> tuple[str | None, bool]:
    """The pane's agent: a program named in `commands` that holds the pane's terminal.

    That is the pane's current command; else a process of the terminal's foreground process group
    (npm's Codex: the shell runs `codex`, a node script, whose child is the native `codex`); else
    an ancestor of that group's leader (an agent running a tool in a group of its own). A shell at
    its prompt holds the terminal itself: a `claude` it started in the background does not make
    the pane an agent's, or hail would type into the shell. The flag says whether the agent is in
    the foreground group itself (not only an ancestor of it).
    """
    current = process_name(row.command)
    if current in commands:
        return current, True
    if procs is None:
        return None, False
    foreground = procs.terminal_group.get(row.pid, -1)
    if foreground <= 0:
        return None, False  # no terminal known: only the current command can tell
    for pid in _tree(procs, row.pid):
        if procs.groups.get(pid) == foreground and procs.names.get(pid) in commands:
            return procs.names[pid], True
    pid = foreground
    while pid in procs.parents and pid != row.pid:
        pid = procs.parents[pid]
        if procs.names.get(pid) in commands:
            return procs.names[pid], False
    return None, False


def _tree(procs: _Procs, root: int) -> list[int]:
    """The root and its descendants, breadth first."""
    found, i = [root], 0
    while i < len(found):
        found.extend(procs.children.get(found[i], []))
        i += 1
    return found


def _seat_at(path: str, home: str | None) -> str | None:
    found = seat_at(path, home)
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
        agent, foreground = _agent_of(row, commands, procs)
        panes.append(
            Pane(row.id, row.pid, row.command, row.path, agent, seats[row.path], foreground)
        )
    return Panes(panes)
