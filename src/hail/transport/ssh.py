"""Running the far hail over OpenSSH [docs/seats.md "Other machines"].

`$HAIL_SSH` (default `ssh`) is one command line split as a shell splits words, like
GIT_SSH_COMMAND. Every call is non-interactive (BatchMode: no password or host-key prompt can hang
an agent's tool call; a connect timeout), and calls to one host share one connection (ControlMaster
auto, a short ControlPersist, a control path short enough for macOS's 104-byte socket limit in a
0700 directory of this user's). The far side runs the fixed command `<program> remote-peer`; what is sent
goes on its stdin.
"""

from __future__ import annotations

import os
import stat

from hail import policy
from hail.errors import HailError, StateError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

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


class Unreachable(StateError):
    """ssh never reached a hail that speaks this protocol: nothing was run or filed there (exit 1)."""


class Outcome:
    """One finished call: the far hail's stdout and stderr and the exit status ssh returned."""

    __slots__ = ("code", "err", "out", "timed_out")

    def __init__(self, code: int, out: bytes, err: bytes, *, timed_out: bool = False) -> None:
        self.code = code
        self.out = out
        self.err = err
        self.timed_out = timed_out

    @property
    def dropped(self) -> bool:
        """ssh failed after it may have reached the far side: it cannot tell what ran there."""
        return self.code == 255 and not self.out


def control_dir(env: Mapping[str, str]) -> str | None:
    """A 0700 directory of this user's for the control sockets, or None (then no sharing)."""
    path = env.get("HAIL_SSH_CONTROL_DIR") or f"/tmp/hail-ssh-{os.geteuid()}"
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


def base_command(env: Mapping[str, str], host: str) -> list[str]:
    """`$HAIL_SSH` split as a shell splits it, with hail's options. The control path is the
    connection's hash (`%C`) and the alias's: two aliases of one address may land differently (a
    key per alias, say), so neither borrows the other's connection; 16 + 40 + 13 bytes, and ssh's
    temporary suffix, fit in 104."""
    import shlex

    try:
        words = shlex.split(env.get("HAIL_SSH", "") or "ssh")
    except ValueError as e:
        raise HailError(f"HAIL_SSH cannot be split into words ({e}); fix its quoting") from None
    if not words:
        words = ["ssh"]
    opts = ["BatchMode=yes", f"ConnectTimeout={policy.SSH_CONNECT_TIMEOUT}"]
    where = control_dir(env)
    if where is not None:
        opts += [
            "ControlMaster=auto",
            f"ControlPersist={policy.SSH_PERSIST_SECONDS}",
            f"ControlPath={where}/%C.{_digest(host)}",
        ]
    return words + [w for o in opts for w in ("-o", o)]


def _digest(host: str) -> str:
    import hashlib

    return hashlib.sha256(host.encode()).hexdigest()[:12]


def command(env: Mapping[str, str], host: str, program: str) -> list[str]:
    """The whole ssh command line: the host after `--` (never read as an option), then the fixed
    far command."""
    return [*base_command(env, host), "--", host, program, "remote-peer"]


def call(env: Mapping[str, str], host: str, program: str, data: bytes) -> Outcome:
    """Run `<program> remote-peer` on `host` with `data` on its stdin; Unreachable when ssh did not start
    or says it never got there."""
    import subprocess  # only a call to another machine pays for it

    argv = command(env, host, program)
    try:
        proc = subprocess.run(
            argv,
            input=data,
            capture_output=True,
            timeout=policy.SSH_CALL_TIMEOUT,
            check=False,
            env=dict(env),
        )
    except FileNotFoundError:
        raise Unreachable(
            f"{host}: cannot run {argv[0]} (is OpenSSH installed? HAIL_SSH)"
        ) from None
    except subprocess.TimeoutExpired:
        return Outcome(255, b"", b"", timed_out=True)  # it may have run there: cannot tell
    return Outcome(proc.returncode, proc.stdout, proc.stderr)


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
