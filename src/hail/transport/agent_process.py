"""The process of an agent running in a pane: its pid, when it started, and its environment.

Read from /proc (Linux). Elsewhere every answer is None, and the checks that need one are skipped.
"""

from __future__ import annotations

import os


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return tree
    for name in entries:
        if not name.isdigit():
            continue
        stat = _stat_fields(int(name))
        if stat is not None:
            tree.setdefault(int(stat[1]), []).append(int(name))
    return tree


def _stat_fields(pid: int) -> list[str] | None:
    """`/proc/<pid>/stat` from the state field on (the name may hold spaces and parentheses)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


#: JavaScript runtimes: an agent run by one has the runtime's process name, and is told by its
#: script [docs/seats.md "Agent panes"].
RUNTIMES = frozenset({"node", "nodejs", "bun"})
#: An agent's script (the last part of its path) → the agent: Gemini CLI is `node …/bin/gemini`.
SCRIPT_AGENTS = {"gemini": "gemini", "gemini.js": "gemini"}


def script_agent(pid: int) -> str | None:
    """The agent a JavaScript runtime process runs, from its command line (Linux), or None."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return None
    # The first argument that is not an option of the runtime is the script.
    script = next((a for a in argv[1:] if a and not a.startswith(b"-")), b"")
    return SCRIPT_AGENTS.get(os.fsdecode(script).rsplit("/", 1)[-1])


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
            name = f.read().strip()
    except OSError:
        return ""
    return (script_agent(pid) or name) if name in RUNTIMES else name


def agent_pid(pane_pid: int, agent: str) -> int | None:
    """The first process named `agent` at or below the pane's root process, breadth first."""
    if _name(pane_pid) == agent:
        return pane_pid
    tree = _children()
    queue = list(tree.get(pane_pid, []))
    while queue:
        pid = queue.pop(0)
        if _name(pid) == agent:
            return pid
        queue.extend(tree.get(pid, []))
    return None


def started_at(pid: int) -> float | None:
    """When the process started, in seconds since the epoch."""
    fields = _stat_fields(pid)
    if fields is None or len(fields) < 20:
        return None
    try:
        with open("/proc/stat", encoding="ascii") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith("btime "))
        ticks = os.sysconf("SC_CLK_TCK")
        return boot + int(fields[19]) / ticks  # field 22 of the whole line: starttime
    except (OSError, StopIteration, ValueError):
        return None


def environment(pid: int) -> dict[str, str] | None:
    """The process's environment as it was started (None when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    env: dict[str, str] = {}
    for item in raw.split(b"\0"):
        key, eq, value = item.partition(b"=")
        if eq:
            env[os.fsdecode(key)] = os.fsdecode(value)
    return env
