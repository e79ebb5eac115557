"""The ssh channel: running the far hail over OpenSSH [docs/seats.md "Other machines"].

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

from hail import policy
from hail.errors import HailError
from hail.remote.channel import Channel, Outcome, Unreachable, last_line, run

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
#: What ssh adds to a control path while it binds the socket (`.` and 16 random characters), and
#: the path's NUL.
_BIND_SUFFIX = 18


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


class Ssh(Channel):
    """OpenSSH with hail's options, the user's own config, keys and jump hosts deciding the rest."""

    name = "ssh"

    def call(
        self, env: Mapping[str, str], host: str, program: str, data: bytes, within: float
    ) -> Outcome:
        argv = command(env, host, program)
        try:
            return run(argv, env, data, within)
        except FileNotFoundError:
            raise Unreachable(
                f"{host}: cannot run {argv[0]} (is OpenSSH installed? HAIL_SSH)"
            ) from None

    def refusal(self, host: str, outcome: Outcome) -> Unreachable | None:
        said = outcome.err.decode("utf-8", "replace")
        if outcome.code == 255 and not outcome.out:
            for words, why in _NOT_CONNECTED:
                if words in said:
                    return Unreachable(f"{host} is unreachable: {why}")
            return None
        if outcome.code == _NOT_FOUND and not outcome.out:
            return Unreachable(
                f"{host} has no hail on the PATH ssh gives it (the far shell said:"
                f" {last_line(said)}); install hail there, or name its program for this host in"
                " ~/.config/hail/hosts"
            )
        return None

    def noise_source(self) -> str:
        return "its startup files, which run for a command too: bash's ~/.bashrc, zsh's ~/.zshenv"


CHANNEL = Ssh()
