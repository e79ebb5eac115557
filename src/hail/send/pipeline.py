"""The send pipeline [docs/commands.md "Send steps"]: identify → route → check state → file →
record → wake → report, for a letter built once (`hail/letter.py`) and whoever sends it
(`send/authors.py`): the one pipeline of a command line's send, of a send from another machine
(`remote/far.py`), and of every copy of a broadcast.

The message is durable in the recipient's inbox before anything is typed: a send that cannot be typed
still delivers, exits 5 and says not to resend.
"""

from __future__ import annotations

import os

from hail import envelope, ids, policy
from hail.errors import NOT_WOKEN, StateError
from hail.output import emit, flush, note, warn
from hail.seat import parse_target
from hail.send.filing import after_filing, post
from hail.store import records
from hail.transport.routes.decision import Hands, Wake, look_first, native_first, report_not_woken

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.letter import Letter
    from hail.seat import Addr
    from hail.send.authors import Author
    from hail.send.filing import Filed
    from hail.transport.resolve import Recipient, Sender
    from hail.transport.routes.base import Session
    from hail.transport.tmux import Tmux


class Sent:
    """What one send did: what it filed (None when it was refused first), its exit status, and
    whether its wake was withheld because a chain of replies reached its cap."""

    __slots__ = ("capped", "code", "filed")

    def __init__(self, code: int, filed: Filed | None = None, *, capped: bool = False) -> None:
        self.code = code
        self.filed = filed
        self.capped = capped

    def waits_for_reply(self) -> Filed | None:
        """The filed ask a `--wait` waits on: filed, not capped, and in the inbox (exit 0 or 5)."""
        if self.filed is None or self.capped or self.code not in (0, NOT_WOKEN):
            return None
        return self.filed


# --- state checks ------------------------------------------------------------------------------


def check_release(ctx: Ctx, re_id: str) -> None:
    path = os.path.join(ctx.store.holds, re_id)
    hold = records.read_hold(path) or records.read_hold(os.path.join(ctx.store.lapsed, re_id))
    if hold is None:
        raise StateError(f"no hold with id {re_id}; hail brief lists holds in effect")
    if os.path.dirname(hold.path) == ctx.store.lapsed or not hold.in_effect(ctx.now()):
        note(
            f"{re_id} had already lapsed at {ids.iso(hold.lapses_at())}; "
            "releasing it anyway tells its recipient"
        )


def is_quiet(ctx: Ctx, kind: str, mailbox: str) -> bool:
    """An fyi to a mailbox whose hooks ran within HOOKED_FRESH_DAYS rides the next hook instead of
    interrupting."""
    if kind != "fyi":
        return False
    return ctx.store.mailbox(mailbox).hooks_live(ctx.now())


# --- the pipeline ------------------------------------------------------------------------------


def file_and_wake(
    ctx: Ctx,
    author: Author,
    target: str,
    letter: Letter,
    *,
    no_wake: bool = False,
    no_submit: bool = False,
    batch: str = "",
) -> Sent:
    """File `letter` for `target` as `author`, then wake the recipient its own way (none with
    `no_wake`; typed and not submitted with `no_submit`). `batch`: the broadcast this is one copy
    of (`send/broadcast.py`), in its headers and its `id=` line."""
    from hail.store import conversation

    addr = parse_target(target)  # refused before anything is written, the binding included
    tmux, who, to, session = _identify(
        ctx, author, target, addr, records=not (no_submit or no_wake)
    )
    if letter.kind == "release" and letter.re:
        check_release(ctx, letter.re)
    thread = conversation.thread_of(ctx.store, letter.re, who.reply, to.mailbox)
    quiet = (
        is_quiet(ctx, letter.kind, to.mailbox) and not thread.is_reply
    )  # a reply wakes its asker
    capped = not quiet and thread.capped(letter.kind)
    wake_pane = None if no_wake or quiet or capped else to.wake
    if session is None:
        session = native_first(ctx, tmux, wake_pane, to.mailbox, not no_submit)
    hands = Hands()
    verdict = None if session is not None else look_first(hands, tmux, wake_pane)  # dialog: exit 4
    extra = {**thread.headers(), **({"batch": batch} if batch else {})}
    filed = post(ctx, who, to, letter, given_id=author.given_id, extra=extra)
    pending = author.keeps_pending and letter.kind not in policy.CONTROL_KINDS and not quiet
    troubles = after_filing(ctx, who, to, filed.id, letter, (thread.is_reply, pending))
    _say_filed(filed, troubles, f" to={to.mailbox}" if batch else "")
    if to.person:  # never typed: told on their terminals
        return Sent(_tell_person(ctx, tmux, who, letter), filed)
    if quiet:
        note(quiet_note(to.mailbox))
        return Sent(0, filed)
    if capped or no_wake:
        why = conversation.capped_reason(thread.chain) if capped else "--no-wake"
        return Sent(report_not_woken(ctx, to, "typed", why), filed, capped=capped)
    line = _envelope(who, filed, letter)
    wake = Wake(ctx, to, letter.kind, filed.id, line, submit=not no_submit, hands=hands)
    return Sent(wake.take(tmux, wake_pane, session, verdict), filed)


def _identify(
    ctx: Ctx, author: Author, target: str, addr: Addr, *, records: bool
) -> tuple[Tmux | None, Sender, Recipient, Session | None]:
    """Who signs, where the message goes, and the recipient's native session: from hail's records
    alone when they can tell (and `records` allows it: no tmux call then), else from a survey."""
    if records:
        from hail.transport.routes.records import send_by_records

        found = send_by_records(ctx, addr, lambda known: author.by_records(ctx, known))
        if found is not None:  # the records name a session between turns
            return None, found[0], found[1], found[2]
    tmux, who, to = _survey_route(ctx, author, target, addr)
    return tmux, who, to, None


def _tell_person(ctx: Ctx, tmux: Tmux | None, who: Sender, letter: Letter) -> int:
    from hail.transport.person import tell

    return tell(ctx, tmux, f"hail: {letter.kind} from {who.from_}", letter.draft.headline)


def _say_filed(filed: Filed, troubles: list[str], tail: str = "") -> None:
    emit(f"id={filed.id}{tail}")
    flush()  # the id is out before typing starts; a closed pipe does not stop the send
    for trouble in troubles:
        note(trouble)


def _envelope(who: Sender, filed: Filed, letter: Letter) -> str:
    head = envelope.Head(kind=letter.kind, sender=who.from_, reply=who.reply, id=filed.id,
                         headline=letter.draft.headline, re=letter.re, scope=letter.scope,
                         until=filed.until)  # fmt: skip
    return envelope.render(head, has_body=letter.draft.body is not None)


def _survey_route(
    ctx: Ctx, author: Author, target: str, addr: Addr
) -> tuple[Tmux | None, Sender, Recipient]:
    """The signature and the recipient from a tmux survey (none when no server answers)."""
    from hail.transport import resolve

    tmux, panes = resolve.reach_or_none(ctx)
    who = author.surveyed(ctx, panes)
    split = author.split(ctx, who, panes)
    if split:
        warn(split)
    to = resolve.route(ctx, target, addr, tmux, panes)
    if to.found is not None:  # a pane target's seat becomes known, as a directory's does
        ctx.bind(to.found)
    return tmux, who, to


def quiet_note(mailbox: str) -> str:
    return (
        f"quiet: arrives with {mailbox}'s next prompt or tool call "
        "(an fyi never interrupts; an ask or announce does)"
    )
