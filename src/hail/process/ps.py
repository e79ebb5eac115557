"""Processes from `ps` and `lsof`, for a system with no `/proc` (macOS, the BSDs)
[docs/transport.md "Processes"].

One `ps` looks at every process, and that look answers the questions asked within LOOK_SECONDS of
it; a name, a working directory, a program or an environment is one more `ps` or `lsof`. Each runs
with a fixed, minimal environment: `TZ=UTC0` and `LC_ALL=C`, so a start reads the same whoever
asks, and a PATH of system directories only. The start identity is `ps:` and the start second
(`lstart`): with the pid it names one process, short of the pid being freed and taken again within
one second.

A subprocess, so never on Linux's hook path: this backend is loaded only where `/proc` is not
readable, or when `HAIL_PROCESS_BACKEND=portable` asks for it.
"""

from __future__ import annotations

import os
import time

from hail import policy
from hail.process.base import DELETED, RUNTIMES, Processes, script_agent_of

#: ps and lsof come with the system; nothing a workspace put on a PATH is run.
SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"
_ENV = {"PATH": SYSTEM_PATH, "TZ": "UTC0", "LC_ALL": "C"}
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: How long one look at every process answers for (a send's checks of one route).
LOOK_SECONDS = 0.2
#: How long a process seen with its start passes on its pid existing (`kill 0`) alone: its pid
#: would have to be freed and taken again within that time, by a process of the same user.
VERIFIED_SECONDS = 30.0
#: The columns of one process's look: pid ppid stat lstart (five words) args.
_LOOK = ("pid=", "ppid=", "stat=", "lstart=", "args=")


def _run(argv: list[str]) -> str:
    """The command's stdout, "" when it failed or could not run."""
    import subprocess  # here: the Stop hook asks this backend only for what needs no subprocess

    try:
        proc = subprocess.run(
            argv,
            env=_ENV,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=policy.PS_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return os.fsdecode(proc.stdout) if proc.returncode == 0 else ""


def epoch_of(lstart: str) -> int | None:
    """`lstart` in UTC (`Tue Dec  1 19:52:22 2026`) as seconds since the epoch."""
    try:
        _, month, day, hms, year = lstart.split()
        hour, minute, second = (int(p) for p in hms.split(":"))
        y, m, d = int(year), _MONTHS.index(month) + 1, int(day)
    except ValueError:
        return None
    # Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return days * 86400 + hour * 3600 + minute * 60 + second


def _is_name(word: str) -> bool:
    """An environment variable's name: a letter or `_`, then letters, digits and `_`."""
    return bool(word) and not word[0].isdigit() and word.replace("_", "a").isalnum()


def _exists(pid: int) -> bool:
    """Whether a process of that pid exists (a zombie too), by `kill 0`: no subprocess."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: it exists
    return True


class _Look:
    __slots__ = ("args", "epoch", "ppid", "state")

    def __init__(self, ppid: int, state: str, epoch: int | None, args: str) -> None:
        self.ppid, self.state, self.epoch, self.args = ppid, state, epoch, args


def _looks() -> dict[int, _Look]:
    """Every process, from one `ps`."""
    found: dict[int, _Look] = {}
    for line in _run(["ps", "-A", "-ww", *(a for c in _LOOK for a in ("-o", c))]).split("\n"):
        words = line.split(None, 8)
        if len(words) < 8 or not words[0].isdigit() or not words[1].isdigit():
            continue
        args = words[8] if len(words) > 8 else ""
        found[int(words[0])] = _Look(int(words[1]), words[2], epoch_of(" ".join(words[3:8])), args)
    return found


def _lsof_name(pid: int, fd: str) -> tuple[str, str] | None:
    """`lsof`'s name and inode of the process's file descriptor `fd` (`cwd`, `txt`), the first."""
    out = _run(["lsof", "-a", "-p", str(pid), "-d", fd, "-Fni"])
    inode = ""
    for line in out.split("\n"):
        if line[:1] == "i":
            inode = line[1:]
        elif line[:1] == "n":
            return line[1:], inode
    return None


class Ps(Processes):
    """One look at every process serves the questions asked within LOOK_SECONDS of it: a send's
    checks of one route are one `ps`, and a long-lived caller (the waiter) looks afresh each time."""

    name = "portable"

    def __init__(self) -> None:
        self._at = 0.0
        self._seen: dict[int, _Look] = {}
        self._verified: dict[tuple[int, str], float] = {}

    def _look(self, pid: int) -> _Look | None:
        """The look's line for a pid that exists now: a pid that ended since the look is gone at
        once, and one the look does not hold started since, so it is looked at again."""
        if pid <= 0 or not _exists(pid):
            return None
        if time.monotonic() - self._at > LOOK_SECONDS or pid not in self._seen:
            self._seen, self._at = _looks(), time.monotonic()
        return self._seen.get(pid)

    def is_running(self, pid: int, start: str) -> bool:
        """As every backend, but a process already seen with this start within VERIFIED_SECONDS
        only has to exist still (`kill 0`), and a pid that does not exist costs no `ps`: the
        waiter, which asks every second, runs `ps` twice a minute."""
        if not start or pid <= 0 or not _exists(pid):
            return False
        if (
            time.monotonic() - self._verified.get((pid, start), -VERIFIED_SECONDS)
            < VERIFIED_SECONDS
        ):
            return True
        if self.start(pid) != start:
            return False
        self._verified[(pid, start)] = time.monotonic()
        return True

    def start(self, pid: int) -> str:
        look = self._look(pid)
        if look is None or look.epoch is None or look.state[:1] in ("Z", "X", ""):
            return ""
        return f"ps:{look.epoch}"

    def parent(self, pid: int) -> int:
        look = self._look(pid)
        return look.ppid if look is not None else 0

    def args(self, pid: int) -> list[str]:
        # ps joins the arguments with spaces: an argument that holds one reads as two.
        look = self._look(pid)
        return look.args.split(" ") if look is not None and look.args else []

    def comm(self, pid: int) -> str:
        name = _run(["ps", "-o", "ucomm=", "-p", str(pid)]).strip() if pid > 0 else ""
        return name.rsplit("/", 1)[-1]

    def _table(self) -> tuple[dict[int, int], dict[int, str]]:
        """Every process's parent and name, from one `ps`."""
        parents: dict[int, int] = {}
        names: dict[int, str] = {}
        for line in _run(["ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "ucomm="]).split("\n"):
            words = line.split(None, 2)
            if len(words) >= 2 and words[0].isdigit() and words[1].isdigit():
                pid = int(words[0])
                parents[pid] = int(words[1])
                names[pid] = words[2].strip().rsplit("/", 1)[-1] if len(words) > 2 else ""
        return parents, names

    def children(self) -> dict[int, list[int]]:
        tree: dict[int, list[int]] = {}
        for pid, ppid in self._table()[0].items():
            tree.setdefault(ppid, []).append(pid)
        return tree

    def agent_pid(self, pane_pid: int, agent: str) -> int | None:
        parents, names = self._table()
        tree: dict[int, list[int]] = {}
        for pid, ppid in parents.items():
            tree.setdefault(ppid, []).append(pid)
        queue = [pane_pid]
        while queue:
            pid = queue.pop(0)
            name = names.get(pid, "")
            if name in RUNTIMES:
                name = script_agent_of(self.args(pid)) or name
            if name == agent:
                return pid
            queue.extend(tree.get(pid, []))
        return None

    def pids_of(self, agent: str) -> list[int]:
        """As every backend, from one `ps` (`comm` would be one per process)."""
        found = []
        for pid, name in sorted(self._table()[1].items()):
            if name in RUNTIMES:
                name = script_agent_of(self.args(pid)) or name
            if name == agent:
                found.append(pid)
        return found

    def started_at(self, pid: int) -> float | None:
        look = self._look(pid)
        return float(look.epoch) if look is not None and look.epoch is not None else None

    def executable(self, pid: int) -> str | None:
        """lsof's first `txt` file, the program; None when the file at that path is not the one
        the process runs (removed or replaced since it started)."""
        found = _lsof_name(pid, "txt")
        if found is None:
            return None
        path, inode = found
        if path.endswith(DELETED):
            return path
        try:
            same = str(os.stat(path).st_ino) == inode
        except OSError:
            same = False
        return path if same else path + DELETED

    def cwd(self, pid: int) -> str | None:
        found = _lsof_name(pid, "cwd")
        return found[0] if found is not None else None

    def environment(self, pid: int) -> dict[str, str] | None:
        """`ps e`'s words after the arguments, where each variable starts a word `NAME=`; a value
        that holds a space keeps its words."""
        look = self._look(pid)
        shown = _run(["ps", "eww", "-o", "command=", "-p", str(pid)]).strip("\n")
        if look is None or not shown.startswith(look.args):
            return None
        env: dict[str, str] = {}
        key = ""
        for word in shown[len(look.args) :].split(" "):
            name, eq, value = word.partition("=")
            if eq and _is_name(name):
                key = name
                env[key] = value
            elif key:
                env[key] += " " + word
        return env
