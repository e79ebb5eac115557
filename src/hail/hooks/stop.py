"""The Stop hook's loop guard: an agent goes on with mail at most `STOP_BLOCKS_MAX` times in a row.

`hail deliver --event Stop` claims unread mail and returns it as `{"decision":"block","reason":…}`,
which both harnesses read as "continue the turn with this". It only blocks for mail it has just
claimed, and counts its blocks per session, in `stops/<session id>` of the mailbox: two agents
reading one mailbox keep a streak each.

A streak ends only where the harness says a turn began: its payload's `stop_hook_active` is false on
a turn's first Stop, true on one that follows a Stop block. A Stop that does not block leaves the
count alone: another hook of the same Stop (hail's hook installed twice) may have blocked, and the
harness then goes on all the same. Both hooks of one Stop count it once. A Stop is known by its
transcript: its size is the same for every hook of one Stop (the harness writes nothing between
them) and grows before the next (the model's continuation is written first), so a run that sees
the size the last counted block saw is a run of that Stop, however far apart the harness started
them (Claude Code runs an event's hooks one after another, 10–30 ms apart). Without a transcript
in the payload, a run that started before the last counted block was over is a run of that Stop. A Stop that got no payload in
time names no session: it continues the longest streak it finds and counts for every session (the
safe side). Plain os calls and byte searches: no json on the hook path [docs/hooks.md "Stop"].
"""

from __future__ import annotations

import os
import time

import hail
from hail import policy
from hail.payload import session_of, transcript_size, turn_began
from hail.store import fs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hail.harnesses.base import PayloadFields
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

    __slots__ = ("count", "dir", "fresh", "own", "session", "size", "twin")

    def __init__(
        self,
        mailbox_dir: str,
        payload: bytes,
        *,
        started: Callable[[], int | None],
        by_hand: bool = False,
        keys: PayloadFields | None = None,
    ) -> None:
        self.dir = os.path.join(mailbox_dir, DIR)
        # The harness names its session and transcript under its own keys (Copilot CLI's are
        # camelCase); Claude Code's, Codex's and Gemini CLI's by default.
        session_key = (keys.session if keys is not None else "") or "session_id"
        file_key = (keys.file if keys is not None else "") or "transcript_path"
        self.session = session_of(payload, session_key) or UNKNOWN
        # A model's own tool call can pass any payload: only the harness starts a new streak.
        self.fresh = self.session != UNKNOWN and not by_hand and turn_began(payload)
        own, end, seen = (0, 0, -1) if self.fresh else _read(os.path.join(self.dir, self.session))
        #: The transcript's size as this run sees it (-1: unknown), what its block records.
        self.size = transcript_size(payload, file_key)
        if self.fresh:
            others = 0
        elif self.session == UNKNOWN:
            others = max((_read(path)[0] for path in self._sessions()), default=0)
        else:
            others = _read(os.path.join(self.dir, UNKNOWN))[0]
        self.own = own
        #: The blocks in a row this Stop continues.
        self.count = own + others
        if own and self.size is not None and seen >= 0:
            # The transcript tells the Stops apart: the same size, the same Stop.
            self.twin = self.size == seen
        else:
            # Ticks are coarse: a run counts as another run of the counted Stop only when it
            # started in an earlier tick than that block ended, so the next Stop is never taken
            # for one (at worst a run of the same Stop counts again: the safe side). A block that
            # ended after now ended before a reboot (ticks count from boot): no run of today's is
            # one of its Stop.
            # `started` is asked only here: reading this process's start costs the process
            # backend's import, which a Stop with no streak (the usual one) never needs.
            start = started() if own > 0 else None
            self.twin = start is not None and start < end <= clock()

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
        size = -1 if self.size is None else self.size
        fs.write_atomic(os.path.join(self.dir, self.session), f"{own} {clock()} {size}\n")
        if self.fresh:
            fs.remove_quietly(os.path.join(self.dir, UNKNOWN))


def _read(path: str) -> tuple[int, int, int]:
    """A streak file's count, when its last block ended, and the transcript's size that block saw
    ((0, 0, -1) when missing or garbled; -1 for a size unknown or not written)."""
    saved = (fs.read_text(path) or "").split()
    if len(saved) not in (2, 3) or not all(s.isascii() and s.isdigit() for s in saved[:2]):
        return 0, 0, -1
    size = saved[2] if len(saved) == 3 else "-1"
    return int(saved[0]), int(saved[1]), int(size) if size.isascii() and size.isdigit() else -1
