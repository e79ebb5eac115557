"""A stand-in far machine for the near side's tests, with no sshd: a program named by HAIL_SSH that
ignores ssh's words, reads hail's request on stdin and answers each request (`op:`) with what the
test wrote for it: bytes, a pause, an exit status. So a test can play a hostile or broken far hail
(noise before the answer, a huge answer, a forged exit code, replies nobody asked for) against the
real near side. Every request it got is kept, in order, for the test to read.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hail.remote import wire

#: The program: one request in, the op's answer out (after its pause), exited with its status.
_PROGRAM = """\
import os, sys, time
here = {here!r}
data = sys.stdin.buffer.read()
op = "none"
for line in data.split(b"\\n"):
    if not line:
        break
    if line.startswith(b"op: "):
        op = line[4:].decode()
seen = os.path.join(here, "requests")
names = os.listdir(seen)
attempt = sum(1 for name in names if name.endswith("-" + op))
with open(os.path.join(seen, "%04d-%s" % (len(names), op)), "wb") as f:
    f.write(data)
if os.path.exists(os.path.join(here, "%s@%d" % (op, attempt))):
    op = "%s@%d" % (op, attempt)
def read(name, default):
    try:
        with open(os.path.join(here, name), "rb") as f:
            return f.read()
    except FileNotFoundError:
        return default
time.sleep(float(read(op + ".pause", b"0")))
out = os.fdopen(1, "wb", buffering=0)
stream = read(op + ".stream", b"")
if stream:
    size, chunk = int(stream.split(b" ")[0]), b"x" * 65536
    out.write(read(op + ".head", b""))
    while size > 0:
        out.write(chunk[:size])
        size -= len(chunk)
out.write(read(op, read("default", b"")))
sys.exit(int(read(op + ".exit", b"0")))
"""


class FarSide:
    """The stand-in under `dir`; `env` names it as HAIL_SSH."""

    def __init__(self, root: Path) -> None:
        self.dir = root / "far-side"
        (self.dir / "requests").mkdir(parents=True)
        self.program = self.dir / "ssh"
        self.program.write_text(f"#!{sys.executable}\n" + _PROGRAM.format(here=str(self.dir)))
        self.program.chmod(0o755)
        self.answer("send", wire.answer(0, {"filed": "yes"}, wire.pack(["", ""])))
        self.answer("status", wire.answer(0, {}, wire.pack([""])))
        self.answer("ack", wire.answer(0, {}, ""))
        self.answer("waits", wire.answer(0, {"asks": ""}, ""))
        self.answer("hello", wire.answer(0, {"version": "0", "host": "box"}, ""))

    @property
    def env(self) -> dict[str, str]:
        return {"HAIL_SSH": str(self.program)}

    def answer(
        self,
        op: str,
        text: str | bytes,
        *,
        code: int = 0,
        pause: float = 0,
        attempt: int | None = None,
    ) -> None:
        """What the far side prints for `op`, its exit status and the pause before it; for the
        `attempt`th request of `op` only (0 the first) when given."""
        name = op if attempt is None else f"{op}@{attempt}"
        data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
        (self.dir / name).write_bytes(data)
        (self.dir / f"{name}.exit").write_text(str(code))
        (self.dir / f"{name}.pause").write_text(str(pause))

    def stream(self, op: str, size: int, head: bytes = b"") -> None:
        """`head`, then `size` bytes of `x`, before `op`'s answer: an answer far past the cap,
        written 64 KiB at a time."""
        (self.dir / f"{op}.head").write_bytes(head)
        (self.dir / f"{op}.stream").write_text(f"{size} ")

    def requests(self, op: str = "") -> list[bytes]:
        """The requests it got, oldest first; only those of `op` when given."""
        found = sorted((self.dir / "requests").iterdir())
        return [p.read_bytes() for p in found if not op or p.name.endswith(f"-{op}")]
