"""Reading a body from stdin without ever hanging an agent's tool runner [docs/commands.md
"Headline and body"].

A terminal is never read; an idle pipe gets 2 s to start, a file or /dev/null 10 ms; a flowing body
must end within STDIN_TOTAL and STDIN_MAX_MIB (policy).
"""

from __future__ import annotations

import os
import stat
import time

from hail import policy
from hail.errors import UsageError


def first_byte_wait(fd: int) -> float | None:
    """How long to wait for the first byte on `fd`; None when it must not be read at all."""
    try:
        if os.isatty(fd):
            return None
        mode = os.fstat(fd).st_mode
    except OSError:
        return None
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return policy.STDIN_PIPE_WAIT
    return policy.STDIN_FILE_WAIT


def read_body(fd: int = 0) -> str | None:
    """The text on stdin, or None when there is none within the window."""
    wait = first_byte_wait(fd)
    if wait is None or _is_devnull(fd):
        return None
    import select  # only a send with something on stdin pays for it

    start = time.monotonic()
    chunks: list[bytes] = []
    size = 0
    timeout = wait
    while True:
        try:
            ready, _, _ = select.select([fd], [], [], max(0.0, timeout))
        except (OSError, ValueError):
            break
        if not ready:
            if not chunks:
                return None
            raise _unending()
        try:
            data = os.read(fd, 1 << 16)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
        size += len(data)
        if size > policy.STDIN_MAX_BYTES:
            raise UsageError(
                f"the body on stdin is over {policy.STDIN_MAX_MIB} MiB; put it in a file and cite "
                "the path"
            )
        timeout = policy.STDIN_TOTAL - (time.monotonic() - start)
        if timeout <= 0:
            raise _unending()
    if not chunks:
        return None
    return b"".join(chunks).decode("utf-8", errors="replace")


def _is_devnull(fd: int) -> bool:
    """/dev/null, the stdin of most tool calls: nothing to read, nothing to wait for."""
    try:
        return os.path.samestat(os.fstat(fd), os.stat(os.devnull))
    except OSError:
        return False


def _unending() -> UsageError:
    return UsageError(
        f"stdin did not end within {policy.STDIN_TOTAL:g} s; pass a finite body (a heredoc or a "
        "file)"
    )
