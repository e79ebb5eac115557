"""The channel to another machine [docs/seats.md "Other machines"]: one module per way of running
the far hail's fixed command `<program> remote-peer`, behind `Channel`, and `of` picks one.

- `ssh` (`remote/ssh.py`): OpenSSH, non-interactive, one shared connection per host; what users run.
- `loopback` (`remote/loopback.py`): another "machine" on this one, a subprocess with that
  machine's own HOME, state and tmux; what the peer protocol's tests run without an sshd.

Every channel runs one process per call, writes the request to its stdin and reads its stdout (at
most the protocol's cap, and the noise a far shell may print before it) and the end of its stderr,
within the time its caller has (`converse`).
"""

from __future__ import annotations

import os
import time

from hail import policy
from hail.errors import StateError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from selectors import BaseSelector
    from subprocess import Popen
    from typing import IO

#: Bytes written to or read from the far command at a time.
_PIPE_CHUNK = 65536
#: The channels, by the name `HAIL_CHANNEL` gives: each is a module of this package holding its
#: `CHANNEL`. ssh unless it says otherwise.
NAMES = ("ssh", "loopback")


class Unreachable(StateError):
    """The far command never ran, or no hail that speaks this protocol answered: nothing was run
    or filed there (exit 1)."""


class Outcome:
    """One finished call: the far hail's stdout and stderr and the exit status the channel
    returned; `timed_out` when the caller's time ran out first, `overflow` when the far side
    printed more than the protocol allows (the call was ended there)."""

    __slots__ = ("code", "err", "out", "overflow", "timed_out")

    def __init__(
        self,
        code: int,
        out: bytes,
        err: bytes,
        *,
        timed_out: bool = False,
        overflow: bool = False,
    ) -> None:
        self.code = code
        self.out = out
        self.err = err
        self.timed_out = timed_out
        self.overflow = overflow

    @property
    def dropped(self) -> bool:
        """The channel failed after it may have reached the far side: it cannot tell what ran
        (a far shell's noise and then the drop is a drop too)."""
        from hail.remote.wire import holds_answer

        return self.code == 255 and not self.overflow and not holds_answer(self.out)


class Channel:
    """One way to run `<program> remote-peer` on a host."""

    name = ""

    def call(
        self, env: Mapping[str, str], host: str, program: str, data: bytes, within: float
    ) -> Outcome:
        """Run the far command on `host` with `data` on its stdin, for at most `within` seconds;
        Unreachable when the channel could not start."""
        raise NotImplementedError

    def refusal(self, host: str, outcome: Outcome) -> Unreachable | None:
        """Why the call never reached a hail there, or None when it did (or may have)."""
        raise NotImplementedError

    def noise_source(self) -> str:
        """Where what a far machine prints before hail's answer likely comes from."""
        raise NotImplementedError


def of(env: Mapping[str, str]) -> Channel:
    """The channel `HAIL_CHANNEL` names (ssh when unset); a UsageError for one hail lacks."""
    name = env.get("HAIL_CHANNEL", "") or "ssh"
    if name not in NAMES:
        from hail.errors import UsageError

        raise UsageError(f"HAIL_CHANNEL={name} is no channel hail has: {' or '.join(NAMES)}")
    module = __import__(f"hail.remote.{name}", fromlist=["CHANNEL"])
    found: Channel = module.CHANNEL
    return found


def run(argv: list[str], env: Mapping[str, str], data: bytes, within: float) -> Outcome:
    """Run `argv` with `env`, `data` on its stdin, for at most `within` seconds; FileNotFoundError
    when its program cannot be run."""
    import subprocess  # only a call to another machine pays for it

    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env),
    )
    try:
        return converse(proc, data, time.monotonic() + within)
    finally:
        if proc.poll() is None:
            proc.kill()  # the caller's time is up, or the far side said too much
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None and not pipe.closed:
                pipe.close()


def converse(proc: Popen[bytes], data: bytes, deadline: float) -> Outcome:
    """Write `data` to the process's stdin while reading its stdout (at most the protocol's cap
    and the noise a far shell may print before it) and the end of its stderr, until both end
    and it exits, or the deadline."""
    import selectors
    import subprocess

    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    cap = policy.PEER_MAX_BYTES + policy.PEER_NOISE_BYTES
    out, err = bytearray(), bytearray()
    todo = memoryview(data)
    with selectors.DefaultSelector() as sel:
        for pipe in (proc.stdout, proc.stderr):
            os.set_blocking(pipe.fileno(), False)
            sel.register(pipe, selectors.EVENT_READ)
        if todo:
            os.set_blocking(proc.stdin.fileno(), False)
            sel.register(proc.stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return Outcome(255, b"", bytes(err), timed_out=True)
            for key, _ in sel.select(left):
                if key.fileobj is proc.stdin:
                    todo = _feed(sel, proc.stdin, todo)
                    continue
                chunk = os.read(key.fd, _PIPE_CHUNK)
                if not chunk:
                    sel.unregister(key.fileobj)
                elif key.fileobj is proc.stdout:
                    out += chunk
                    if len(out) > cap:
                        return Outcome(255, b"", bytes(err), overflow=True)
                else:
                    err += chunk
                    del err[: -policy.SSH_STDERR_BYTES]
    try:
        code = proc.wait(max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return Outcome(255, b"", bytes(err), timed_out=True)
    return Outcome(code, bytes(out), bytes(err))


def _feed(sel: BaseSelector, stdin: IO[bytes], todo: memoryview) -> memoryview:
    """One more chunk of the request to the far command's stdin; closed once all of it is
    written, or when the far side stops reading (its answer says why)."""
    try:
        todo = todo[os.write(stdin.fileno(), todo[:_PIPE_CHUNK]) :]
    except BrokenPipeError:
        todo = todo[:0]
    if not todo:
        sel.unregister(stdin)
        stdin.close()
    return todo


def last_line(text: str) -> str:
    from hail.text import clip_value, one_line

    lines = [line for line in text.split("\n") if line.strip()]
    return clip_value(one_line(lines[-1]), 200) if lines else "nothing"
