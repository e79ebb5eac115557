"""Private files and directories: every directory hail creates is 0700, every file 0600 [SPEC §3.2].

Modes are set at creation and again with chmod, so a restrictive umask cannot leave state unusable and
a permissive one cannot expose it. Existing files and directories keep their modes.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def make_dirs(path: Path) -> None:
    """Create `path` and any missing parents, each 0700 (os.makedirs would set the last level only)."""
    missing: list[Path] = []
    p = path
    while not p.is_dir():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(d, DIR_MODE)


def write_new(path: Path, data: bytes, *, sync: bool) -> None:
    """Create `path` exclusively (0600) and write `data`; fsync when asked."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, text: str) -> None:
    """Records and configs: write `.<name>.<pid>.tmp` beside the target, then rename over it."""
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    try:
        write_new(tmp, text.encode("utf-8"), sync=False)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def touch(path: Path) -> None:
    """Create an empty 0600 file if missing, then set its mtime to now."""
    try:
        os.utime(path)
    except FileNotFoundError:
        with contextlib.suppress(FileExistsError):
            write_new(path, b"", sync=False)
        os.utime(path)


def list_names(path: Path) -> list[str]:
    """Entries of a directory, hidden ones ignored; a missing directory lists nothing."""
    try:
        return [n for n in os.listdir(path) if not n.startswith(".")]
    except (FileNotFoundError, NotADirectoryError):
        return []


def read_text(path: Path) -> str | None:
    """The file's text (invalid UTF-8 replaced), or None when it is missing."""
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def mtime(path: Path) -> float | None:
    try:
        return os.stat(path).st_mtime
    except (FileNotFoundError, NotADirectoryError):
        return None
