"""The Stop hook's loop guard: an agent goes on with mail at most `STOP_BLOCKS_MAX` times in a row.

`hail deliver --event Stop` claims unread mail and returns it as `{"decision":"block","reason":…}`,
which both harnesses read as "continue the turn with this". It only blocks for mail it has just
claimed, and counts its blocks per session, in `stops/<session id>` of the mailbox: two agents
reading one mailbox keep a streak each.

A streak ends only where the harness says a turn began: its payload's `stop_hook_active` is false on
a turn's first Stop, true on one that follows a Stop block. A Stop that does not block leaves the
count alone: another hook of the same Stop (hail's hook installed twice) may have blocked, and the
harness then goes on all the same. Both hooks of one Stop count it once: a run that started before
the last counted block was over is a run of that Stop, since the harness starts every hook of an
event at once and waits for all of them before the model goes on. A Stop that got no payload in
time names no session: it continues the longest streak it finds and counts for every session (the
safe side). Plain os calls and byte searches: no json on the hook path [docs/hooks.md "Stop"].
"""

from __future__ import annotations

import os
import time

import hail
from hail import policy
from hail.payload import session_of, turn_began
from hail.store import fs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.process.base import Processes

DIR = "stops"
#: The streak of Stops that got no payload in time.
UNKNOWN = "-"
_TICKS = os.sysconf("SC_CLK_TCK")
#: Linux's clock of a process's start in /proc; macOS and the BSDs have none.
_BOOT_CLOCK: int | None = getattr(time, "CLOCK_BOOTTIME", None)


def clock() -> int:
    """Now: in clock ticks since boot where there is CLOCK_BOOTTIME (Linux, whose /proc dates a
    process's start so), else on the monotonic clock in ns (macOS, the BSDs), which every process
    of the machine shares."""
    if _BOOT_CLOCK is None:
        return time.monotonic_ns()
    return int(time.clock_gettime(_BOOT_CLOCK) * _TICKS)


def started(procs: Processes) -> int:
    """When this process was started, on `clock`'s clock: as the process backend says it
    (`process/base.py`), else when it imported hail."""
    own = procs.own_start() if _BOOT_CLOCK is not None else None
    return own if own is not None else imported()


def imported() -> int:
    """When this process imported hail, on `clock`'s clock. Later than its real start, so at worst
    a run of the counted Stop counts again (the safe side), and never is the next Stop taken for
    one."""
    if _BOOT_CLOCK is None:
        return hail.IMPORTED_NS
    ago = (time.monotonic_ns() - hail.IMPORTED_NS) / 1e9  # both clocks tick alike while awake
    return int((time.clock_gettime(_BOOT_CLOCK) - ago) * _TICKS)


class StopGuard:
    """The streak of Stop blocks of one session on one mailbox."""

    __slots__ = ("count", "dir", "fresh", "own", "session", "twin")

    def __init__(
        self,
        mailbox_dir: str,
        payload: bytes,
        *,
        started: int | None,
        by_hand: bool = False,
    ) -> None:
        self.dir = os.path.join(mailbox_dir, DIR)
        self.session = session_of(payload) or UNKNOWN
        # A model's own tool call can pass any payload: only the harness starts a new streak.
        self.fresh = self.session != UNKNOWN and not by_hand and turn_began(payload)
        own, end = (0, 0) if self.fresh else _read(os.path.join(self.dir, self.session))
        if self.fresh:
            others = 0
        elif self.session == UNKNOWN:
            others = max((_read(path)[0] for path in self._sessions()), default=0)
        else:
            others = _read(os.path.join(self.dir, UNKNOWN))[0]
        self.own = own
        #: The blocks in a row this Stop continues.
        self.count = own + others
        # Ticks are coarse: a run counts as another run of the counted Stop only when it started in
        # an earlier tick than that block ended, so the next Stop is never taken for one (at worst
        # a run of the same Stop counts again: the safe side). A block that ended after now ended
        # before a reboot (ticks count from boot): no run of today's is one of its Stop.
        self.twin = own > 0 and started is not None and started < end <= clock()

    def _sessions(self) -> list[str]:
        try:
            names = os.listdir(self.dir)
        except OSError:
            return []
        return [os.path.join(self.dir, n) for n in names if n != UNKNOWN and n[:1] != "."]

    def may_block(self) -> bool:
        # Another hook of a Stop that was already counted: the harness goes on anyway.
        return self.twin or self.count < policy.STOP_BLOCKS_MAX

    def blocked(self) -> None:
        """This Stop made the agent go on: one more in the streak (once per Stop)."""
        fs.make_dirs(self.dir)
        own = self.own if self.twin else self.own + 1
        fs.write_atomic(os.path.join(self.dir, self.session), f"{own} {clock()}\n")
        if self.fresh:
            fs.remove_quietly(os.path.join(self.dir, UNKNOWN))


def _read(path: str) -> tuple[int, int]:
    """A streak file's count and when its last block ended (0, 0 when missing or garbled)."""
    saved = (fs.read_text(path) or "").split()
    if len(saved) != 2 or not saved[0].isdigit() or not saved[1].isdigit():
        return 0, 0
    return int(saved[0]), int(saved[1])
