"""The loopback channel: another machine on this one [docs/seats.md "Other machines"], for the
peer protocol's tests and for trying it without a second machine.

With `HAIL_CHANNEL=loopback`, the host `<host>` is the directory `$HAIL_LOOPBACK/<host>`, whose
`env` file (`NAME=value` lines) gives that machine's environment: its HOME, XDG_STATE_HOME,
XDG_CONFIG_HOME, HAIL_HOST, PATH, and the tmux server its agents run on (HAIL_SOCKET). The far
command `<program> remote-peer` runs as a subprocess with that environment alone, and with what
an ssh key's `authorized_keys` line would pin (`HAIL_PEER_HOST`: this machine's name), so the far
side signs the sender as sshd would make it. Nothing else of this process's environment crosses.
"""

from __future__ import annotations

import os

from hail.remote.channel import Channel, Outcome, Unreachable, last_line, run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: The shell's answer when the far program is not on the far PATH.
_NOT_FOUND = 127


def machine_dir(env: Mapping[str, str], host: str) -> str | None:
    """The directory that stands for `host`, or None when there is none."""
    root = env.get("HAIL_LOOPBACK", "")
    if not root or not os.path.isabs(root):
        return None
    path = os.path.join(root, host)
    return path if os.path.isfile(os.path.join(path, "env")) else None


def far_env(where: str, env: Mapping[str, str]) -> dict[str, str]:
    """The far machine's environment from its `env` file, and the sender's machine pinned as an
    ssh key would pin it."""
    from hail.remote.wire import own_host

    found: dict[str, str] = {}
    with open(os.path.join(where, "env"), encoding="utf-8") as f:
        for line in f.read().splitlines():
            name, eq, value = line.partition("=")
            if eq and name.strip() and not line.lstrip().startswith("#"):
                found[name.strip()] = value
    found.setdefault("PATH", os.defpath)
    found["HAIL_PEER_HOST"] = own_host(env)
    return found


class Loopback(Channel):
    """Each host a directory of this machine's, its far hail a subprocess with that machine's
    environment."""

    name = "loopback"

    def call(
        self, env: Mapping[str, str], host: str, program: str, data: bytes, within: float
    ) -> Outcome:
        where = machine_dir(env, host)
        if where is None:
            raise Unreachable(f"{host} is unreachable: no machine {host} under HAIL_LOOPBACK")
        far = far_env(where, env)
        try:
            return run(["/bin/sh", "-c", f"exec {program} remote-peer"], far, data, within)
        except FileNotFoundError:
            raise Unreachable(f"{host}: cannot run /bin/sh") from None

    def refusal(self, host: str, outcome: Outcome) -> Unreachable | None:
        if outcome.code == _NOT_FOUND and not outcome.out:
            said = last_line(outcome.err.decode("utf-8", "replace"))
            return Unreachable(
                f"{host} has no hail on the PATH its env file gives (it said: {said})"
            )
        return None

    def noise_source(self) -> str:
        return "the far program's wrapper, which prints before hail runs"


CHANNEL = Loopback()
