"""What hail asks of processes, whichever backend answers [docs/transport.md "Processes"].

A backend answers the primitive questions (a pid's start, parent, arguments, name, the process
tree, its start as a time, executable, working directory, environment); the questions the routes
ask are answered here from those, the same way for both: whether a pid is still the process a
record names, whether one descends from another, the agent under a pane, whether a pid is hail's
waiter of a Claude Code process.

A process is named by its pid and its *start identity*, a string its backend reads the same for
as long as that process runs, and never for another process that gets its pid. The two backends
write it differently (`/proc`: clock ticks since boot; `ps`: `ps:` and the start second), so a
record is only ever checked by the machine's own backend, the one that wrote it.
"""

from __future__ import annotations

import os

from hail.harnesses import registry

#: JavaScript runtimes: an agent run by one has the runtime's process name, and is told by its
#: script [docs/seats.md "Agent panes"].
RUNTIMES = frozenset({"node", "nodejs", "bun"})
#: What an executable's path ends with once its file was removed or replaced (Linux's words).
DELETED = " (deleted)"
#: How far up a parent chain is followed (a pane's shell, its agent, a hook's shell, a hook).
CHAIN_MAX = 64


def script_agent_of(args: list[str]) -> str | None:
    """The agent a JavaScript runtime's arguments run: the first that is not an option is the
    script, named by the last part of its path in a harness's `scripts` (Gemini CLI is
    `node …/bin/gemini`)."""
    script = next((a for a in args[1:] if a and not a.startswith("-")), "")
    found = registry.by_script(script.rsplit("/", 1)[-1])
    return found.name if found is not None else None


class Processes:
    """The questions; a backend subclass answers the primitive ones."""

    #: The backend's name, as `hail doctor` prints it.
    name = ""

    # --- primitives (each backend) ------------------------------------------------------------

    def start(self, pid: int) -> str:
        """The process's start identity, "" when there is no such process (or a zombie)."""
        raise NotImplementedError

    def parent(self, pid: int) -> int:
        """The parent's pid, 0 when unknown."""
        raise NotImplementedError

    def args(self, pid: int) -> list[str]:
        """The process's arguments, [] when they cannot be read."""
        raise NotImplementedError

    def comm(self, pid: int) -> str:
        """The process's own name (`comm`), "" when it cannot be read."""
        raise NotImplementedError

    def children(self) -> dict[int, list[int]]:
        """Every process's children, by parent pid."""
        raise NotImplementedError

    def started_at(self, pid: int) -> float | None:
        """When the process started, in seconds since the epoch."""
        raise NotImplementedError

    def executable(self, pid: int) -> str | None:
        """The path of the file the process runs, as the system names it (on Linux a replaced
        file's path ends ` (deleted)`), None when it cannot be read."""
        raise NotImplementedError

    def cwd(self, pid: int) -> str | None:
        """The process's working directory, None when it cannot be read."""
        raise NotImplementedError

    def environment(self, pid: int) -> dict[str, str] | None:
        """The process's environment as it was started, None when it cannot be read."""
        raise NotImplementedError

    def own_start(self) -> int | None:
        """This process's start in clock ticks since boot (the Stop guard's clock), None where
        the backend cannot say it without a subprocess."""
        return None

    # --- the questions the routes ask ---------------------------------------------------------

    def is_running(self, pid: int, start: str) -> bool:
        """Whether the process `pid` that started at `start` still runs."""
        return bool(start) and pid > 0 and self.start(pid) == start

    def descends_from(self, pid: int, ancestor: int) -> bool:
        """Whether `ancestor` is `pid` or one of its ancestors (a pane's process and its agent)."""
        for _ in range(CHAIN_MAX):
            if pid == ancestor:
                return True
            if pid <= 1:
                return False
            pid = self.parent(pid)
        return False

    def agent_name(self, pid: int) -> str:
        """The process's name, a JavaScript runtime's named by the agent script it runs."""
        name = self.comm(pid)
        if name in RUNTIMES:
            return script_agent_of(self.args(pid)) or name
        return name

    def script_agent(self, pid: int) -> str | None:
        """The agent a JavaScript runtime process runs, from its command line, or None."""
        return script_agent_of(self.args(pid))

    def agent_pid(self, pane_pid: int, agent: str) -> int | None:
        """The first process named `agent` at or below the pane's root process, breadth first."""
        if self.agent_name(pane_pid) == agent:
            return pane_pid
        tree = self.children()
        queue = list(tree.get(pane_pid, []))
        for _ in range(10_000):
            if not queue:
                break
            pid = queue.pop(0)
            if self.agent_name(pid) == agent:
                return pid
            queue.extend(tree.get(pid, []))
        return None

    def pids_of(self, agent: str) -> list[int]:
        """Every process of `agent` (named as `agent_name` names it), lowest pid first."""
        tree = self.children()
        pids = set(tree).union(*tree.values())
        return [pid for pid in sorted(pids) if self.agent_name(pid) == agent]

    def is_waiter_of(self, pid: int, claude: int) -> bool:
        """Whether `pid` is a `hail listen` whose parent chain leads to the Claude Code process
        `claude`: what a waiter record must name before a send signals it."""
        args = self.args(pid)
        if pid == claude or "listen" not in args:
            return False
        before = args[: args.index("listen")]
        # Its console script (`…/bin/hail`), or `python -m hail`: a word `hail` before the verb.
        named = any(os.path.basename(a) == "hail" for a in before)
        return named and self.descends_from(pid, claude)
