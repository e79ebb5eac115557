"""Where this process runs, read once from the environment: state, directory, pane, harness, cap.

Everything below takes a `Ctx` (or an env mapping) instead of reading os.environ itself, so a test
needs only a temp directory and an environment. On the hook path: plain classes, string paths.
"""

from __future__ import annotations

import os
import time

from hail import policy
from hail.errors import StateError
from hail.seat import Seat, no_seat_error, person_seat, seat_of
from hail.store.store import Store, state_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hail.process.base import Processes


def cap_from(value: str | None) -> int:
    """HAIL_ENVELOPE_MAX when it is an integer of at least MIN_ENVELOPE_MAX (lowered to
    MAX_ENVELOPE_MAX), else DEFAULT_ENVELOPE_MAX."""
    if value is not None:
        try:
            n = int(value.strip())
        except ValueError:
            return policy.DEFAULT_ENVELOPE_MAX
        if n >= policy.MIN_ENVELOPE_MAX:
            return min(n, policy.MAX_ENVELOPE_MAX)
    return policy.DEFAULT_ENVELOPE_MAX


def _cwd() -> str:
    try:
        return os.getcwd()
    except FileNotFoundError:
        raise StateError(
            "the current directory no longer exists; cd into your workspace and run hail again"
        ) from None


def in_tool_call(env: Mapping[str, str]) -> bool:
    """Whether this process runs inside a command an agent's model ran (a tool call), rather than
    as a hook its harness ran [docs/conversations.md "Person prompts"].

    Codex exports CODEX_THREAD_ID and CODEX_SESSION_ID to every command its model runs and to no
    hook, Copilot CLI COPILOT_AGENT_SESSION_ID; Claude Code sets CLAUDECODE=1 for both, and
    CLAUDE_PROJECT_DIR for hooks only.
    """
    if env.get("CODEX_THREAD_ID") or env.get("CODEX_SESSION_ID"):
        return True
    if env.get("COPILOT_AGENT_SESSION_ID"):
        return True
    return bool(env.get("CLAUDECODE")) and not env.get("CLAUDE_PROJECT_DIR")


class Ctx:
    __slots__ = (
        "_procs",
        "_seat",
        "_seat_done",
        "as_person",
        "born",
        "cap",
        "cwd",
        "env",
        "home",
        "in_tool_call",
        "pane",
        "run_by_codex",
        "store",
    )

    def __init__(
        self,
        env: Mapping[str, str],
        cwd: str,
        home: str | None,
        store: Store,
        pane: str,
        run_by_codex: bool,
        cap: int,
        *,
        as_person: bool = False,
    ) -> None:
        self.env = env
        self.cwd = cwd
        self.home = home
        self.store = store
        self.pane = pane
        self.run_by_codex = run_by_codex
        self.cap = cap
        self.in_tool_call = in_tool_call(env)
        #: `hail --as person` was given and allowed: this process speaks as the person's seat.
        self.as_person = as_person
        self._seat: Seat | None = None
        self._seat_done = False
        self._procs: Processes | None = None
        #: When this command began (before stdin was read): a default wait counts from here.
        self.born = time.time()

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        *,
        as_person: bool = False,
    ) -> Ctx:
        """The context of this process; `cwd` names the directory it acts for when that is not
        its own (a hook of a harness that runs its hooks elsewhere: `PayloadFields.cwd`);
        `as_person` only once `person.require_person` allowed it."""
        env = os.environ if env is None else env
        return cls(
            env=env,
            cwd=_cwd() if cwd is None else cwd,
            home=env.get("HOME") or None,
            store=Store(state_root(env)),
            pane=env.get("TMUX_PANE", ""),
            run_by_codex=bool(env.get("CODEX_THREAD_ID") or env.get("CODEX_SESSION_ID")),
            cap=cap_from(env.get("HAIL_ENVELOPE_MAX")),
            as_person=as_person,
        )

    def default_wait(self) -> float:
        """The longest wait that ends inside the caller's tool call (see policy)."""
        if self.run_by_codex:
            return policy.AWAIT_DEFAULT_TIMEOUT_CODEX
        return policy.AWAIT_DEFAULT_TIMEOUT

    def now(self) -> float:
        return time.time()

    def procs(self) -> Processes:
        """What answers questions about processes here (`process/choose.py`), chosen once."""
        if self._procs is None:
            from hail.process.choose import backend

            self._procs = backend(self.env)
        return self._procs

    def seat(self) -> Seat | None:
        """The seat of the working directory (or HAIL_SEAT); raises on a bad name."""
        if not self._seat_done:
            # The person's seat only when asked for: no directory or variable gives it.
            self._seat = (
                person_seat(self.cwd) if self.as_person else seat_of(self.cwd, self.home, self.env)
            )
            self._seat_done = True
        return self._seat

    def seat_here(self) -> Seat:
        """The seat, checked: exit 3 when there is none or another root holds its name, 1 when
        its state is another user's. Writes nothing: a verb that binds the seat calls `bind`."""
        found = self.seat()
        if found is None:
            raise no_seat_error(self.cwd)
        self.store.check_trusted(self.reading_mailboxes(found))
        self.store.check_binding(found)
        return found

    def bind(self, seat: Seat) -> None:
        """Bind the seat to its directory on first use, the state root made for it; refuse a
        second directory under its name. A HAIL_SEAT seat is only checked: it writes nothing,
        not even the root."""
        if seat.bindable:
            self.store.ensure()
        self.store.bind(seat)

    def require_seat(self) -> Seat:
        """Resolve and bind: `seat_here`, then `bind`, for a verb that binds the seat it runs in."""
        found = self.seat_here()
        self.bind(found)
        return found

    def reading_mailboxes(self, seat: Seat, *, shared_daemon: bool = False) -> list[str]:
        """The mailboxes this process reads: its pane's sub-seat first (when it exists), then the seat.

        Codex runs every command from one shared daemon whose TMUX_PANE is another pane's, so a
        process run by Codex, or a hook of a harness with such a daemon (`--format codex`), reads
        only the seat [docs/seats.md "Shared directories and sub-seats"].
        """
        sub = "" if shared_daemon or seat.is_person else self.sub_seat(seat)
        if sub and self.store.mailbox(sub).exists():
            return [sub, seat.name]
        return [seat.name]

    def sub_seat(self, seat: Seat) -> str:
        """This pane's sub-seat of `seat` (`<seat>@<pane>`), whether or not its mailbox exists yet;
        "" for a process with no pane of its own (none, or Codex's shared daemon)."""
        if self.pane and not self.run_by_codex:
            return f"{seat.name}@{self.pane}"
        return ""
