"""Running the far hail over OpenSSH [docs/seats.md "Other machines"].

`$HAIL_SSH` (default `ssh`) is one command line split as a shell splits words, like
GIT_SSH_COMMAND. Every call is non-interactive (BatchMode: no password or host-key prompt can hang
an agent's tool call; a connect timeout; keep-alives that give up a dead connection within
seconds), ends within the time its caller has, and reads at most the peer protocol's cap of what
the far side prints. Calls to one host share one connection (ControlMaster auto, a short
ControlPersist) whose control socket lies in hail's state root, which no sandboxed agent may write,
under a short hashed name; where that cannot be, nothing is shared. The far side runs the fixed
command `<program> remote-peer`; what is sent goes on its stdin.
"""

from __future__ import annotations

import os
import stat
import time

from hail import policy
from hail.errors import HailError, StateError
from hail.wire import holds_answer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from selectors import BaseSelector
    from subprocess import Popen
    from typing import IO

#: What ssh's own last words say when it never reached the far shell: nothing was run there.
_NOT_CONNECTED = (
    ("Could not resolve hostname", "its name does not resolve (no such host or ssh alias)"),
    ("Connection refused", "the connection was refused (no sshd listening there)"),
    ("Connection timed out", "no answer within the connect timeout"),
    ("Operation timed out", "no answer within the connect timeout"),
    ("No route to host", "there is no route to it"),
    ("Network is unreachable", "the network is unreachable"),
    ("Permission denied", "ssh's key was refused (set up a key: docs/seats.md)"),
    ("Host key verification failed", "its host key is not known or changed (ssh it once by hand)"),
    ("Too many authentication failures", "ssh's keys were refused"),
)
#: The far shell's answer when `hail` is not on its PATH.
_NOT_FOUND = 127
#: What ssh adds to a control path while it binds the socket (`.` and 16 random characters), and
#: the path's NUL.
_BIND_SUFFIX = 18
#: Bytes written to or read from ssh at a time.
_PIPE_CHUNK = 65536


class Unreachable(StateError):
    """ssh never reached a hail that speaks this protocol: nothing was run or filed there (exit 1)."""


class Outcome:
    """One finished call: the far hail's stdout and stderr and the exit status ssh returned;
    `timed_out` when the caller's time ran out first, `overflow` when the far side printed more
    than the protocol allows (the call was ended there)."""

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
        """ssh failed after it may have reached the far side, before an answer came (what did
        come is a far shell's noise at most): it cannot tell what ran there."""
        return self.code == 255 and not self.overflow and not holds_answer(self.out)


def control_dir(env: Mapping[str, str]) -> str | None:
    """`ssh/` in hail's state root, 0700 and this user's, or None (then no sharing).

    Never a temporary directory: whoever can put a socket where ssh looks for the shared
    connection reads and answers every call to that host, and a sandboxed agent may write /tmp.
    The state root is this user's and no sandboxed agent's (hail runs outside the sandbox to
    write it), and it is not moved by a variable of its own."""
    from hail.store.store import state_root

    root = state_root(env)
    try:
        st = os.stat(root)
    except OSError:
        return None  # no state yet: nothing to share a connection with
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        return None
    path = os.path.join(root, "ssh")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        return None  # another user's, or open to them: a planted socket would be a foreign master
    return path


def control_path(env: Mapping[str, str], host: str) -> str | None:
    """The shared connection's socket: the control directory and a hash of this machine, the ssh
    command line and the alias (two aliases of one address may land differently, a key per alias
    say, so neither borrows the other's connection); None when it would not fit in a socket
    path, with the suffix ssh adds while it binds."""
    where = control_dir(env)
    if where is None:
        return None
    name = _digest("\0".join((os.uname().nodename, env.get("HAIL_SSH", ""), host)))
    path = os.path.join(where, name)
    if len(os.fsencode(path)) + _BIND_SUFFIX > policy.SOCKET_PATH_MAX:
        return None
    return path.replace("%", "%%")  # ssh expands `%` tokens in a control path


def base_command(env: Mapping[str, str], host: str) -> list[str]:
    """`$HAIL_SSH` split as a shell splits it, with hail's options."""
    import shlex

    try:
        words = shlex.split(env.get("HAIL_SSH", "") or "ssh")
    except ValueError as e:
        raise HailError(f"HAIL_SSH cannot be split into words ({e}); fix its quoting") from None
    if not words:
        words = ["ssh"]
    opts = [
        "BatchMode=yes",
        f"ConnectTimeout={policy.SSH_CONNECT_TIMEOUT}",
        f"ServerAliveInterval={policy.SSH_ALIVE_SECONDS}",
        f"ServerAliveCountMax={policy.SSH_ALIVE_COUNT}",
    ]
    path = control_path(env, host)
    if path is not None:
        opts += [
            "ControlMaster=auto",
            f"ControlPersist={policy.SSH_PERSIST_SECONDS}",
            f"ControlPath={path}",
        ]
    return words + [w for o in opts for w in ("-o", o)]


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def command(env: Mapping[str, str], host: str, program: str) -> list[str]:
    """The whole ssh command line: the host after `--` (never read as an option), then the fixed
    far command."""
    return [*base_command(env, host), "--", host, program, "remote-peer"]


def call(env: Mapping[str, str], host: str, program: str, data: bytes, within: float) -> Outcome:
    """Run `<program> remote-peer` on `host` with `data` on its stdin, for at most `within`
    seconds; Unreachable when ssh did not start."""
    import subprocess  # only a call to another machine pays for it

    argv = command(env, host, program)
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
        )
    except FileNotFoundError:
        raise Unreachable(
            f"{host}: cannot run {argv[0]} (is OpenSSH installed? HAIL_SSH)"
        ) from None
    try:
        return _converse(proc, data, time.monotonic() + within)
    finally:
        if proc.poll() is None:
            proc.kill()  # the caller's time is up, or the far side said too much
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None and not pipe.closed:
                pipe.close()


def _converse(proc: Popen[bytes], data: bytes, deadline: float) -> Outcome:
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
    """One more chunk of the request to ssh's stdin; closed once all of it is written, or when
    the far side stops reading (its answer says why)."""
    try:
        todo = todo[os.write(stdin.fileno(), todo[:_PIPE_CHUNK]) :]
    except BrokenPipeError:
        todo = todo[:0]
    if not todo:
        sel.unregister(stdin)
        stdin.close()
    return todo


def refusal(host: str, outcome: Outcome) -> Unreachable | None:
    """Why the call never reached a hail there, or None when it did (or may have)."""
    said = outcome.err.decode("utf-8", "replace")
    if outcome.code == 255 and not outcome.out:
        for words, why in _NOT_CONNECTED:
            if words in said:
                return Unreachable(f"{host} is unreachable: {why}")
        return None
    if outcome.code == _NOT_FOUND and not outcome.out:
        return Unreachable(
            f"{host} has no hail on the PATH ssh gives it (the far shell said: {last_line(said)}); "
            "install hail there, or name its program for this host in ~/.config/hail/hosts"
        )
    return None


def last_line(text: str) -> str:
    from hail.text import clip_value, one_line

    lines = [line for line in text.split("\n") if line.strip()]
    return clip_value(one_line(lines[-1]), 200) if lines else "nothing"
