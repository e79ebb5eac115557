"""The installed `hail` entry point, found one way and run one way."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.support.ids import id_of


def hail_bin() -> str:
    """The `hail` beside this interpreter (the venv's editable install), else the one on PATH."""
    beside = Path(sys.executable).parent / "hail"
    if beside.exists():
        return str(beside)
    found = shutil.which("hail")
    if found is None:
        raise RuntimeError("the hail entry point is not installed: pip install -e .")
    return found


def run_hail(
    *args: str,
    cwd: Path,
    env: Mapping[str, str],
    stdin: str | bytes | None = None,
    timeout: float = 60,
    prefix: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """Run the installed hail to completion (after `prefix`, a command such as `setpriv …` that
    runs it); stdin is /dev/null unless given, output decoded."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [*prefix, hail_bin(), *args],
        cwd=cwd,
        env=dict(env),
        input=data,
        stdin=None if data is not None else subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", errors="replace"),
        proc.stderr.decode("utf-8", errors="replace"),
    )


@dataclass
class HailRun:
    """One finished hail run, as a failing test reports it."""

    args: list[str]
    rc: int
    out: str
    err: str

    @property
    def id(self) -> str:
        """The id a send printed (its stdout is that one line)."""
        return id_of(self.out)

    def __str__(self) -> str:
        return f"hail {' '.join(self.args)} -> rc {self.rc}\nstdout: {self.out!r}\nstderr: {self.err!r}"
