"""Who may speak as the person [docs/seats.md "Trust boundary"]: `hail --as person` is refused in
a process hail takes for an agent's tool call, with nothing read or written (exit 7).

One rule, three checks, any of which refuses:

1. a variable an agent's harness sets in the commands its model runs is present (each harness
   declares its own: `Harness.markers`);
2. the process has no controlling terminal (`/dev/tty` cannot be opened): a person types at one;
3. a process above this one is an agent: a harness's process (a JavaScript runtime named by its
   script) or a program `HAIL_AGENT_COMMANDS` names, up the parent chain.

What passes is a process outside every agent's process tree with a terminal: not proof that a
person typed the command. An agent that starts a terminal of its own outside its tree (a `tmux
new-window`, a new terminal emulator) passes too; docs/seats.md says what would take more.
Filesystem and process table only: no subprocess on Linux (the `ps` backend runs one elsewhere).
"""

from __future__ import annotations

import os

from hail.errors import PersonError
from hail.harnesses import registry
from hail.process.base import CHAIN_MAX

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from hail.process.base import Processes


def has_terminal() -> bool:
    """Whether this process has a controlling terminal it can open."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return False
    os.close(fd)
    return True


def marker_in(env: Mapping[str, str]) -> str | None:
    """The first agent marker set in `env`, as `NAME (<harness>)`, or None."""
    for harness in registry.every():
        for name in harness.markers:
            if env.get(name):
                return f"{name} is set ({harness.title} sets it in its tool calls)"
    return None


def agent_above(env: Mapping[str, str], procs: Processes, pid: int) -> str | None:
    """The first agent process among `pid` and its ancestors, as `<name> (pid N)`, or None."""
    agents = set(registry.NAMES) | set(registry.agent_commands(env))
    for _ in range(CHAIN_MAX):
        if pid <= 1:
            return None
        name = procs.agent_name(pid)
        if name in agents:
            return f"it runs under {name} (pid {pid}), an agent"
        pid = procs.parent(pid)
    return None


def refusal(
    env: Mapping[str, str],
    procs: Processes,
    *,
    parent: int,
    terminal: Callable[[], bool] = has_terminal,
) -> str | None:
    """Why this process may not speak as the person, or None when it may."""
    # Cheapest first: a variable, one open, then the walk up the process table.
    if (marker := marker_in(env)) is not None:
        return marker
    if not terminal():
        return "it has no terminal (/dev/tty cannot be opened)"
    return agent_above(env, procs, parent)


def require_person(env: Mapping[str, str], procs: Processes) -> None:
    """Refuse `--as person` here with the reason (exit 7), before anything is read or written."""
    why = refusal(env, procs, parent=os.getppid())
    if why is not None:
        raise PersonError(
            f"--as person is refused: {why}. Only the person speaks as the person, from a "
            "terminal outside every agent; nothing was sent or read. An agent asks the person "
            "instead: hail person ask '<question>'"
        )
