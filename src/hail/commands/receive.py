"""Reading mail by hand and asking about receipts: `sent`, `await`, `inbox`, `show`
[docs/commands.md "sent"].

`sent` and `await` are fast verbs [docs/hooks.md "Hook-path performance"]: filesystem only, no
click, libtmux, tomlkit or subprocess, and they never create the state root. `inbox` and `show`
print the same framed rendering as the hook [docs/envelope-and-frames.md "Frames"], because their
output enters the agent's context as tool output.
"""

from __future__ import annotations

import os
import sys
import time

from hail import ids, policy
from hail.context import Ctx
from hail.errors import StateError, UsageError
from hail.output import emit
from hail.store import fs
from hail.store.maildir import Mailbox
from hail.store.message import Message, parse
from hail.store.store import Receipt, Store

# --- sent -----------------------------------------------------------------------------------------


def sent(ctx: Ctx, msg_ids: list[str]) -> int:
    """Per id: `unknown`, `delivered` or `<how> <iso>`, then `replied <id>…` once an answer exists.

    One id prints its line alone, as it always did; several prefix each line with its id. Exit 0.
    """
    from hail.store.conversation import replies_of

    for msg_id in msg_ids:
        line = ctx.store.status(msg_id).line()
        answers = [r for r, box in replies_of(ctx.store, msg_id) if ctx.store.lookup(r) == box]
        if answers:
            line += " replied " + " ".join(answers)
        emit(line if len(msg_ids) == 1 else f"{msg_id} {line}")
    return 0


# --- await ----------------------------------------------------------------------------------------


class _Watch:
    """One awaited id. The archive index is read at most once for it, at its first miss."""

    __slots__ = ("archive_read", "archived", "id", "receipt")

    def __init__(self, msg_id: str) -> None:
        self.id = msg_id
        self.receipt: Receipt | None = None
        self.archive_read = False
        self.archived: Mailbox | None = None

    def poll(self, store: Store) -> None:
        if self.receipt is not None or not ids.is_valid_user_id(self.id):
            return
        target = store.lookup(self.id)
        if target is not None:
            box = store.mailbox(target)
            found = _receipt_in(box, self.id)
            if found is not None:
                self.receipt = found
                return
            if os.path.exists(os.path.join(box.new, f"{self.id}.md")):
                return  # unread where the index says: no need for the archive
        if not self.archive_read:
            self.archive_read = True
            self.archived = store.archived_mailbox(self.id)
        if self.archived is not None:
            self.receipt = _receipt_in(self.archived, self.id)


def _receipt_in(box: Mailbox, msg_id: str) -> Receipt | None:
    claimed = box.receipt_of(msg_id)
    if claimed is None:
        return None
    how, t, path = claimed
    return Receipt(how, t, path, box.name)


def await_(ctx: Ctx, ids_: list[str], timeout: float, *, any_: bool) -> int:
    """Wait until every id (or any, with `any_`) has a receipt; exit 0, or 1 on timeout."""
    if not ids_:
        raise UsageError("await needs at least one message id")
    watches = [_Watch(i) for i in ids_]
    deadline = time.monotonic() + timeout
    while True:
        for w in watches:
            w.poll(ctx.store)
        got = [w.receipt is not None for w in watches]
        satisfied = any(got) if any_ else all(got)
        left = deadline - time.monotonic()
        if satisfied or left <= 0:
            break
        time.sleep(min(policy.AWAIT_POLL_SECONDS, left))
    for w in watches:
        if w.receipt is not None:
            emit(f"{w.id} {w.receipt.line()}")
        else:
            emit(f"{w.id} {'pending' if satisfied else 'timeout'}")
    return 0 if satisfied else 1


# --- inbox and show -------------------------------------------------------------------------------


class _Shown:
    """A message to print, with the receipt it had before this call (None when unread)."""

    __slots__ = ("msg", "receipt")

    def __init__(self, msg: Message, receipt: str | None) -> None:
        self.msg = msg
        self.receipt = receipt


def _framed(items: list[_Shown]) -> list[str]:
    """Preamble, then per message its `receipt:` line (when it had one) and its frame
    [docs/envelope-and-frames.md "Frames"]."""
    from hail import frame

    token = frame.draw_token(t for item in items for t in frame.texts_of(item.msg))
    lines = [frame.preamble(len(items), token)]
    for item in items:
        if item.receipt is not None:
            lines.append(f"receipt: {item.receipt}")
        lines += frame.frame(token, item.msg)
    return lines


def _write(lines: list[str]) -> None:
    """Print and flush now, so a failed write is seen here (and claims can be given back)."""
    if sys.stdout is None:  # fd 1 closed: the text would reach nobody
        raise OSError(9, "standard output is closed")
    # Straight to fd 1, every byte or an error: a closed pipe must surface here so the claims are
    # given back (an unbuffered sys.stdout, as with PYTHONUNBUFFERED, drops a partial write).
    from hail.hooks import protocol

    sys.stdout.flush()
    protocol.write_stdout("".join(line + "\n" for line in lines))


def inbox(ctx: Ctx, *, peek: bool, all_: bool) -> int:
    """Print my mail framed; claim what had no receipt as `read` unless `peek`."""
    seat = ctx.require_seat()
    items: list[_Shown] = []
    claims: list[tuple[Mailbox, str]] = []
    for name in ctx.reading_mailboxes(seat):
        box = ctx.store.mailbox(name)
        entries: list[tuple[str, _Shown]] = []
        for unread in box.unread():
            path = unread.path
            if not peek:
                claimed = box.claim(unread.id, "read")
                if claimed is None:
                    continue  # another reader took it first: it reached that reader
                claims.append((box, claimed))
                path = claimed
            text = fs.read_text(path)
            if text is not None:
                entries.append((unread.id, _Shown(parse(text), None)))
        if all_:
            for msg_id, how, path in box.claimed():
                if any(p == path for _, p in claims):
                    continue
                t = fs.mtime(path)
                text = fs.read_text(path)
                if text is not None and t is not None:
                    entries.append((msg_id, _Shown(parse(text), f"{how} {ids.iso(t)}")))
            entries.sort(key=lambda e: e[0])
        items += [shown for _, shown in entries]
    if not items:
        emit("(inbox empty)")
        return 0
    write_claimed(items, claims, "the inbox", "run hail inbox again")
    return 0


def write_claimed(
    items: list[_Shown], claims: list[tuple[Mailbox, str]], what: str, then: str
) -> None:
    """Print the messages framed; when that fails, give every claim back and say so."""
    try:
        _write(_framed(items))
    except OSError as exc:
        for box, path in claims:
            box.give_back(path)
        if isinstance(exc, BrokenPipeError):
            raise
        raise StateError(
            f"could not write {what} ({exc.strerror or exc}); nothing was claimed: {then}"
        ) from None


def show(ctx: Ctx, msg_id: str) -> int:
    """Print one message of any seat, framed; claims nothing."""
    if not ids.is_valid_user_id(msg_id):
        raise UsageError(f"'{msg_id}' is not a message id")
    found = ctx.store.find(msg_id)
    if found is None:
        raise StateError(
            f"no message with id {msg_id}; check the id (hail brief lists recent ones)"
        )
    msg, receipt = found
    _write(_framed([_Shown(msg, receipt.line() if receipt.received else None)]))
    return 0
