"""A client's file read backward from its end, one complete line at a time, newest first, in
bounded reads [docs/gauge.md "Reading"]: `policy.GAUGE_READ_STEP` bytes a step and at most
`policy.GAUGE_READ_MAX` in all, so a 50 MB transcript costs what a small one does.

The text after the file's last newline is a line its client is still writing: it is never
returned. A line that starts before what the bound lets be read is never returned either, so
every line returned is whole.
"""

from __future__ import annotations

import errno
import os
import stat

from hail import policy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Generator

_NEWLINE = b"\n"


class Tail:
    """The file at `path`, to be read backward. `bytes_read` counts what `lines` read so far;
    `whole` is True once every complete line of the file was returned."""

    __slots__ = ("bytes_read", "limit", "path", "size", "step", "whole")

    def __init__(
        self,
        path: str,
        step: int = policy.GAUGE_READ_STEP,
        limit: int = policy.GAUGE_READ_MAX,
    ) -> None:
        self.path = path
        self.step = step
        self.limit = limit
        self.bytes_read = 0
        #: The file's size when opened (-1 before): what `lines` reads of it, however it grows.
        self.size = -1
        self.whole = False

    @property
    def fits(self) -> bool:
        """Whether the whole file lies within the bound, so `lines` can return all of it."""
        return 0 <= self.size <= self.limit

    def lines(self) -> Generator[bytes, None, None]:
        """The file's complete lines, newest first, without their newline. OSError when it cannot
        be opened or is no regular file (a FIFO is never waited on)."""
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", self.path)
            self.size = info.st_size
            yield from self._backward(fd, info.st_size)
        finally:
            os.close(fd)

    def _backward(self, fd: int, size: int) -> Generator[bytes, None, None]:
        # `carry` holds the start of a line whose beginning lies further back; until the first
        # newline is seen it holds the unfinished text after the file's last newline.
        pos, carry, ended = size, b"", False
        while pos > 0 and self.bytes_read < self.limit:
            n = min(self.step, pos, self.limit - self.bytes_read)
            pos -= n
            chunk = os.pread(fd, n, pos)
            if len(chunk) < n:  # the file was cut while read: what is left is not its end
                return
            self.bytes_read += n
            buf = chunk + carry
            if not ended:
                cut = buf.rfind(_NEWLINE)
                if cut < 0:
                    carry = buf
                    continue
                buf, ended = buf[:cut], True
            parts = buf.split(_NEWLINE)
            carry = parts[0]
            for line in reversed(parts[1:]):
                if line:
                    yield line
        if pos == 0:
            if ended and carry:
                yield carry
            self.whole = True
