"""Filing a letter [docs/commands.md "Send steps"]: the id reserved, the message written durably
into the recipient's inbox (a hold's record first), and the records it leaves: the reply index, a
released hold's removal, the sender's pending record. A write before the message is visible that
fails sends nothing; a record after it that fails is a note, never an error.
"""

from __future__ import annotations

import os

from hail import ids, policy
from hail.errors import StateError
from hail.message import render
from hail.store import fs, records

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hail.context import Ctx
    from hail.letter import Letter
    from hail.transport.resolve import Recipient, Sender


class Filed:
    """What was filed: its id, the mailbox that signs it (where replies and receipts go), the
    recipient's mailbox, and when a hold lapses ("" for the other kinds)."""

    __slots__ = ("asker", "id", "to", "until")

    def __init__(self, msg_id: str, asker: str, to: str, until: str = "") -> None:
        self.id = msg_id
        self.asker = asker
        self.to = to
        self.until = until

    def __repr__(self) -> str:
        return f"Filed({self.id!r}, {self.asker!r}, {self.to!r})"


def write_message(ctx: Ctx, mailbox: str, msg_id: str, text: str) -> None:
    """Post the message durably; a disk that cannot take it is a clear error with nothing sent."""
    box = ctx.store.mailbox(mailbox)
    try:
        box.post(msg_id, text, inline=False)
    except OSError as e:
        raise nothing_sent(ctx, msg_id, f"the message into {box.path}", e) from None


def nothing_sent(ctx: Ctx, msg_id: str, what: str, e: OSError) -> StateError:
    """A write before the message is visible failed: the id was never used, nothing was sent."""
    try:  # noqa: SIM105 (contextlib would cost every send an import)
        os.unlink(ctx.store.id_path(msg_id))
    except OSError:
        pass
    return StateError(
        f"could not write {what} ({e.strerror or e}); nothing was sent: free some disk space (or "
        "fix that directory's permissions), then send again"
    )


def write_hold(
    ctx: Ctx,
    who: Sender,
    to: Recipient,
    letter: Letter,
    msg_id: str,
    times: tuple[str, str],
    batch: str = "",
) -> str:
    """A hold's record, written before its message is visible: a hold is never filed without it.
    Returns the record's path, for the roll-back should the message not be written."""
    path = os.path.join(ctx.store.holds, msg_id)
    text = records.hold_text(
        msg_id=msg_id,
        issuer=who.reply,
        to=to.mailbox,
        scope=letter.scope,
        time=times[0],
        re=letter.re,
        expires=times[1],
        headline=letter.draft.headline,
        batch=batch,
    )
    try:
        fs.make_dirs(ctx.store.holds)
        fs.write_atomic(path, text)
    except OSError as e:
        raise nothing_sent(ctx, msg_id, f"the hold record {path}", e) from None
    return path


def post(
    ctx: Ctx,
    who: Sender,
    to: Recipient,
    letter: Letter,
    *,
    given_id: str = "",
    extra: dict[str, str] | None = None,
) -> Filed:
    """Reserve the id (or take the one a sender on another machine chose) and write the message
    durably, a hold's record first; what was filed."""
    now = ctx.now()
    ctx.store.ensure()
    if who.reply != who.seat.name:
        # A pane of a shared seat signs as its sub-seat: the mailbox exists from its first send,
        # so replies, its brief (lapsed holds) and gc find it [docs/seats.md
        # "Shared directories and sub-seats"].
        fs.make_dirs(ctx.store.mailbox(who.reply).path)
    ctx.store.check_trusted([to.mailbox])  # before anything is written for the message
    msg_id = _reserve(ctx, to.mailbox, now, given_id)
    until = (
        ids.iso(now + (letter.span or policy.HOLD_DEFAULT_SECONDS)) if letter.kind == "hold" else ""
    )
    headers = {
        "from": who.from_,
        "reply": who.reply,
        "kind": letter.kind,
        "id": msg_id,
        "time": ids.iso(now),
        "re": letter.re,
        "scope": letter.scope,
        "until": until,
        "ask": letter.draft.headline,
        **(extra or {}),
    }
    body = letter.draft.body if letter.draft.body is not None else letter.draft.headline
    batch = headers.get("batch", "")
    hold = write_hold(ctx, who, to, letter, msg_id, (ids.iso(now), until), batch) if until else ""
    try:
        # Even a control kind is filed unread: it is filed `inline` only once its envelope is typed.
        write_message(ctx, to.mailbox, msg_id, render(headers, body))
    except StateError:
        if hold:
            fs.remove_quietly(hold)
        raise
    return Filed(msg_id, who.reply, to.mailbox, until)


def after_filing(
    ctx: Ctx, who: Sender, to: Recipient, msg_id: str, letter: Letter, steps: tuple[bool, bool]
) -> list[str]:
    """The records a filed message leaves (the reply index, a release's removal, the pending
    record when `steps` say so); a failure among them is a note, never an error: the message is
    in the inbox [docs/commands.md "Exit codes"]."""
    is_reply, pending = steps
    notes: list[str] = []

    def keep(what: str, why: str, step: Callable[[], None]) -> None:
        try:
            step()
        except OSError as e:
            notes.append(f"filed, but {what} could not be written ({e.strerror or e}): {why}")

    if is_reply and letter.re:
        from hail.store import conversation

        keep(
            "the reply index",
            f"{letter.re}'s chain of replies does not count it",
            lambda: conversation.record_reply(ctx.store, letter.re, msg_id, to.mailbox),
        )
    if letter.kind == "release" and letter.re:
        keep(
            "the hold's removal",
            f"hold {letter.re} stays listed until it lapses; its recipient has the release",
            lambda: release_hold(ctx, letter.re),
        )
    if pending:
        keep(
            "the pending record",
            "your brief will not list it should it go unanswered; do not resend",
            lambda: record_pending(ctx, who, to, msg_id, letter.kind, letter.draft.headline),
        )
    return notes


def release_hold(ctx: Ctx, hold_id: str) -> None:
    records.remove(os.path.join(ctx.store.holds, hold_id))
    records.remove(os.path.join(ctx.store.lapsed, hold_id))


def _reserve(ctx: Ctx, mailbox: str, now: float, given_id: str) -> str:
    """A fresh id, or the one a sender on another machine chose (refused when already filed)."""
    if not given_id:
        return ctx.store.reserve_id(mailbox, now)
    from hail.store.remote import reserve_given

    return reserve_given(ctx.store.root, mailbox, given_id)


def record_pending(
    ctx: Ctx, who: Sender, to: Recipient, msg_id: str, kind: str, headline: str
) -> None:
    pending = ctx.store.mailbox(who.reply).pending
    fs.make_dirs(pending)
    fs.write_atomic(
        os.path.join(pending, msg_id),
        records.pending_text(msg_id, kind, to.mailbox, ctx.now(), headline),
    )
