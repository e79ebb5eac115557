"""Private files and directories: every directory hail creates is 0700, every file 0600
[docs/files.md "Layout"].

Modes are set at creation and again with chmod, so a restrictive umask cannot leave state unusable and
a permissive one cannot expose it. Existing files and directories keep their modes.
"""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

DIR_MODE = 0o700
FILE_MODE = 0o600


def make_dirs(path: str) -> None:
    """Create `path` and any missing parents, each 0700 (os.makedirs would set the last level only)."""
    missing: list[str] = []
    p = path
    while not os.path.isdir(p):
        missing.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    for d in reversed(missing):
        try:
            os.mkdir(d, DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(d, DIR_MODE)


def write_new(path: str, data: bytes, *, sync: bool, mode: int = FILE_MODE) -> None:
    """Create `path` exclusively (0600, or `mode` whatever the umask) and write `data`; fsync
    when asked. A write that fails (a full disk, say) leaves no half-written file behind."""
    # O_EXCL also refuses a symlink at `path` (POSIX), so nothing is written through one.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            os.fchmod(fd, mode)
            write_all(fd, data)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        remove_quietly(path)
        raise


def write_all(fd: int, data: bytes) -> None:
    """Write every byte: `os.write` may write fewer than asked (a pipe, a full disk, a signal)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def remove_quietly(path: str) -> None:
    """Remove a file of our own that must not stay; one that is already gone is no error."""
    try:
        os.unlink(path)
    except OSError:
        pass


def write_atomic(
    path: str,
    text: str,
    *,
    mode: int = FILE_MODE,
    sync: bool = False,
    before_rename: Callable[[], bool] | None = None,
) -> bool:
    """Records and configs: write `.<name>.<pid>.tmp` beside the target, then rename over it (a
    link at `path` is replaced, never written through). True once renamed.

    The new file is `mode` (0600 by default) whatever the umask. With `sync`, it is fsynced before
    the rename and its directory after it, so the new text survives a crash once this returns.
    `before_rename`, when given, is asked last, just before the rename (after the sync): when it
    says no, the new file is removed and the target left as it is (False).
    """
    head, name = os.path.split(path)
    tmp = os.path.join(head, f".{name}.{os.getpid()}.tmp")
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    try:
        # A path may hold bytes that are not UTF-8 (kept as surrogate escapes): written as they were.
        write_new(tmp, text.encode("utf-8", "surrogateescape"), sync=sync, mode=mode)
        if before_rename is not None and not before_rename():
            remove_quietly(tmp)
            return False
        os.replace(tmp, path)
    except BaseException:
        remove_quietly(tmp)
        raise
    if sync:
        sync_dir(head or ".")
    return True


def sync_dir(path: str) -> None:
    """Make a rename into `path` durable where the platform allows fsync on a directory."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def touch(path: str) -> None:
    """Create an empty 0600 file if missing, then set its mtime to now."""
    try:
        os.utime(path)
    except FileNotFoundError:
        try:
            write_new(path, b"", sync=False)
        except FileExistsError:
            pass
        os.utime(path)


def list_names(path: str) -> list[str]:
    """Entries of a directory, hidden ones ignored; a missing directory lists nothing, and so does
    anything else where a directory should be (a file, a symlink loop: `hail doctor` names it)."""
    try:
        return [n for n in os.listdir(path) if not n.startswith(".")]
    except OSError as e:
        if no_directory(e):
            return []
        raise


def list_dirs(path: str) -> list[str]:
    """The subdirectories of a directory, hidden ones ignored: never a symlink (to a directory or
    a loop) nor a file. The directory's own entry types say it, with no stat per entry."""
    try:
        with os.scandir(path) as entries:
            return [
                e.name
                for e in entries
                if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
            ]
    except OSError as e:
        if no_directory(e):
            return []
        raise


def no_directory(e: OSError) -> bool:
    """Whether an error listing a path says no directory is there: it is missing, a file, or a
    symlink loop (ELOOP)."""
    return isinstance(e, (FileNotFoundError, NotADirectoryError)) or e.errno == errno.ELOOP


_CHUNK = 1 << 16


class NotRegularFile(OSError):
    """A FIFO, socket, device, directory or symlink where hail expects one of its files."""


def open_regular(path: str, flags: int, mode: int = FILE_MODE) -> int:
    """`os.open` that never follows a symlink, never waits on a FIFO and refuses anything but a
    regular file.

    O_NOFOLLOW refuses a symlink (ELOOP), so a link planted among the state (say in `new/`, to
    /etc/passwd) is never read or written through. O_NONBLOCK makes opening a FIFO return at once
    instead of waiting for its other end (or fail with ENXIO when writing to one nobody reads); the
    fstat then refuses it, so no caller reads from or writes to one. Other errors (missing,
    permission) are raised as they are.
    """
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | os.O_NOFOLLOW, mode)
    except OSError as e:
        if e.errno in (errno.ENXIO, errno.ELOOP):  # a FIFO with no reader, a socket, a symlink
            raise NotRegularFile(e.errno, "not a regular file", path) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file", path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_text(path: str, errors: str = "replace") -> str | None:
    """The file's text (invalid UTF-8 replaced), or None when it is missing or not a regular
    file (a directory, or a FIFO: skipped, never waited on).

    Every state file hail reads comes through here [docs/files.md "Layout"].
    `errors="surrogateescape"` reads a file holding a path back exactly, whatever its bytes.

    Plain os calls rather than open(): a brief reads every hold record, and the io layer's
    objects cost more than the reading.
    """
    try:
        fd = open_regular(path, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError, NotRegularFile):
        return None
    chunks: list[bytes] = []
    try:
        while True:
            data = os.read(fd, _CHUNK)
            chunks.append(data)
            if len(data) < _CHUNK:  # a short read of a regular file is its end
                break
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8", errors=errors)


def mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError as e:
        if no_directory(e):
            return None
        raise


def parse_record(text: str) -> dict[str, str]:
    """Lenient record reader: every `key: value` line, first one wins [docs/files.md "Records"].
    Here, with the other file primitives, since the hook path reads presence records and never
    needs the rest of `records`."""
    out: dict[str, str] = {}
    for line in text.split("\n"):
        key, sep, value = line.partition(": ")
        if sep and key and " " not in key:
            out.setdefault(key, value)
    return out
