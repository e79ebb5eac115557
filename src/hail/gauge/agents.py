"""What each agent pane is on and how full its context is [docs/gauge.md "Finding an agent's
record"]: its hooks' agent record (`store/presence/agent.py`), found by its pane and tmux server, or
for a harness whose hooks name no pane (Codex under its daemon) by its seat; then its client's file
read by the gauge (`choose.reader`). `hail seats`, `hail watch` and doctor ask this one module, so
they show the same figures.

The records are read once per look (`Agents`), and the person's config is given by the caller,
which loads it once per run or session. A record not provably this agent's (written before its
process started, or one of two panes of a seat found by their seat) gives `-`, never another
agent's figures.
"""

from __future__ import annotations

from hail import policy
from hail.gauge.choose import reader
from hail.store.presence.agent import AgentRecord, records
from hail.store.presence.base import socket_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Protocol

    from hail.config import Config
    from hail.diagnosis import Compaction
    from hail.process.base import Processes

    class Surveyed(Protocol):
        """A pane as a survey of tmux found it (`transport/panes.Pane`)."""

        @property
        def id(self) -> str: ...
        @property
        def pid(self) -> int: ...
        @property
        def seat(self) -> str | None: ...
        @property
        def agent(self) -> str | None: ...

    #: When an agent's process started, and its figures.
    Started = tuple[float | None, "AgentFigures"]
    from hail.gauge.base import Gauge
    from hail.store.store import Store

# Why an agent has no gauge (its figures' own reasons are the gauge's: `gauge/base.py`).
#: No hook of its session recorded it: no prompt since hail's hooks ran, or they do not run.
NO_RECORD = "no-record"
#: The only record of its pane (or seat) was written before this agent's process started.
STALE_RECORD = "stale-record"
#: Its record names no file (its payloads name none, or named one that is not one clean path).
NO_FILE_NAMED = "no-file-named"
#: Its harness's records name no pane, and more than one pane of it works in the seat.
SHARED_SEAT = "shared-seat"
#: The person's config.toml is refused (its error says why and how to fix it): a window or price
#: it meant to give could make a figure wrong, so none is shown.
CONFIG_REFUSED = "config-refused"


class AgentFigures:
    """An agent's task line ("" unknown) and gauge (None, with `why`, when no record is its)."""

    __slots__ = ("gauge", "task", "why")

    def __init__(self, task: str = "", gauge: Gauge | None = None, why: str = NO_RECORD) -> None:
        self.task = task
        self.gauge = gauge
        self.why = "" if gauge is not None else why

    def __repr__(self) -> str:
        return f"AgentFigures({self.task!r}, {self.gauge!r}, {self.why!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AgentFigures) and self.as_json() == other.as_json()

    __hash__ = None  # type: ignore[assignment]  # compared by value, like a dict

    def as_json(self) -> dict[str, object]:
        """`task`, `gauge` (every figure with its source: `Gauge.as_json`) and `unknown`, the reason
        there is no gauge."""
        return {
            "task": self.task or None,
            "gauge": None if self.gauge is None else self.gauge.as_json(),
            "unknown": self.why or None,
        }


def figures_from_json(data: Mapping[str, object]) -> AgentFigures:
    """An agent's figures as another machine's `AgentFigures.as_json` gave them (`task`, `gauge`,
    `unknown`), every value checked (`base.gauge_from_json`); ValueError for anything else."""
    from hail.gauge.base import far_text, gauge_from_json
    from hail.task_line import task_line

    task = data.get("task")
    if task is not None and not isinstance(task, str):
        raise ValueError("a task line is a string")
    gauge = data.get("gauge")
    why = data.get("unknown")
    return AgentFigures(
        task_line(task or ""),
        None if gauge is None else gauge_from_json(gauge),
        NO_RECORD if why is None else far_text(why),
    )


class Agents:
    """The agent records as one look reads them, for the panes of the tmux server at `socket`;
    `config` the person's (None while it is refused)."""

    def __init__(self, store: Store, socket: str, config: Config | None) -> None:
        self.records = records(store)  # newest first
        self.server = socket_id(socket)
        self.config = config
        self._servers: dict[str, tuple[int, int] | None] = {}

    def figures(
        self, pane: str, seat: str, agent: str, started: float | None, alike: int = 1
    ) -> AgentFigures:
        """The figures of `agent` in `pane` (of `seat`), whose process started at `started`;
        `alike` is how many panes of that harness work in the seat."""
        found = self._record(pane, seat, agent, alike)
        if isinstance(found, str):
            return AgentFigures(why=found)
        if started is None or found.time < started - policy.AGENT_START_SLACK_SECONDS:
            return AgentFigures(why=STALE_RECORD)
        if not found.file:
            return AgentFigures(found.task, why=NO_FILE_NAMED)
        if self.config is None:
            return AgentFigures(found.task, why=CONFIG_REFUSED)
        from hail.gauge.base import Where

        where = Where(found.file, found.model, found.session)
        return AgentFigures(found.task, reader(found.agent).gauge(where, self.config))

    def of_panes(self, panes: Sequence[Surveyed], procs: Processes) -> dict[str, Started]:
        """Each agent pane of a survey (by id): when its process started, and its figures."""
        out = {}
        for p in panes:
            if p.agent is None:
                continue
            pid = procs.agent_pid(p.pid, p.agent)
            started = procs.started_at(pid) if pid is not None else None
            alike = sum(1 for q in panes if q.seat == p.seat and q.agent == p.agent)
            out[p.id] = (started, self.figures(p.id, p.seat or "", p.agent, started, alike))
        return out

    def _record(self, pane: str, seat: str, agent: str, alike: int) -> AgentRecord | str:
        """The newest record of the pane, else of a paneless harness's seat; or why there is none."""
        for record in self.records:
            if record.agent == agent and record.pane == pane and self._here(record.server):
                return record
        if not _by_seat(agent):
            return NO_RECORD
        for record in self.records:
            if record.agent == agent and not record.pane and record.seat == seat:
                return record if alike == 1 else SHARED_SEAT
        return NO_RECORD

    def _here(self, server: str) -> bool:
        """A record's server is the one looked at (by its socket, not by how it is spelled)."""
        if server not in self._servers:
            self._servers[server] = socket_id(server)
        return self.server is not None and self._servers[server] == self.server


def _by_seat(agent: str) -> bool:
    """Whether the harness's hooks run from a shared daemon, so its records name no pane."""
    from hail.harnesses import registry

    return agent in registry.NAMES and registry.get(agent).shared_daemon


def compaction(pane: str, seat: str, agent: str, figures: AgentFigures) -> Compaction | None:
    """An agent's figures as the about-to-compact rule reads them (`diagnosis.about_to_compact`);
    None when its context, window or compaction point is unknown."""
    gauge = figures.gauge
    if gauge is None or gauge.compacts_at is None:
        return None
    context, window = gauge.context.value, gauge.window.value
    if context is None or window is None:
        return None
    from hail.diagnosis import Compaction

    command = reader(agent).compact_command
    return Compaction(pane, seat, agent, context, window, gauge.compacts_at, command)
