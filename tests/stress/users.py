"""Two local users on one machine, for the attacks of one user (or of root) on another's mail.

hail runs as an ordinary user, `YOU`; files and directories of an attacker are owned by `OTHER`, and
files written by `sudo -E hail` by root. Creating files of other users needs root, so these tests
run only as root (the attacker's side) and drop to `YOU` with `setpriv` for every hail process: a
test that ran hail as root would prove nothing, since root may touch any file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.support.entry import run_hail
from tests.support.world import World, clean_env

#: The user hail runs as, and another local user; neither needs a passwd entry.
YOU = 42420
OTHER = 42421

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="creating another user's files needs root (and setpriv to drop to an ordinary user)",
)


def own(path: Path, uid: int = YOU) -> None:
    """Give `path` and everything below it to `uid` (its group too)."""
    os.chown(path, uid, uid, follow_symlinks=False)
    if path.is_dir() and not path.is_symlink():
        for p in path.rglob("*"):
            os.chown(p, uid, uid, follow_symlinks=False)


class UserWorld(World):
    """A World whose hail runs as `YOU`, in a folder `YOU` owns under a 0755 /tmp directory."""

    def run(
        self,
        *args: str,
        cwd: str | Path = "boss",
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = 60,
        as_root: bool = False,
    ) -> subprocess.CompletedProcess[str]:
        where = cwd if isinstance(cwd, Path) else self.root / cwd
        drop = [] if as_root else ["setpriv", f"--reuid={YOU}", f"--regid={YOU}", "--clear-groups"]
        env = {**self.env, **(env or {})}
        return run_hail(*args, cwd=where, env=env, stdin=stdin, timeout=timeout, prefix=drop)

    def make_seat(self, name: str, content: str | None = None) -> Path:
        d = super().make_seat(name, content)
        own(d)
        return d


@pytest.fixture
def user_world() -> Iterator[UserWorld]:
    """`boss` and `worker` seats, HOME and state, all `YOU`'s, in a folder others may traverse."""
    top = Path(tempfile.mkdtemp(prefix="hail-users-"))
    try:
        top.chmod(0o755)
        root = top / "w"
        root.mkdir()
        (root / "home").mkdir()
        own(root)
        w = UserWorld(root)
        w.env = clean_env(root)
        w.env["HAIL_SOCKET"] = "/nonexistent/socket"
        w.make_seat("boss")
        w.make_seat("worker")
        yield w
    finally:
        shutil.rmtree(top, ignore_errors=True)
