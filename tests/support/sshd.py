"""A private OpenSSH server for one test, and the machines it stands in for.

`sshd -D -e -f <config>` listens on a free port of 127.0.0.1 as the test's own user, with a host key
and authorized keys of the test's own. Each "machine" is a key whose `authorized_keys` line sets
the landing side's environment (`PermitUserEnvironment`): its HOME, state root, PATH, tmux socket
and HAIL_HOST. So one sshd and one user stand in for several machines, each reached by a `Host`
alias of the test's ssh config. `stop` ends sshd and every connection master hail left, by pid.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Mapping
from functools import partial
from pathlib import Path

from tests.support.procs import alive, wait_until

SSHD = "/usr/sbin/sshd"


def have_sshd() -> bool:
    """OpenSSH's server and client, and /proc (where the test counts the connection masters)."""
    return os.path.exists(SSHD) and shutil.which("ssh") is not None and os.path.isdir("/proc")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def closed_port() -> int:
    """A port nothing listens on (bound then released: refused until someone takes it)."""
    return free_port()


def _keygen(path: Path) -> str:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True, timeout=30
    )
    return Path(f"{path}.pub").read_text().strip()


def _env_option(env: Mapping[str, str]) -> str:
    for k, v in env.items():
        assert '"' not in v and "\n" not in v, (k, v)
    return ",".join(f'environment="{k}={v}"' for k, v in env.items())


def _all_gone(pids: list[int]) -> bool:
    return not any(alive(p) for p in pids)


class Sshd:
    """The server, its keys and the client config with one alias per machine."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="hs", dir="/tmp"))
        self.dir.chmod(0o700)
        self.port = free_port()
        self.host_key = self.dir / "host_key"
        self.host_pub = _keygen(self.host_key)
        self.authorized = self.dir / "authorized_keys"
        self.authorized.write_text("")
        self.known = self.dir / "known_hosts"
        self.known.write_text(f"[127.0.0.1]:{self.port} {self.host_pub}\n")
        #: Where each machine's hail keeps its ssh control sockets (`ssh/` in its state root).
        self.controls: set[str] = set()
        self.proc: subprocess.Popen[bytes] | None = None
        self.aliases: dict[str, str] = {}  # alias -> its Host block

    def machine(self, alias: str, env: Mapping[str, str]) -> None:
        """A key for `alias` whose landing side has `env`, and its Host block."""
        key = self.dir / f"key-{alias}"
        pub = _keygen(key)
        if env.get("XDG_STATE_HOME"):
            self.controls.add(os.path.join(env["XDG_STATE_HOME"], "hail", "ssh"))
        with self.authorized.open("a") as f:
            f.write(f"{_env_option(env)} {pub}\n")
        self.aliases[alias] = self._block(alias, self.port, key)

    def dead_alias(self, alias: str) -> None:
        """An alias whose port refuses connections."""
        self.aliases[alias] = self._block(alias, closed_port(), self.dir / "key-none")

    def _block(self, alias: str, port: int, key: Path) -> str:
        return (
            f"Host {alias}\n  HostName 127.0.0.1\n  Port {port}\n  User {pwd.getpwuid(os.geteuid()).pw_name}\n"
            f"  IdentityFile {key}\n  IdentitiesOnly yes\n  UserKnownHostsFile {self.known}\n"
            "  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n"
        )

    def client_config(self, name: str, aliases: list[str]) -> Path:
        path = self.dir / f"ssh-{name}.conf"
        path.write_text("".join(self.aliases[a] for a in aliases))
        return path

    def start(self) -> None:
        config = self.dir / "sshd_config"
        config.write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {self.host_key}\n"
            f"PidFile {self.dir / 'sshd.pid'}\nAuthorizedKeysFile {self.authorized}\n"
            "UsePAM no\nStrictModes no\nPermitUserEnvironment yes\nPasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin yes\n"
            "MaxStartups 100\nMaxSessions 100\nLogLevel ERROR\n"
        )
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation
        self.proc = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=(self.dir / "sshd.log").open("wb"),
            start_new_session=True,
        )
        assert wait_until(self._listening, 10), (self.dir / "sshd.log").read_text()

    def _listening(self) -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def masters(self) -> list[int]:
        """Live ssh connection masters whose control socket lies in a machine's state."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            # A master renames itself `ssh: <control path> [mux]`.
            head = cmdline[0] if cmdline else b""
            line = b" ".join(cmdline)
            ours = any(os.fsencode(c) in line for c in self.controls)
            if head.startswith(b"ssh") and ours and alive(int(entry.name)):
                found.append(int(entry.name))
        return found

    def sessions(self) -> list[int]:
        """sshd and its session processes (children of the listener)."""
        from tests.support.procs import descendants

        return descendants([self.proc.pid]) if self.proc is not None else []

    def stop(self) -> None:
        """End every master (by pid), then sshd and its sessions; never raises."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pids = self.masters() + self.sessions()
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
            if wait_until(partial(_all_gone, pids), 3):
                break
        if self.proc is not None:
            with contextlib.suppress(Exception):
                self.proc.wait(5)
        shutil.rmtree(self.dir, ignore_errors=True)
