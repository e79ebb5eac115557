"""One mailbox: a Maildir (`tmp → new → cur`) plus the sender's pending records and the hook mark.

A message becomes visible in `new/` only by rename after fsync, and is claimed by renaming it into
`cur/`: of several claimers exactly one rename succeeds, and "not found" means another one won.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from hail.store import fs

HOWS = ("injected", "read", "inline")


@dataclass(frozen=True)
class Unread:
    """An unread message file, with what ordering and the delivery budget need."""

    id: str
    path: Path
    mtime_ns: int
    size: int


class Mailbox:
    """The directory `seats/<name>/` of one mailbox (a seat or a sub-seat)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = path.name

    @property
    def new(self) -> Path:
        return self.path / "new"

    @property
    def cur(self) -> Path:
        return self.path / "cur"

    @property
    def tmp(self) -> Path:
        return self.path / "tmp"

    @property
    def pending(self) -> Path:
        return self.path / "pending"

    @property
    def hooked(self) -> Path:
        return self.path / "hooked"

    def exists(self) -> bool:
        return self.path.is_dir()

    # --- writing -------------------------------------------------------------------------------

    def post(self, msg_id: str, text: str, *, inline: bool) -> Path:
        """Write tmp/<id>.md, fsync, rename to new/<id>.md (or cur/<id>.inline.md). Durable on return."""
        fs.make_dirs(self.tmp)
        fs.make_dirs(self.new)
        fs.make_dirs(self.cur)
        tmp = self.tmp / f"{msg_id}.md"
        fs.write_new(tmp, text.encode("utf-8"), sync=True)
        dest = self.cur / f"{msg_id}.inline.md" if inline else self.new / f"{msg_id}.md"
        os.rename(tmp, dest)
        _sync_dir(dest.parent)
        return dest

    def claim(self, msg_id: str, how: str) -> Path | None:
        """Rename new/<id>.md into cur/; None when another claimer won the race."""
        dest = self.cur / f"{msg_id}.{how}.md"
        try:
            os.rename(self.new / f"{msg_id}.md", dest)
        except FileNotFoundError:
            return None
        # The receipt time is the mtime; a crash before this leaves the (earlier) send time.
        with contextlib.suppress(FileNotFoundError):
            os.utime(dest)
        return dest

    def give_back(self, claimed: Path) -> None:
        """Undo a claim so the message is delivered again under the same id; errors ignored."""
        msg_id = claimed.name.split(".", 1)[0]
        with contextlib.suppress(OSError):
            os.rename(claimed, self.new / f"{msg_id}.md")

    def touch_hooked(self) -> None:
        fs.make_dirs(self.path)
        fs.touch(self.hooked)

    # --- reading -------------------------------------------------------------------------------

    def unread(self) -> list[Unread]:
        """Unread messages, oldest first: by mtime (ns), then id."""
        out: list[Unread] = []
        for name in fs.list_names(self.new):
            if not name.endswith(".md"):
                continue
            path = self.new / name
            try:
                st = os.stat(path)
            except FileNotFoundError:
                continue
            out.append(Unread(name[:-3], path, st.st_mtime_ns, st.st_size))
        out.sort(key=lambda u: (u.mtime_ns, u.id))
        return out

    def unread_count(self) -> int:
        return sum(1 for n in fs.list_names(self.new) if n.endswith(".md"))

    def claimed(self) -> list[tuple[str, str, Path]]:
        """Every claimed message as (id, how, path). Lists cur/: not for hook paths."""
        out = []
        for name in fs.list_names(self.cur):
            parts = name.rsplit(".", 2)
            if len(parts) == 3 and parts[2] == "md" and parts[1] in HOWS:
                out.append((parts[0], parts[1], self.cur / name))
        return out

    def receipt_of(self, msg_id: str) -> tuple[str, float, Path] | None:
        """(how, receipt time, path) when the id is claimed here; at most three stats."""
        for how in HOWS:
            path = self.cur / f"{msg_id}.{how}.md"
            t = fs.mtime(path)
            if t is not None:
                return how, t, path
        return None

    def hooked_at(self) -> float | None:
        return fs.mtime(self.hooked)


def _sync_dir(path: Path) -> None:
    """Make a rename durable where the platform allows fsync on a directory."""
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
