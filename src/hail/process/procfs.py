"""Processes from Linux's `/proc`: plain os calls on string paths, no subprocess, so the hooks and
the waiter that load it stay lean [docs/transport.md "Processes"].

The start identity is `/proc/<pid>/stat`'s starttime, in clock ticks since boot.
"""

from __future__ import annotations

import os

from hail.process.base import Processes

ROOT = "/proc"


def readable() -> bool:
    """Whether this system has a `/proc` that says what this process is."""
    return _read(f"{ROOT}/self/stat") is not None


def _read(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def stat_fields(pid: int | str) -> list[bytes] | None:
    """`/proc/<pid>/stat` from the state field on (the name may hold spaces and parentheses)."""
    data = _read(f"{ROOT}/{pid}/stat")
    if not data or b")" not in data:
        return None
    return data.rsplit(b")", 1)[1].split()


def _link(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


class ProcFs(Processes):
    name = "proc"

    def start(self, pid: int) -> str:
        fields = stat_fields(pid) if pid > 0 else None
        if fields is None or len(fields) < 20 or fields[0] in (b"Z", b"X"):
            return ""
        return fields[19].decode("ascii", "replace")  # field 22 of stat(5): starttime

    def parent(self, pid: int) -> int:
        fields = stat_fields(pid) if pid > 0 else None
        try:
            return int(fields[1]) if fields is not None else 0
        except (IndexError, ValueError):
            return 0

    def args(self, pid: int) -> list[str]:
        data = _read(f"{ROOT}/{pid}/cmdline")
        return os.fsdecode(data.rstrip(b"\0")).split("\0") if data else []

    def comm(self, pid: int) -> str:
        data = _read(f"{ROOT}/{pid}/comm")
        return data.decode("utf-8", "replace").strip() if data else ""

    def children(self) -> dict[int, list[int]]:
        tree: dict[int, list[int]] = {}
        try:
            entries = os.listdir(ROOT)
        except OSError:
            return tree
        for name in entries:
            if name.isdigit():
                fields = stat_fields(name)
                if fields is not None and len(fields) > 1:
                    tree.setdefault(int(fields[1]), []).append(int(name))
        return tree

    def started_at(self, pid: int) -> float | None:
        start = self.start(pid)
        data = _read(f"{ROOT}/stat")
        if not start or data is None:
            return None
        boot = next((ln.split()[1] for ln in data.splitlines() if ln.startswith(b"btime ")), b"")
        try:
            return int(boot) + int(start) / os.sysconf("SC_CLK_TCK")
        except ValueError:
            return None

    def executable(self, pid: int) -> str | None:
        return _link(f"{ROOT}/{pid}/exe")

    def cwd(self, pid: int) -> str | None:
        return _link(f"{ROOT}/{pid}/cwd")

    def environment(self, pid: int) -> dict[str, str] | None:
        data = _read(f"{ROOT}/{pid}/environ")
        if data is None:
            return None
        env: dict[str, str] = {}
        for item in data.split(b"\0"):
            key, eq, value = item.partition(b"=")
            if eq:
                env[os.fsdecode(key)] = os.fsdecode(value)
        return env

    def own_start(self) -> int | None:
        fields = stat_fields("self")
        try:
            return int(fields[19]) if fields is not None else None
        except (IndexError, ValueError):
            return None
