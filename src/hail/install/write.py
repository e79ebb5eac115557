"""Writing a harness file without losing another program's edit [docs/commands.md "setup"]: the
file as it was read, a backup of it, and the new text renamed over it only while the file is still
the one read.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from hail.errors import StateError

BACKUP_SUFFIX = ".hail-backup"
NEW_FILE_MODE = 0o600


@dataclass(frozen=True)
class Seen:
    """A config as setup read it: its bytes, and which file it was when (None: there was none)."""

    data: bytes
    identity: tuple[int, int, int, int] | None


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    # Another program's save either renames a new file in (a new inode) or rewrites this one (a
    # new mtime, and mostly a new size).
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def look(path: Path) -> Seen:
    """The file's bytes and identity, both from one open file."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return Seen(b"", None)
    with os.fdopen(fd, "rb") as f:
        identity = _identity(os.fstat(f.fileno()))
        return Seen(f.read(), identity)


def install(path: Path, old: str, new: str, seen: Seen) -> bool:
    """Back up a non-empty old file beside it, then write the new text atomically, unless the
    file is no longer the one `seen` (then nothing is written but the backup: False)."""
    try:
        if old:
            _write_backup(path.with_name(path.name + BACKUP_SUFFIX), old)
        path.parent.mkdir(parents=True, exist_ok=True)  # Codex's rules/ may not exist yet
        return write_config(path, new, seen)
    except OSError as e:
        raise StateError(
            f"cannot write {path}: {e.strerror or e}; fix its permissions, then rerun hail setup"
        ) from None


def _write_backup(backup: Path, text: str) -> None:
    """A fresh 0600 file renamed over the backup's name: a config may hold tokens, and a link at
    that name (to anything) is replaced, never written through."""
    _replace(backup, text, NEW_FILE_MODE)


def write_config(path: Path, text: str, seen: Seen) -> bool:
    """Write `.<name>.<pid>.tmp` beside the file, then rename it over the file, unless the file is
    no longer the one `seen` (False, nothing written).

    A new file is 0600; an existing one keeps its mode. A symlinked config (a dotfiles checkout) is
    written through to its target, so the link survives.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    return _replace(target, text, mode, seen)


def _replace(target: Path, text: str, mode: int, seen: Seen | None = None) -> bool:
    """A new file of `mode` beside `target`, renamed over it (a link at `target` included).

    With `seen` (a config, not a backup), the new file is synced to disk, and the target is
    compared with `seen` after that and once more just before the rename, so that another
    program's save is replaced only if it lands between that last stat and the rename; when it
    differs the new file is removed (False). The directory is synced after the rename.
    """
    tmp = target.parent / f".{target.name}.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            # The umask must not narrow an existing file's mode.
            os.fchmod(f.fileno(), mode)
            f.write(text)
            if seen is not None:
                f.flush()
                os.fsync(f.fileno())
        if seen is not None and (look(target) != seen or _identity_now(target) != seen.identity):
            tmp.unlink()
            return False
        tmp.replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if seen is not None:
        _sync_directory(target.parent)
    return True


def _identity_now(path: Path) -> tuple[int, int, int, int] | None:
    try:
        return _identity(os.stat(path))
    except FileNotFoundError:
        return None


def _sync_directory(directory: Path) -> None:
    """Make the rename durable; a filesystem that cannot sync a directory is left as it is."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
