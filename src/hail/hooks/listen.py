"""`hail listen --format claude`: the waiter, run by Claude Code as an asyncRewake hook at
SessionStart and Stop [docs/hooks.md "The waiter"].

It sleeps until a send asks it to wake its session, then exits 2 with one short line on stderr:
Claude Code starts a turn for it, and that turn's UserPromptSubmit hook (`hail deliver`) claims
the mail and frames it, so a receipt says `injected` only once the body is in a request the model
gets, and the headline reaches the model once. Every other end is exit 0, on which Claude Code
does nothing.

- **One per Claude Code process.** `presence/claude-<pid>` names the newest waiter; one that
  finds another live waiter named there ends, and a new one signals the waiter it replaces, so the
  waiter of the last Stop (or of a `/clear`) is the one that listens.
- **Asleep in `sigwait`**, its signals blocked: a send's SIGUSR1 wakes it at once, and its own
  alarm (`setitimer`'s SIGALRM) every WAITER_CHECK_SECONDS. Both are POSIX, so it sleeps the same
  on Linux, macOS and the BSDs (macOS has no timed signal wait). At each look it sees whether its
  Claude Code process still runs (a SIGKILLed client cannot end its hooks; the stdout socket it
  reads ends with it, even before its parent reaps it), whether it was replaced, and whether a
  wake was asked for while no signal reached it.
- **Only for a send that asked**, only while the session is between turns (the last hook was a
  Stop that let its turn end, or SessionStart): mid-turn, PostToolUse and Stop carry the mail.
- **Bounded**: it ends after WAITER_LIFE_SECONDS, a minute before the hook's `timeout`.
- **Never in `claude -p`**: Claude Code runs an asyncRewake hook in the foreground there, so it
  would hold the run for its whole life; it exits at once unless the session is interactive.

No click, libtmux or subprocess; it stays one small interpreter while it waits.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from hail import policy
from hail.hooks import protocol
from hail.store.presence import base as presence_base
from hail.store.presence import waiter as presence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hail.context import Ctx
    from hail.store.maildir import Mailbox

#: Claude Code 2.1.332 sets these in every hook's environment: its pid, and `cli` with an
#: attended session for the interactive TUI (`sdk-cli` and `0` under `claude -p`).
CLIENT_PID = "CLAUDE_PID"
ENTRYPOINT = ("CLAUDE_CODE_ENTRYPOINT", "cli")
ATTENDED = ("CLAUDE_CODE_SESSION_ATTENDED", "1")

#: SIGUSR1: a send asks for a look; SIGALRM: the waiter's own timer asks for one; the others end
#: the waiter quietly.
LOOK = signal.SIGUSR1
TICK = signal.SIGALRM
ENDS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)

#: Exit statuses Claude Code reads: 2 wakes the session with stderr as its text, 0 does nothing.
WAKE, QUIET = 2, 0


def interactive(env: Mapping[str, str]) -> bool:
    return all(env.get(name) == value for name, value in (ENTRYPOINT, ATTENDED))


def client_pid(env: Mapping[str, str]) -> int:
    text = env.get(CLIENT_PID, "")
    return int(text) if text.isascii() and text.isdigit() else 0


def starts_session(payload: bytes) -> bool:
    """A SessionStart payload of a session that starts with no turn running: not `compact`, which
    Claude Code runs in the middle of a turn."""
    squeezed = payload.replace(b" ", b"")
    return b'"hook_event_name":"SessionStart"' in squeezed and b'"source":"compact"' not in squeezed


def names_session_start(payload: bytes) -> bool:
    """A SessionStart payload of any source (a start, a resume, a /clear, a compaction)."""
    return b'"hook_event_name":"SessionStart"' in payload.replace(b" ", b"")


def _note_start(ctx: Ctx, fmt: str, mailbox: str, payload: bytes) -> None:
    """At SessionStart, the one payload that names Claude Code's model, the agent record, dated
    anew (a resumed session's record counts as this process's) [docs/gauge.md "The agent record"];
    a failure is logged, and the waiter listens as before."""
    if not names_session_start(payload):
        return
    try:
        from hail.harnesses import registry
        from hail.store.presence.agent import note

        note(
            ctx.store,
            ctx.env,
            registry.get(fmt),
            mailbox,
            lambda key: protocol.string_of(payload, key),
            always=True,
        )
    except Exception as exc:
        protocol.log_error(ctx.store, "listen", exc)


def listen(fmt: str) -> int:
    """The hook verb of `fmt`: exit 2 once it woke its session, else 0; never fails the session."""
    env = os.environ
    claude = client_pid(env)
    if not interactive(env) or not claude:
        return QUIET
    ctx: Ctx | None = None
    try:
        from hail.context import Ctx
        from hail.payload import session_of

        payload = protocol.payload_bytes()
        ctx = Ctx.from_env()
        seat = ctx.seat()
        claude_start = ctx.procs().start(claude)
        if seat is None or not claude_start:
            return QUIET
        mailboxes = ctx.reading_mailboxes(seat)
        if ctx.pane and f"{seat.name}@{ctx.pane}" not in mailboxes:
            # A send may address this pane as a sub-seat before its mailbox exists; once it does,
            # the woken turn's prompt hook reads it first.
            mailboxes.append(f"{seat.name}@{ctx.pane}")
        ctx.store.check_trusted(mailboxes)
        _note_start(ctx, fmt, mailboxes[0], payload)
        if starts_session(payload):
            # No turn runs in a session that just started (or was cleared): its first hooks mark
            # it so, as a Stop that lets a turn end does. `brief --hook` marks the seat the same
            # way, in this order, so whichever of the two runs last leaves it between turns.
            ctx.store.ensure()
            for name in ctx.reading_mailboxes(seat):
                box = ctx.store.mailbox(name)
                box.touch_hooked()
                box.touch_stopping()
        # Before anyone can know the pid.
        signal.pthread_sigmask(signal.SIG_BLOCK, {LOOK, TICK, *ENDS})
        me = presence.Waiter(
            claude,
            claude_start,
            os.getpid(),
            ctx.procs().start(os.getpid()),
            mailboxes,
            ctx.pane,
            session_of(payload),
            since=time.time(),
            server=presence_base.tmux_server(env),
        )
        return Listener(ctx, me).run()
    except Exception as exc:
        protocol.log_error(ctx.store if ctx else None, "listen", exc)
        return QUIET


#: The waiter's text to the model, after the hook's `rewakeMessage` (`hail:`). It costs the context
#: less than a typed envelope's fields (48 bytes beyond the headline): the headline is in the woken
#: turn's frame, and it is told where mail is if no frame follows.
WAKE_LINE = "new mail below (else: hail inbox)"


def _nudge(pid: int) -> bool:
    """Ask a waiter to look now; False when it ended meanwhile."""
    try:
        os.kill(pid, LOOK)
    except OSError:
        return False
    return True


def _watched_stdout() -> int:
    """stdout, when it is a socket (Claude Code's hooks' are), set not to block; else -1.

    Claude Code holds its other end, so it reads as ended once Claude Code's process ended, even
    while that process is a zombie nobody has reaped yet, which `kill 0` (the portable process
    backend's quick check) still finds."""
    import stat

    try:
        if not stat.S_ISSOCK(os.fstat(1).st_mode):
            return -1
        os.set_blocking(1, False)
    except OSError:
        return -1
    return 1


def _hung_up(fd: int) -> bool:
    """The other end of the socket `fd` closed: what it reads is the end of the stream."""
    if fd < 0:
        return False
    try:
        return os.read(fd, 1) == b""
    except BlockingIOError:
        return False  # open, and nothing to read: its reader is alive
    except OSError:
        return True  # reset: its reader is gone


def sleep(seconds: float) -> int:
    """Sleep until a blocked signal of the waiter's comes, at most `seconds`; the signal's number.
    A pending alarm of an earlier sleep only makes the next look come early."""
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return signal.sigwait({LOOK, TICK, *ENDS})


class Listener:
    """One waiter's life: take the record, sleep, look, and end one way or the other."""

    __slots__ = ("ctx", "hangup", "me", "path", "served")

    def __init__(self, ctx: Ctx, me: presence.Waiter) -> None:
        self.ctx = ctx
        self.me = me
        self.path = presence.waiter_path(ctx.store, me.claude)
        #: When the waiter this one replaces woke the session: a wake asked before it is served.
        self.served = 0.0
        #: The socket Claude Code reads this hook's stdout from, or -1.
        self.hangup = _watched_stdout()

    def run(self) -> int:
        store = self.ctx.store
        store.ensure()
        procs = self.ctx.procs()
        presence.prune_waiters(store, procs)
        before = presence.read_waiter(self.path)
        if before is not None and before.state == presence.FIRED and not self.me.is_me(before):
            self.served = before.since  # its woken turn's prompt hook takes that mail
        presence.write_waiter(store, self.me)
        if before is not None and not self.me.is_me(before) and self.waits_there(before):
            _nudge(before.pid)  # it reads the record, finds this waiter, and ends
        deadline = time.monotonic() + policy.WAITER_LIFE_SECONDS
        fired = False
        try:
            while True:
                named = presence.read_waiter(self.path)
                if named is None:
                    # Removed by an older waiter ending just as this one wrote: write it again.
                    presence.write_waiter(store, self.me)
                elif not self.me.is_me(named):
                    if self.waits_there(named) or named.state == presence.FIRED:
                        return QUIET  # a newer waiter listens, or has woken the session
                    # Killed before it could remove it, or a record naming no waiter at all.
                    presence.write_waiter(store, self.me)
                if _hung_up(self.hangup) or not self.me.client_running(procs):
                    return QUIET
                if self.wanted():
                    fired = True
                    return self.fire()
                left = deadline - time.monotonic()
                if left <= 0:
                    return QUIET
                if sleep(min(left, policy.WAITER_CHECK_SECONDS)) in ENDS:
                    return QUIET
        finally:
            if not fired:
                presence.remove_waiter(store, self.me)

    def waits_there(self, other: presence.Waiter) -> bool:
        """Whether the record names another waiter of this waiter's Claude Code process that
        listens: the question a send asks before it signals one (`transport/routes/waiter.py`), so a
        record naming any other process is never signalled, nor obeyed."""
        procs = self.ctx.procs()
        return other.listening(procs) and procs.is_waiter_of(other.pid, self.me.claude)

    def wanted(self) -> bool:
        """A send asked to wake the agent for mail still unread, and the session is between
        turns."""
        store = self.ctx.store
        if not store.mailbox(self.me.mailboxes[0]).turn_ending():
            return False  # a turn runs: its PostToolUse and Stop hooks carry the mail
        for name in self.me.mailboxes:
            box = store.mailbox(name)
            if box.wake_pending() and box.unread_count() and self.unserved(box):
                return True
        return False

    def unserved(self, box: Mailbox) -> bool:
        """The wake was asked after the replaced waiter woke the session (else that wake is
        on its way, and a second would start a second turn)."""
        asked = box.wake_asked_at()
        return asked is not None and asked > self.served

    def fire(self) -> int:
        """Mark the record `fired` and wake the session: Claude Code reads stderr as the text of
        its wake-up, after the hook's `rewakeMessage`."""
        self.me.state, self.me.since = presence.FIRED, time.time()
        presence.write_waiter(self.ctx.store, self.me)
        try:
            sys.stderr.write(WAKE_LINE + "\n")
            sys.stderr.flush()
        except OSError:
            pass  # the client is gone: nobody to wake
        return WAKE
