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
from hail.message import Message, parse
from hail.output import emit, note
from hail.store import fs
from hail.store.maildir import Claims, Mailbox, claim_within_budget, not_yours
from hail.store.store import Receipt, Store, receipt_in

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.seat import Seat

# --- sent -----------------------------------------------------------------------------------------


def sent(ctx: Ctx, msg_ids: list[str]) -> int:
    """Per id: `unknown`, `delivered` or `<how> <iso>`, then `replied <id>…` once an answer exists.

    One id prints its line alone, as it always did; several prefix each line with its id. Exit 0.
    """
    from hail.store.conversation import replies_of

    afar = _far_statuses(ctx, msg_ids)
    for msg_id in msg_ids:
        line = afar.get(msg_id) or ctx.store.status(msg_id).line()
        answers = [r for r, box in replies_of(ctx.store, msg_id) if ctx.store.lookup(r) == box]
        if answers:
            line += " replied " + " ".join(answers)
        emit(line if len(msg_ids) == 1 else f"{msg_id} {line}")
    return 0


def _far_statuses(ctx: Ctx, msg_ids: list[str]) -> dict[str, str]:
    """Receipts of the ids sent to other machines, asked of each machine [docs/seats.md
    "Other machines"]; nothing is run, nor the remote wing loaded, when none was."""
    from hail.store import remote

    if not any(remote.sent(ctx.store.root, i) is not None for i in msg_ids):
        return {}
    from hail.remote import elsewhere

    return elsewhere.statuses(ctx, msg_ids)


# --- await ----------------------------------------------------------------------------------------


class _Watch:
    """One awaited id. The archive index is read at most once for it, at its first miss."""

    __slots__ = ("archive_read", "archived", "far_line", "id", "receipt")

    def __init__(self, msg_id: str) -> None:
        self.id = msg_id
        self.receipt: Receipt | None = None
        self.far_line = ""  # sent to another machine: its receipt there, once it has one
        self.archive_read = False
        self.archived: Mailbox | None = None

    def poll(self, store: Store) -> None:
        if self.receipt is not None or not ids.is_valid_user_id(self.id):
            return
        target = store.lookup(self.id)
        if target is not None:
            found = receipt_in(store.mailbox(target), self.id)
            if found is not None:
                # Unread where the index says is no receipt yet, and no reason to read the archive.
                self.receipt = found if found.received else None
                return
        if not self.archive_read:
            self.archive_read = True
            self.archived = store.archived_mailbox(self.id)
        if self.archived is not None:
            found = receipt_in(self.archived, self.id)
            self.receipt = found if found is not None and found.received else None


class _FarWatch:
    """The awaited ids sent to other machines, asked of their machines every REMOTE_FETCH_SECONDS
    [docs/seats.md "Other machines"]."""

    __slots__ = ("asked", "watches")

    def __init__(self, ctx: Ctx, watches: list[_Watch]) -> None:
        from hail.store import remote

        self.watches = [w for w in watches if remote.sent(ctx.store.root, w.id)]
        self.asked = -policy.REMOTE_FETCH_SECONDS

    def poll(self, ctx: Ctx, deadline: float) -> None:
        """Ask the far machines again when REMOTE_FETCH_SECONDS passed, within what is left
        before `deadline` (monotonic)."""
        waiting = [w for w in self.watches if not w.far_line]
        left = min(deadline - time.monotonic(), policy.REMOTE_LOOK_SECONDS)
        if not waiting or left <= 0:
            return
        if time.monotonic() - self.asked < policy.REMOTE_FETCH_SECONDS:
            return
        self.asked = time.monotonic()
        from hail.remote import elsewhere

        lines = elsewhere.statuses(ctx, [w.id for w in waiting], quiet=True, within=left)
        for w in waiting:
            how = lines.get(w.id, "")
            if how.split(" ")[0] in ("injected", "read", "inline"):
                w.far_line = how.split(" replied ")[0]


def await_(ctx: Ctx, ids_: list[str], timeout: float, *, any_: bool) -> int:
    """Wait until every id (or any, with `any_`) has a receipt; exit 0, or 1 on timeout."""
    if not ids_:
        raise UsageError("await needs at least one message id")
    watches = [_Watch(i) for i in ids_]
    afar = _FarWatch(ctx, watches)
    deadline = time.monotonic() + timeout
    while True:
        afar.poll(ctx, deadline)
        for w in watches:
            w.poll(ctx.store)
        got = [w.receipt is not None or bool(w.far_line) for w in watches]
        satisfied = any(got) if any_ else all(got)
        left = deadline - time.monotonic()
        if satisfied or left <= 0:
            break
        time.sleep(min(policy.AWAIT_POLL_SECONDS, left))
    for w in watches:
        if w.far_line:
            emit(f"{w.id} {w.far_line}")
        elif w.receipt is not None:
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


def _framed(
    items: list[_Shown], budget: int | None = None, *, shared: bool = False, body_from: int = 0
) -> list[str]:
    """Preamble, then per message its `receipt:` line (when it had one) and its frame
    [docs/envelope-and-frames.md "Frames"].

    With `budget` (bytes), the first message's body is cut to fit it, as the hook does; with
    `shared`, each later one is cut to what is left of it (at worst to its start line and the cut
    note: every message shown), for lists nobody chose to fit. `body_from` starts the first
    message's body at that byte (`hail show <id> --from`).
    """
    from hail import frame

    token = frame.draw_token(t for item in items for t in frame.texts_of(item.msg))
    persons = sum(frame.from_person(item.msg) for item in items)
    lines = [frame.preamble(len(items), token, persons)]
    for i, item in enumerate(items):
        if item.receipt is not None:
            lines.append(f"receipt: {item.receipt}")
        if budget is not None and i == 0:
            lines += frame.cut_to_fit(token, item.msg, budget, body_from=body_from)
        elif budget is not None and shared:
            lines += frame.cut_to_fit(token, item.msg, max(0, budget - frame.frame_bytes(lines)))
        else:
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


class _Inbox:
    """What one `hail inbox` call shows, what it claimed, and what it had to leave."""

    __slots__ = ("claims", "hidden", "items")

    def __init__(self) -> None:
        self.items: list[_Shown] = []
        self.claims = Claims(policy.INBOX_MAX_BYTES)
        self.hidden = 0  # `--all`: read messages past the output budget, not shown


def _take_unread(box: Mailbox, peek: bool, got: _Inbox) -> list[tuple[str, _Shown]]:
    """Unread messages, oldest first, within the output budget (the first one always)."""
    taken = claim_within_budget(box, None if peek else "read", got.claims)
    return [(one.id, _Shown(one.msg, None)) for one in taken]


def _read_ones(box: Mailbox, got: _Inbox) -> list[tuple[str, _Shown]]:
    """`--all`: the claimed messages of the mailbox with their receipts, newest first while the
    output budget lasts; the older ones are only counted."""
    entries = []
    claimed = {p for _, p in got.claims.claimed}
    for msg_id, how, path in sorted(box.claimed(), reverse=True):
        if path in claimed:
            continue
        try:
            st = os.lstat(path)  # a link is never followed: read_text refuses it below
        except FileNotFoundError:
            continue
        if got.hidden or got.claims.used + st.st_size > policy.INBOX_MAX_BYTES:
            got.hidden += 1
            continue
        text = fs.read_text(path)
        if text is not None:
            got.claims.count(st.st_size)
            entries.append((msg_id, _Shown(parse(text), f"{how} {ids.iso(st.st_mtime)}")))
    return entries


def _collect(ctx: Ctx, seat: Seat, peek: bool, all_: bool, got: _Inbox) -> None:
    for name in ctx.reading_mailboxes(seat):
        box = ctx.store.mailbox(name)
        entries = _take_unread(box, peek, got)
        if all_:
            entries += _read_ones(box, got)
            entries.sort(key=lambda e: e[0])
        got.items += [shown for _, shown in entries]


def inbox(ctx: Ctx, *, peek: bool, all_: bool) -> int:
    """Print my mail framed; claim what had no receipt as `read` unless `peek`.

    At most about INBOX_MAX_BYTES are printed (a harness keeps only the start of a long output):
    the rest stays unread and a closing line says how many remain. Every claim is given back on
    any failure before the text was written.
    """
    seat = ctx.seat_here()
    ctx.bind(seat)
    _fetch_kept(ctx)
    got = _Inbox()
    try:
        _collect(ctx, seat, peek, all_, got)
    except BaseException:
        got.claims.give_back_all()
        raise
    left = got.claims.left_unread
    if got.items:
        tail = [f"({left} more unread: run hail inbox again)"] if left else []
        if got.hidden:
            tail.append(f"({got.hidden} older read messages not shown: hail show <id> prints one)")
        write_claimed(
            got.items,
            got.claims.claimed,
            "the inbox",
            "run hail inbox again",
            budget=policy.INBOX_MAX_BYTES,
            tail=tail,
        )
    elif not got.claims.refused:
        emit("(inbox empty)")
    for path in got.claims.refused:
        note(not_yours(path))
    return 0


def _fetch_kept(ctx: Ctx) -> None:
    """Replies another machine kept for this one (it could not reach here) are fetched first."""
    from hail.store import remote

    if os.path.isdir(remote.sent_dir(ctx.store.root)):
        from hail.remote import elsewhere

        elsewhere.fetch_open(ctx)


def write_claimed(
    items: list[_Shown],
    claims: list[tuple[Mailbox, str]],
    what: str,
    then: str,
    *,
    budget: int | None = None,
    shared: bool = False,
    tail: list[str] | None = None,
) -> None:
    """Print the messages framed (then `tail`); on any failure, give every claim back and say so."""
    try:
        _write(_framed(items, budget, shared=shared) + (tail or []))
    except OSError as exc:
        for box, path in claims:
            box.give_back(path)
        if isinstance(exc, BrokenPipeError):
            raise
        raise StateError(
            f"could not write {what} ({exc.strerror or exc}); nothing was claimed: {then}"
        ) from None
    except BaseException:
        for box, path in claims:
            box.give_back(path)
        raise


def show(ctx: Ctx, msg_id: str, body_from: int = 0) -> int:
    """Print one message of any seat, framed, its body from byte `body_from`; claims nothing.

    Within the inbox's output budget: a longer body is cut, and the cut note names the
    `hail show <id> --from <byte>` that prints what follows.
    """
    if not ids.is_valid_user_id(msg_id):
        raise UsageError(f"'{msg_id}' is not a message id")
    found = ctx.store.find(msg_id)
    if found is None:
        raise StateError(
            f"no message with id {msg_id}; check the id (hail brief lists recent ones)"
        )
    msg, receipt = found
    shown = _Shown(msg, receipt.line() if receipt.received else None)
    _write(_framed([shown], policy.INBOX_MAX_BYTES, body_from=body_from))
    return 0
