"""Where this process runs, read once from the environment: state, directory, pane, harness, cap.

Everything below takes a `Ctx` (or an env mapping) instead of reading os.environ itself, so a test
needs only a temp directory and an environment.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hail import envelope
from hail.errors import StateError
from hail.seat import Seat, no_seat_error, seat_of
from hail.store.store import Store, state_root


def _cwd(env: Mapping[str, str]) -> Path:
    try:
        return Path(os.getcwd())
    except FileNotFoundError:
        raise StateError(
            "the current directory no longer exists; cd into your workspace and run hail again"
        ) from None


@dataclass
class Ctx:
    env: Mapping[str, str]
    cwd: Path
    home: Path | None
    store: Store
    pane: str
    run_by_codex: bool
    cap: int
    _seat: Seat | None = field(default=None, repr=False)
    _seat_done: bool = field(default=False, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Ctx:
        env = os.environ if env is None else env
        home = env.get("HOME")
        return cls(
            env=env,
            cwd=_cwd(env),
            home=Path(home) if home else None,
            store=Store(state_root(env)),
            pane=env.get("TMUX_PANE", ""),
            run_by_codex=bool(env.get("CODEX_THREAD_ID") or env.get("CODEX_SESSION_ID")),
            cap=envelope.cap_from(env.get("HAIL_ENVELOPE_MAX")),
        )

    def now(self) -> float:
        return time.time()

    def seat(self) -> Seat | None:
        """The seat of the working directory (or HAIL_SEAT); raises on a bad name."""
        if not self._seat_done:
            self._seat = seat_of(self.cwd, self.home, self.env)
            self._seat_done = True
        return self._seat

    def require_seat(self, *, bind: bool = True) -> Seat:
        """The seat, bound on first use; exit 3 when there is none."""
        found = self.seat()
        if found is None:
            raise no_seat_error(self.cwd)
        if bind:
            self.store.ensure()
            self.store.bind(found)
        return found

    def reading_mailboxes(self, seat: Seat, *, codex_format: bool = False) -> list[str]:
        """The mailboxes this process reads: its pane's sub-seat first (when it exists), then the seat.

        Codex runs every command from one shared daemon whose TMUX_PANE is another pane's, so a
        process run by Codex, or a hook told `--format codex`, reads only the seat [§1.4].
        """
        if self.pane and not self.run_by_codex and not codex_format:
            sub = f"{seat.name}@{self.pane}"
            if self.store.mailbox(sub).exists():
                return [sub, seat.name]
        return [seat.name]
