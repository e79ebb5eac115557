"""The panes as `hail watch` sees them: every pane with its seat, agent and screen class, and the
jump to a pane [docs/watch.md "Panes and screens"].

Cheap to repeat: one `list-panes` per look; the survey that finds agents (and may run `ps`) runs
again only when that list changed; every agent's screen is captured in one tmux call. A screen is
classified as a send would judge it (`transport/screen.py`), so watch shows what a send would do.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from hail.gauge.agents import AgentFigures
from hail.process.choose import backend
from hail.transport import screen
from hail.transport.panes import DEFAULT_AGENTS, Pane, Panes, survey
from hail.transport.routes import registry as routes
from hail.transport.tmux import Tmux, TmuxError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from hail.context import Ctx
    from hail.transport.tmux import PaneRow

#: The route of an agent watch knows only by its screen: typing's word.
TYPED = routes.get(routes.TYPING).shown
#: What watch shows for a screen class, where it differs (as `hail seats` does).
SHOWN_STATE = {screen.QUEUED: "busy", screen.NONE: "other"}


@dataclass(frozen=True, slots=True)
class PaneState:
    """A live pane: its seat, the agent in it (if any), that agent's screen, and when it started."""

    id: str
    seat: str | None
    agent: str | None
    state: str  # idle busy draft dialog other, `?` for a screen hail does not know, "" for no agent
    foreground: bool
    started: float | None
    #: How a send would wake it now (`routes/status`): wake, queue, hooks, plugin or type.
    route: str = ""
    #: That route reaches it without typing (None: watch does not know its route).
    native: bool | None = None
    #: Its task line and context gauge (`gauge/agents.py`), read at every look.
    figures: AgentFigures = field(default_factory=AgentFigures)


@dataclass(frozen=True, slots=True)
class TmuxState:
    """One look at the tmux server; `error` says why there is none ("" when it answered);
    `config_refused`, why the person's config.toml is refused (no gauge is shown meanwhile)."""

    source: str
    panes: tuple[PaneState, ...]
    error: str = ""
    config_refused: str = ""


class Surveyor:
    """Looks at the panes again and again, redoing only what changed since the last look."""

    def __init__(self, env: Mapping[str, str], home: str | None, ctx: Ctx | None = None) -> None:
        from hail.config import Followed

        self.env = env
        self.ctx = ctx
        self.home = home
        #: The person's config, loaded once and again when it changes [docs/gauge.md "Config"].
        self.config = Followed(env)
        self._rows: list[PaneRow] | None = None
        self._panes: Panes | None = None
        self._started: dict[tuple[str, int], float | None] = {}

    def look(self) -> TmuxState:
        try:
            tmux = Tmux.from_env(self.env)
            rows = tmux.list_panes()
            if rows != self._rows or self._panes is None:
                self._panes = survey(tmux, self.env, self.home)
                self._rows = rows
        except TmuxError as err:
            self._rows = self._panes = None
            return TmuxState("", (), err.message)
        panes = self._panes.panes
        known = [p.id for p in panes if p.agent in DEFAULT_AGENTS]
        screens = _screens(tmux, known)
        figures = self._figures(tmux)
        out = []
        for p in panes:
            state = ""
            if p.agent is not None:
                verdict = screens.get(p.id)
                state = "?" if verdict is None else SHOWN_STATE.get(verdict.state, verdict.state)
            route, native = self._route(p)
            started = self._start(p)
            looked = PaneState(p.id, p.seat, p.agent, state, p.foreground, started, route, native)
            out.append(figures(looked, panes))
        return TmuxState(tmux.source, tuple(out), config_refused=self.config.refused)

    def _figures(self, tmux: Tmux) -> Callable[[PaneState, list[Pane]], PaneState]:
        """What adds an agent pane's task line and gauge, read afresh at this look from its agent
        record and its client's file (`gauge/agents.py`); without a context, nothing."""
        if self.ctx is None:
            return lambda pane, _: pane
        from hail.gauge.agents import Agents
        from hail.transport.tmux import default_socket

        agents = Agents(self.ctx.store, tmux.socket or default_socket(self.env), self.config.look())

        def add(pane: PaneState, panes: list[Pane]) -> PaneState:
            if pane.agent is None:
                return pane
            alike = sum(1 for q in panes if q.seat == pane.seat and q.agent == pane.agent)
            found = agents.figures(pane.id, pane.seat or "", pane.agent, pane.started, alike)
            return replace(pane, figures=found)

        return add

    def _route(self, pane: Pane) -> tuple[str, bool | None]:
        """The agent's route from hail's own records (no screen), when watch has a context, and
        whether it is native."""
        from hail.transport.routes.status import status

        if pane.agent is None:
            return "", None
        if self.ctx is None or pane.seat is None:
            return "", None

        found = status(self.ctx, pane, pane.seat)
        return found.word, found.native

    def _start(self, pane: Pane) -> float | None:
        """When the pane's agent process started (read once per pane process)."""
        if pane.agent is None:
            return None
        key = (pane.id, pane.pid)
        if key not in self._started:
            procs = self.ctx.procs() if self.ctx is not None else backend(self.env)
            pid = procs.agent_pid(pane.pid, pane.agent)
            self._started[key] = procs.started_at(pid) if pid is not None else None
        return self._started[key]


def _screens(tmux: Tmux, panes: list[str]) -> dict[str, screen.Verdict]:
    """Each pane's screen class, from one tmux call; a pane that cannot be captured is left out."""
    if not panes:
        return {}
    try:
        captured = tmux.capture_screens(panes)
    except TmuxError:  # a pane closed meanwhile ends the one call: capture one at a time
        captured = {}
        for pane in panes:
            try:
                captured[pane] = tmux.capture(pane, attributes=True)
            except TmuxError:
                continue
    return {pane: screen.classify(lines) for pane, lines in captured.items()}


def inside_tmux(env: Mapping[str, str]) -> bool:
    """Whether this process runs in a tmux client's pane, whose client a jump can switch."""
    return bool(env.get("TMUX"))


def jump(env: Mapping[str, str], pane: str) -> str:
    """Bring `pane` up in the tmux client watch runs in; what happened, as one line."""
    if not inside_tmux(env):
        return (
            f"not inside tmux, so there is no client to switch: attach with tmux attach, "
            f"then go to {pane} (hail watch jumps when it runs in a tmux pane)"
        )
    try:
        tmux = Tmux.from_env(env)
        tmux.select(pane)
    except TmuxError as err:
        return f"cannot jump to {pane}: {err.message}"
    try:
        tmux.switch_client(pane)
    except TmuxError as err:  # a server no client is attached to: the selection still holds
        return f"selected {pane} in its window, but no client was switched: {err.message}"
    return f"jumped to {pane}"
