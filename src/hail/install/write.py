"""Reading and writing a harness file without losing another program's edit [docs/commands.md
"setup"]: the file's text as it was read, a backup of it, and the new text renamed over it only
while the file is still the one read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from hail.errors import StateError
from hail.store import fs

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


def read(path: Path) -> str:
    """The config's text; a missing file counts as empty."""
    return read_seen(path)[0]


def read_seen(path: Path) -> tuple[str, Seen]:
    """The config's text, and the file as it was read (for the compare before a write)."""
    try:
        seen = look(path)
    except OSError as e:
        raise StateError(
            f"cannot read {path}: {e.strerror or e}; fix it, then rerun hail setup"
        ) from None
    data = seen.data
    try:
        return data.decode("utf-8"), seen
    except UnicodeDecodeError as e:
        raise StateError(
            f"{path} is not UTF-8 text ({e.reason} at byte {e.start}); "
            "fix it, then rerun hail setup"
        ) from None


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
    fs.write_atomic(str(backup), text, mode=NEW_FILE_MODE)


def write_config(path: Path, text: str, seen: Seen) -> bool:
    """Write `.<name>.<pid>.tmp` beside the file, synced, then rename it over the file, unless the
    file is no longer the one `seen` (False, nothing written).

    The file is compared with `seen` after the sync and once more just before the rename, so that
    another program's save is replaced only if it lands between that last stat and the rename. A
    new file is 0600; an existing one keeps its mode. A symlinked config (a dotfiles checkout) is
    written through to its target, so the link survives.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE

    def unchanged() -> bool:
        return look(target) == seen and _identity_now(target) == seen.identity

    return fs.write_atomic(str(target), text, mode=mode, sync=True, before_rename=unchanged)


def _identity_now(path: Path) -> tuple[int, int, int, int] | None:
    try:
        return _identity(os.stat(path))
    except FileNotFoundError:
        return None
