"""What every wake route answers [docs/transport.md "Routes"]: one module of this package per way
a filed message reaches an agent's session (its harness record names it: `Harness.route`), each
behind the two small classes here.

- A `Route` says how its agents are found and whether the route is live: from a surveyed pane
  (`find`), or from hail's records alone (`sessions`); what `hail seats` calls it; and what doctor
  notes of an agent it cannot reach natively.
- A `Session` is one live session the route reaches: whether it is between turns (the last hook
  was a Stop that let its turn end, or a SessionStart), how it takes a wake, the line the send
  then says, and what `hail seats` shows for it.

What its hooks record for it is its record module in `store/presence/` (the hooks may not import
transport). The decision among routes, and the fallback to typing, is `routes/decision.py`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from hail.context import Ctx
    from hail.process.base import Processes
    from hail.store.store import Store
    from hail.transport.panes import Pane
    from hail.transport.resolve import Recipient
    from hail.transport.screen import Verdict
    from hail.transport.tmux import Tmux
    from hail.transport.wake import WakeResult

    class Filing(Protocol):
        """A control kind's filing `inline` (`decision.InlineFiling`)."""

        def file(self) -> None: ...
        def undo(self) -> None: ...

    class Hands(Protocol):
        """What a route does to panes (`decision.Hands`)."""

        def read(self, tmux: Tmux, pane: str) -> Verdict | None: ...
        def type(
            self,
            tmux: Tmux,
            pane: Pane,
            line: str,
            verdict: Verdict | None,
            *,
            submit: bool,
            before_enter: Callable[[], None] | None,
        ) -> WakeResult: ...

    class Wake(Protocol):
        """The filed message a route takes (`decision.Wake`)."""

        ctx: Ctx
        to: Recipient
        kind: str
        msg_id: str
        line: str
        submit: bool

        @property
        def hands(self) -> Hands: ...
        def inline(self) -> Filing | None: ...
        def not_woken(self, verb: str, reason: str) -> int: ...
        def busy(self) -> None: ...
        def hooks_live(self) -> bool: ...

    class Records(Protocol):
        """hail's records as one send reads them (`records.Records`)."""

        store: Store
        procs: Processes
        home: str | None


#: What `hail seats` shows for an agent whose native route is live but whose turn runs: its
#: PostToolUse and Stop hooks carry the mail, and the send's report opens with BUSY.
HOOKS = "hooks"
BUSY = "busy"


class NotWoken(Exception):
    """The route took nothing and nothing may be typed instead: the send exits 5, saying it was
    not `verb` (typed, woken, queued) and why."""

    def __init__(self, verb: str, reason: str) -> None:
        super().__init__(reason)
        self.verb = verb
        self.reason = reason


class Session:
    """One agent session a native route reaches: the route, its surveyed pane (None when hail's
    records alone found it), that pane's id, and the tmux server its record names."""

    __slots__ = ("pane", "pane_id", "route", "server")

    def __init__(
        self, route: Route, pane: Pane | None, pane_id: str = "", server: str = ""
    ) -> None:
        self.route = route
        self.pane = pane
        self.pane_id = pane.id if pane is not None else pane_id
        self.server = server

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.pane_id!r})"

    def mailboxes(self) -> list[str]:
        """The mailboxes the session's hooks read."""
        return []

    def turn_mailbox(self, mailbox: str) -> str:
        """The mailbox whose marks the session's hooks keep."""
        return mailbox

    def between_turns(self, ctx: Ctx, mailbox: str) -> bool:
        """The session's last hook was a Stop that let its turn end, or a SessionStart."""
        return ctx.store.mailbox(self.turn_mailbox(mailbox)).turn_ending()

    def wakes_now(self, ctx: Ctx) -> bool:
        """Its wake works now, as far as the records tell (a waiter listens)."""
        return True

    def serves_sub_seats(self) -> bool:
        """Found by the records alone, it may take a send to a sub-seat (`<seat>@%N`)."""
        return False

    def types_when_idle(self) -> bool:
        """Into an idle, empty composer typing is quicker than this route (Codex without its
        daemon reads its queue every 10 s): the send types there, and takes the route only over
        anything else."""
        return False

    def learn(self, ctx: Ctx) -> None:
        """Write what a survey found into the session's record, so the next send needs none."""

    def take(self, wake: Wake) -> str:
        """Wake the session for this filed message: "" once taken, else why not (the send then
        types instead); NotWoken when nothing may be typed either."""
        raise NotImplementedError

    def line(self, mailbox: str) -> str:
        """What the send says once the route took it."""
        raise NotImplementedError

    def shown(self, ctx: Ctx) -> str:
        """What `hail seats` shows for the session between turns."""
        return self.route.shown


class Route:
    """One way a send wakes an agent. `name` is its module's name and what harness records call it;
    `shown` is what `hail seats` and `hail watch` show; `took`, what the send's report opens with."""

    name = ""
    shown = ""
    took = ""
    #: Its agent wakes itself when mail comes (a plugin inside it): no turn is judged, and nothing
    #: is ever typed into it.
    wakes_itself = False
    #: It reaches a session without typing.
    native = True

    def find(self, ctx: Ctx, pane: Pane, mailbox: str) -> Session | None:
        """The live session of this route in a surveyed pane, for a send to `mailbox`."""
        return None

    def sessions(self, records: Records, mailbox: str | None) -> list[Session] | None:
        """The running sessions hail's records name for `mailbox` (every mailbox for None), or None
        when the records cannot tell without tmux."""
        return []

    def notes(self, ctx: Ctx, pane: Pane, started: float) -> list[str]:
        """What doctor notes of an agent of this route, started at `started`, that a send cannot
        reach natively."""
        return []
