"""One mailbox: a Maildir (`tmp → new → cur`) plus the sender's pending records and the marks the
hooks leave: a hook ran, a Stop let the turn end, a person prompted; and the one loop that claims
unread mail within an output budget, for the hook and `hail inbox` alike.

A message becomes visible in `new/` only by rename after fsync, and is claimed by renaming it into
`cur/`: of several claimers exactly one rename succeeds, and "not found" means another one won.
Paths are plain strings: this runs on every hook call, and pathlib costs more to import than the work.
"""

from __future__ import annotations

import os
import stat

from hail import policy
from hail.store import fs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from hail.message import Message

    #: How a message was claimed: by a hook, by `hail inbox`, or typed whole into the pane.
    How = Literal["injected", "read", "inline"]

HOWS: tuple[How, ...] = ("injected", "read", "inline")


def parse_claimed(name: str) -> tuple[str, How] | None:
    """(id, how) of a claimed file's name, `<id>.<how>.md`; None for any other name."""
    parts = name.rsplit(".", 2)
    if len(parts) == 3 and parts[2] == "md" and parts[0]:
        for how in HOWS:
            if parts[1] == how:
                return parts[0], how
    return None


class Unread:
    """An unread message file, with what ordering and the delivery budget need."""

    __slots__ = ("id", "mtime_ns", "path", "size")

    def __init__(self, msg_id: str, path: str, mtime_ns: int, size: int) -> None:
        self.id = msg_id
        self.path = path
        self.mtime_ns = mtime_ns
        self.size = size


class Mailbox:
    """The directory `seats/<name>/` of one mailbox (a seat or a sub-seat)."""

    __slots__ = (
        "cur",
        "hooked",
        "name",
        "new",
        "path",
        "pending",
        "prompted",
        "stopping",
        "tmp",
        "wake",
        "watched",
    )

    def __init__(self, path: str) -> None:
        self.path = path
        self.name = os.path.basename(path)
        self.new = os.path.join(path, "new")
        self.cur = os.path.join(path, "cur")
        self.tmp = os.path.join(path, "tmp")
        self.pending = os.path.join(path, "pending")
        self.hooked = os.path.join(path, "hooked")
        self.prompted = os.path.join(path, "prompted")
        self.stopping = os.path.join(path, "stopping")
        self.watched = os.path.join(path, "watched")
        self.wake = os.path.join(path, "wake")

    def exists(self) -> bool:
        return os.path.isdir(self.path)

    # --- writing -------------------------------------------------------------------------------

    def post(self, msg_id: str, text: str, *, inline: bool) -> str:
        """Write tmp/<id>.md, fsync, rename to new/<id>.md (or cur/<id>.inline.md). Durable on return."""
        fs.make_dirs(self.tmp)
        fs.make_dirs(self.new)
        fs.make_dirs(self.cur)
        tmp = os.path.join(self.tmp, f"{msg_id}.md")
        fs.write_new(tmp, text.encode("utf-8"), sync=True)
        if inline:
            dest = os.path.join(self.cur, f"{msg_id}.inline.md")
        else:
            dest = os.path.join(self.new, f"{msg_id}.md")
        os.rename(tmp, dest)
        fs.sync_dir(os.path.dirname(dest))
        return dest

    def claim(self, msg_id: str, how: How) -> str | None:
        """Rename new/<id>.md into cur/; None when another claimer won the race.

        The receipt time (the mtime) is set before the rename, so a file in cur/ never shows its
        old send time: gc, which archives old receipts, cannot take a claim in progress. A file
        this user may not touch (another user's) raises PermissionError and stays unread.
        """
        src = os.path.join(self.new, f"{msg_id}.md")
        dest = os.path.join(self.cur, f"{msg_id}.{how}.md")
        try:
            os.utime(
                src, follow_symlinks=False
            )  # a link swapped in is renamed, never touched through
            os.rename(src, dest)
        except FileNotFoundError:
            return None
        return dest

    def give_back(self, claimed: str) -> None:
        """Undo a claim so the message is delivered again under the same id; errors ignored."""
        msg_id = os.path.basename(claimed).split(".", 1)[0]
        try:
            os.rename(claimed, os.path.join(self.new, f"{msg_id}.md"))
        except OSError:
            pass

    def touch_hooked(self) -> None:
        """An installed hook ran for this mailbox: doctor and the quiet fyi read it."""
        self._mark(self.hooked)

    def mark_watched(self) -> None:
        """A hook of a plugin that watches its mailboxes for a send's wake mark (opencode's) ran:
        a send may say the plugin wakes it [docs/hooks.md "opencode"]."""
        self._mark(self.watched)

    def mark_prompted(self) -> None:
        """A person prompted the agent reading this mailbox: chains of replies through it start
        again [docs/conversations.md "Person prompts"]."""
        self._mark(self.prompted)

    def _mark(self, path: str) -> None:
        try:
            os.utime(path)
        except FileNotFoundError:
            fs.make_dirs(self.path)
            fs.touch(path)

    def ask_wake(self) -> None:
        """A send asks the mailbox's waiter to wake its agent (after the message is in `new/`)."""
        fs.touch(self.wake)

    def leave_wake(self, msg_id: str) -> None:
        """A send leaves the wake mark, naming its message, that a plugin watching this mailbox
        (opencode's) prompts its idle session for [docs/hooks.md "opencode"]. OSError when it
        cannot be written."""
        fs.write_atomic(self.wake, msg_id)

    def touch_stopping(self) -> None:
        """A Stop hook is about to look for mail: until another hook runs, the agent's turn may be
        ending, and mail filed after this look waits unless it is typed [docs/hooks.md "Stop"]."""
        fs.touch(self.stopping)

    def clear_stopping(self) -> None:
        """The Stop hook made the agent go on: its turn is not ending."""
        try:
            os.unlink(self.stopping)
        except FileNotFoundError:
            pass

    # --- reading -------------------------------------------------------------------------------

    def unread(self) -> list[Unread]:
        """Unread messages, oldest first: by mtime (ns), then id. Only regular files: a symlink,
        a FIFO or other special file is no message, and is never claimed (doctor names it)."""
        out: list[Unread] = []
        for name in fs.list_names(self.new):
            if not name.endswith(".md"):
                continue
            path = os.path.join(self.new, name)
            try:
                st = os.lstat(path)  # a link is not followed: it is no message
            except FileNotFoundError:
                continue
            if stat.S_ISREG(st.st_mode):
                out.append(Unread(name[:-3], path, st.st_mtime_ns, st.st_size))
        out.sort(key=lambda u: (u.mtime_ns, u.id))
        return out

    def unread_count(self) -> int:
        return len(self.unread())

    def claimed(self) -> list[tuple[str, How, str]]:
        """Every claimed message as (id, how, path). Lists cur/: not for hook paths."""
        out = []
        for name in fs.list_names(self.cur):
            parsed = parse_claimed(name)
            if parsed is not None:
                out.append((*parsed, os.path.join(self.cur, name)))
        return out

    def receipt_of(self, msg_id: str) -> tuple[How, float, str] | None:
        """(how, receipt time, path) when the id is claimed here; at most three stats."""
        for how in HOWS:
            path = os.path.join(self.cur, f"{msg_id}.{how}.md")
            t = fs.mtime(path)
            if t is not None:
                return how, t, path
        return None

    def hooked_at(self) -> float | None:
        return fs.mtime(self.hooked)

    def watched_at(self) -> float | None:
        return fs.mtime(self.watched)

    def wake_asked_at(self) -> float | None:
        return fs.mtime(self.wake)

    def wake_pending(self) -> bool:
        """A wake was asked for and no hook has read the mailbox since. A tie counts as pending:
        file times tick coarsely (a few ms), and a send right after the Stop that ended a turn
        must wake it; a prompt hook in the same tick claims the mail itself."""
        asked = self.wake_asked_at()
        if asked is None:
            return False
        hooked = self.hooked_at()
        return hooked is None or asked >= hooked

    def hooks_live(self, now: float) -> bool:
        """A hook read this mailbox within HOOKED_FRESH_DAYS of `now`: a busy agent's hooks will
        carry a message."""
        return _fresh(self.hooked_at(), now)

    def plugin_watches(self, now: float) -> bool:
        """A hook of a plugin that watches this mailbox ran within HOOKED_FRESH_DAYS of `now`."""
        return _fresh(self.watched_at(), now)

    def prompted_at(self) -> float | None:
        return fs.mtime(self.prompted)

    def is_unread(self, msg_id: str) -> bool:
        return os.path.exists(os.path.join(self.new, f"{msg_id}.md"))

    def turn_ending(self) -> bool:
        """The last hook that read this mailbox was a Stop that let the turn end (it touches
        `stopping` after `hooked`; any later hook touches `hooked` again)."""
        stopped = fs.mtime(self.stopping)
        hooked = fs.mtime(self.hooked)
        return stopped is not None and hooked is not None and stopped >= hooked


def not_yours(path: str) -> str:
    """Why an unread file stays unread when another user owns it, and the fix."""
    try:
        uid = os.stat(path).st_uid
    except OSError:
        uid = -1
    return (
        f"{path} belongs to another user (uid {uid}), so hail cannot mark it read and leaves it "
        f"unread: run sudo chown {os.getuid()} {path}, or ask that user to remove it"
    )


# --- taking unread mail within an output budget ------------------------------------------------
#
# The one claim loop of the deliver hook and of `hail inbox` [docs/envelope-and-frames.md
# "Budget"]: a reader takes each mailbox's unread messages oldest first while they fit its budget,
# the first one always, then while its count and bytes allow; from the first that does not fit on,
# every later one stays unread and is counted. A claim is recorded before its file is read, so
# `give_back_all` undoes every claim whatever fails after it. Here rather than in a module of its
# own: both readers already import this one, and each module costs every hook call its import.

#: Frames are measured with a token of the real one's length: that one is drawn once every text is
#: known.
_PLACEHOLDER_TOKEN = "0" * (policy.TOKEN_BYTES * 2)


class Taken:
    """A message taken: its id, the file it was read from (in `cur/` once claimed) and its
    parsed text."""

    __slots__ = ("id", "msg", "path")

    def __init__(self, msg_id: str, path: str, msg: Message) -> None:
        self.id = msg_id
        self.path = path
        self.msg = msg


class Claims:
    """What one reader took within its budget, the claims to give back, and what it left."""

    __slots__ = (
        "claimed",
        "left_unread",
        "max_bytes",
        "max_messages",
        "refused",
        "shown",
        "taken",
        "used",
    )

    def __init__(self, max_bytes: int, max_messages: int | None = None) -> None:
        self.max_bytes = max_bytes
        self.max_messages = max_messages
        self.taken: list[Taken] = []
        #: Every claim this reader holds, as (mailbox, claimed file): what `give_back_all` undoes.
        self.claimed: list[tuple[Mailbox, str]] = []
        self.shown = 0  # messages in the output so far: those taken and any the reader adds
        self.used = 0  # the bytes of their frames
        self.left_unread = 0  # unread messages past the budget, left for the next reader
        self.refused: list[str] = []  # unread files of another user: never claimed

    def fits(self, size: int) -> bool:
        """Whether a message whose file has `size` bytes may still be taken."""
        if self.left_unread:
            return False  # the first that did not fit ended the taking
        if not self.shown:
            return True
        if self.max_messages is not None and self.shown >= self.max_messages:
            return False
        return self.used + size <= self.max_bytes

    def count(self, size: int) -> None:
        """One more message in the output, its frame `size` bytes."""
        self.shown += 1
        self.used += size

    def give_back_all(self) -> None:
        """Undo every claim: each message is unread again under its id."""
        for box, path in self.claimed:
            box.give_back(path)
        self.claimed.clear()


def claim_within_budget(box: Mailbox, how: How | None, claims: Claims) -> list[Taken]:
    """Take the mailbox's unread messages, oldest first, while they fit `claims`, each claimed as
    `how` (None: read where it lies, claimed by nobody); those taken here, in order."""
    taken: list[Taken] = []
    for unread in box.unread():
        if not claims.fits(unread.size):
            claims.left_unread += 1
            continue
        one = _take(box, unread, how, claims)
        if one is not None:
            taken.append(one)
    return taken


def _take(box: Mailbox, unread: Unread, how: How | None, claims: Claims) -> Taken | None:
    """Claim one message and read it; None when it is not to be had (another reader won it,
    another user owns it, it is gone)."""
    path = unread.path if how is None else _claim(box, unread, how, claims)
    if path is None:
        return None
    text = fs.read_text(path)
    if text is None:
        if how is not None:
            claims.claimed.pop()  # gone since the claim: nothing to show, nothing to give back
        return None
    # Only imported when there is mail: the empty hook, the common one, needs neither.
    from hail import frame
    from hail.message import parse

    one = Taken(unread.id, path, parse(text))
    claims.count(frame.frame_bytes(frame.frame(_PLACEHOLDER_TOKEN, one.msg)))
    claims.taken.append(one)
    return one


def _claim(box: Mailbox, unread: Unread, how: How, claims: Claims) -> str | None:
    """The claimed file, recorded in `claims` before anything reads it; None when not claimed."""
    try:
        path = box.claim(unread.id, how)
    except PermissionError:
        claims.refused.append(unread.path)
        return None
    if path is not None:  # else another reader won the race: it reached that reader
        claims.claimed.append((box, path))
    return path


def _fresh(mark: float | None, now: float) -> bool:
    """A mark set within HOOKED_FRESH_DAYS of `now` (`policy.hooked_lately`)."""
    return policy.hooked_lately(mark, now)
