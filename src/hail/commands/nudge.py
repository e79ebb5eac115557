"""`hail nudge <seat>`: wake a seat again for the mail that sits unread in it [docs/commands.md
"nudge"].

A send whose wake did not take (exit 5: a busy agent whose hooks were off, a dialog, a screen hail
did not know) leaves its message unread, and nothing wakes the seat until its next prompt. A nudge
runs that wake again, by the seat's own route and through the same code a send's wake runs
(`transport/routes/decision.py`): the oldest unread message's envelope, as its send composed it,
natively between turns or typed into an idle, empty composer; a dialog refuses it (exit 4) and any
other screen types nothing (exit 5). Nothing is filed, and no message is written twice: the
envelope names a message still in the inbox, which the woken agent's hook then delivers with the
rest.
"""

from __future__ import annotations

from hail import envelope
from hail.errors import DialogError, StateError
from hail.output import emit, flush, note
from hail.reserved import ALL, is_persons
from hail.seat import parse_target
from hail.text import printable_line
from hail.transport import resolve
from hail.transport.routes.decision import Hands, Wake, look_first, native_first

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.message import Message


def nudge(ctx: Ctx, target: str) -> int:
    """Wake `target`'s seat again for its oldest unread message: 0 when woken, typed or queued
    (or nothing was unread), 4 on a dialog, 5 when nothing could wake it."""
    if target == ALL:
        raise StateError(f"{target}: nudge wakes one seat at a time; hail seats lists them")
    if is_persons(target):
        raise StateError(
            f"{target}: the person's mail is never typed, so there is nothing to wake (hail watch"
            " shows it, hail --as person inbox reads it)"
        )
    addr = parse_target(target)
    if addr.host:
        raise StateError(f"{target}: nudge wakes a seat of this machine; hail seats lists them")
    tmux, panes = resolve.reach_or_none(ctx)
    to = resolve.route(ctx, target, addr, tmux, panes)
    oldest = _oldest(ctx, to.mailbox)
    if oldest is None:
        note(f"nothing unread in {to.mailbox}: nothing to wake it for")
        return 0
    msg_id, message = oldest
    session = native_first(ctx, tmux, to.wake, to.mailbox, True)
    hands = Hands()
    try:
        verdict = None if session is not None else look_first(hands, tmux, to.wake)
    except DialogError:  # any text typed there would answer it
        raise DialogError(
            f"{to.wake.id if to.wake else target} shows a permission dialog; nothing was typed."
            " Answer it first (hail watch: d), then nudge again"
        ) from None
    emit(f"id={msg_id}")
    flush()
    kind = message.kind
    wake = Wake(ctx, to, kind, msg_id, envelope_of(msg_id, message), submit=True, hands=hands)
    return wake.take(tmux, to.wake, session, verdict)


def _oldest(ctx: Ctx, mailbox: str) -> tuple[str, Message] | None:
    """The oldest unread message of the mailbox that can be read, with its id."""
    for unread in ctx.store.mailbox(mailbox).unread():
        found = ctx.store.find(unread.id)
        if found is not None:
            return unread.id, found[0]
    return None


def envelope_of(msg_id: str, message: Message) -> str:
    """The envelope its send typed, from the message's own headers."""
    # A file's values are made one printable line each: nothing typed carries a control character.
    value = {k: printable_line(message.get(k)) for k in ("from", "reply", "ask", "re", "scope")}
    head = envelope.Head(
        kind=printable_line(message.kind),
        sender=value["from"],
        reply=value["reply"],
        id=msg_id,
        headline=value["ask"],
        re=value["re"],
        scope=value["scope"],
        until=printable_line(message.get("until")),
    )
    return envelope.render(head, has_body=message.has_body)
