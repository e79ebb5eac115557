"""Process helpers shared by the suites that start real processes: polling, and the process tree
a scratch tmux server leaves behind (so teardown can end it by pid)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from hail.process.base import Processes
from hail.process.choose import backend


def wait_until(check: Callable[[], bool], timeout: float = 10.0, interval: float = 0.025) -> bool:
    """Poll `check` until it holds or `timeout` seconds pass; never sleep and hope."""
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)


def hails_backend() -> Processes:
    """The process backend the hail under test picks here (HAIL_PROCESS_BACKEND may force the
    portable one): a record the test writes must read as one written by that hail."""
    return backend(os.environ)


def children_of() -> dict[int, list[int]]:
    """Parent pid to child pids, from /proc (empty where there is no /proc)."""
    tree: dict[int, list[int]] = {}
    proc = Path("/proc")
    for entry in proc.iterdir() if proc.is_dir() else []:
        if not entry.name.isdigit():
            continue
        try:
            # The command name may hold spaces and parentheses: the ppid follows the last ')'.
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def descendants(roots: Sequence[int]) -> list[int]:
    """The roots and every process below them."""
    tree = children_of()
    found: list[int] = []
    stack = list(roots)
    while stack:
        pid = stack.pop()
        if pid in found:
            continue
        found.append(pid)
        stack.extend(tree.get(pid, []))
    return found


def alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
