"""The send pipeline [docs/commands.md "Send steps"]: validate → compose → identify → route → check
state → post → record → wake → report.

The message is durable in the recipient's inbox before anything is typed: a send that cannot be typed
still delivers, exits 5 and says not to resend.
"""

from __future__ import annotations

import os

from hail import envelope, ids, policy
from hail.context import Ctx
from hail.errors import NOT_WOKEN, OverCapError, StateError, UsageError
from hail.message import render
from hail.output import emit, flush, note, warn
from hail.seat import parse_target
from hail.store import fs, records
from hail.transport.routes.decision import (
    Hands,
    Wake,
    look_first,
    native_first,
    report_not_woken,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hail.seat import Addr, Seat
    from hail.transport.resolve import Recipient, Sender
    from hail.transport.tmux import Tmux

_SPAN_UNIT = {"m": 60, "h": 3600, "d": 86400}

OLD_KIND_HINTS = {
    "ruling": ". A verdict leads the headline of a reply: hail {t} fyi --re <id> 'GO: land it', or an ask when you need an answer",
    "done": ". Report the outcome: hail {t} fyi --re <id> '<what was done>'",
    "stop": ". To stop someone now, send an announce ('STOP: …'); for a standing pause, a hold",
    "block": f". Send a hold (--for up to {policy.HOLD_MAX_DAYS}d)",
}
OLD_KIND_HINTS["go"] = OLD_KIND_HINTS["nogo"] = OLD_KIND_HINTS["ruling"]


class SendArgs:
    """A parsed send command line."""

    __slots__ = (
        "body",
        "headline",
        "kind",
        "no_submit",
        "no_wake",
        "peer",
        "re",
        "scope",
        "span",
        "target",
        "wait",
        "wait_timeout",
    )

    def __init__(
        self,
        target: str,
        kind: str | None,
        headline: str | None,
        re: str | None = None,
        scope: str | None = None,
        span: str | None = None,
        no_submit: bool = False,
        no_wake: bool = False,
        body: str | None = None,
        wait: bool = False,
        wait_timeout: float | None = None,
    ) -> None:
        self.target = target
        self.body = body
        self.kind = kind
        self.headline = headline
        self.re = re
        self.scope = scope
        self.span = span
        self.no_submit = no_submit
        self.no_wake = no_wake
        self.wait = wait
        self.wait_timeout = wait_timeout
        #: A send from another machine (`hail remote-peer`): its sender and the id it chose.
        self.peer: Peer | None = None


class Peer:
    """Who signs a send from another machine (`<seat>@<host>`), and the id its sender chose."""

    __slots__ = ("id", "sender")

    def __init__(self, sender: Sender, msg_id: str) -> None:
        self.sender = sender
        self.id = msg_id


class Filed:
    """What the pipeline filed, for a wait that follows it (`ask --wait`)."""

    __slots__ = ("asker", "capped", "id", "to")

    def __init__(self) -> None:
        self.id = ""
        self.asker = ""
        self.to = ""
        self.capped = False


class Draft:
    """A composed message: the sanitized (possibly folded) headline and the body, if any."""

    __slots__ = ("body", "headline")

    def __init__(self, headline: str, body: str | None) -> None:
        self.headline = headline
        self.body = body


class Letter:
    """What a send files: the kind, the composed draft, and the values of --re, --scope and --for
    (in seconds), all validated; `given_id`, the id a sender on another machine chose."""

    __slots__ = ("draft", "given_id", "kind", "re", "scope", "span")

    def __init__(
        self, kind: str, draft: Draft, re: str, scope: str, span: int | None, given_id: str = ""
    ) -> None:
        self.given_id = given_id
        self.kind = kind
        self.draft = draft
        self.re = re
        self.scope = scope
        self.span = span


# --- validate ----------------------------------------------------------------------------------


def validate_kind(target: str, kind: str | None) -> str:
    kinds = " ".join(policy.KINDS)
    if kind is None:
        raise UsageError(
            f"kind is missing: hail {target} <kind> '<headline>' ({kinds}). "
            "If you meant a command, 'hail help' lists them"
        )
    if kind not in policy.KINDS:
        hint = OLD_KIND_HINTS.get(kind, "").format(t=target)
        raise UsageError(
            f"'{kind}' is not a kind ({kinds}). Usage: hail {target} <kind> '<headline>'; "
            f"if '{target}' is a command, 'hail help' lists them{hint}"
        )
    return kind


def parse_span(span: str) -> int:
    number, unit = span[:-1], span[-1:]
    if unit not in _SPAN_UNIT or not (number.isascii() and number.isdigit()) or int(number) == 0:
        raise UsageError(f"--for {span}: a span such as 30m, 8h or 3d")
    seconds = int(number) * _SPAN_UNIT[unit]
    if seconds > policy.HOLD_MAX_SECONDS:
        raise UsageError(
            f"--for {span}: at most {policy.HOLD_MAX_DAYS}d; a hold is a person's decision, not a "
            "standing lock"
        )
    return seconds


def validate_scope(scope: str | None) -> str:
    if scope is None:
        return ""
    if "\n" in scope or "\r" in scope:
        raise UsageError("--scope must be one line")
    clean = envelope.sanitize(scope)
    if len(clean) > policy.SCOPE_MAX:
        raise UsageError(f"--scope is {len(clean)} characters; at most {policy.SCOPE_MAX}")
    return clean


def validate_re(value: str | None) -> str:
    """`--re` as given when it is a message id, "" when absent; exit 1 otherwise.

    It is written into the message, the hold record and the typed envelope: nothing else may pass.
    """
    if value is None:
        return ""
    if not ids.is_message_id(value):
        raise UsageError(
            "--re must be a message id, such as 1130T171200-a3f1: "
            "the id= line of the message you answer (hail inbox shows each id)"
        )
    return value


def validate(args: SendArgs) -> tuple[str, str, int | None]:
    """The kind, the clean scope and the hold span in seconds; raises on any bad argument."""
    kind = validate_kind(args.target, args.kind)
    validate_re(args.re)
    if kind == "release" and not args.re:
        raise UsageError("release needs --re <hold id>; hail brief lists holds in effect")
    if args.wait and kind != "ask":
        raise UsageError(f"--wait applies to an ask, not {kind}: only an ask expects a reply")
    span: int | None = None
    if args.span is not None:
        if kind != "hold":
            raise UsageError(f"--for applies to hold, not {kind}")
        span = parse_span(args.span)
    return kind, validate_scope(args.scope), span


# --- compose -----------------------------------------------------------------------------------


def split_input(headline_arg: str | None, stdin_text: str | None) -> tuple[str, str | None]:
    """The raw headline and body from the argument and stdin [docs/commands.md
    "Headline and body"]."""
    if headline_arg is not None:
        body = stdin_text.strip("\n") if stdin_text is not None else None
        if body is not None and not body.strip():
            body = None
        return headline_arg, body
    if stdin_text is None:
        raise UsageError(
            "no headline: pass it as an argument, or the headline then the body on stdin (heredoc)"
        )
    first, _, rest = stdin_text.partition("\n")
    if rest.startswith("\n"):
        rest = rest[1:]
    rest = rest.rstrip("\n")
    return first, rest or None


def with_body_argument(argument: str | None, stdin_body: str | None) -> str | None:
    """The body given as the argument after the headline, if any, else stdin's.

    Codex lets hail out of its sandbox only for a command of its own, which a heredoc is not; there
    a body can only be a (quoted, possibly multi-line) argument.
    """
    if argument is None:
        return stdin_body
    if stdin_body is not None:
        raise UsageError("two bodies: one after the headline and one on stdin; send one of them")
    body = argument.strip("\n")
    return body if body.strip() else None


def compose(kind: str, raw_headline: str, body: str | None, cap: int) -> Draft:
    headline = envelope.sanitize(raw_headline)
    if not headline:
        raise UsageError("empty headline: say the ask and the why in one line")
    if len(headline) > cap:
        if kind in policy.CONTROL_KINDS:
            raise OverCapError(
                f"headline is {len(headline)} characters; the cap is {cap}. A {kind} is complete "
                "in its envelope and has no body; shorten it."
            )
        folded = envelope.fold(headline, cap)
        note(
            f"headline folded to {len(folded)} characters (cap {cap}); the full text rides in the body"
        )
        body = headline + (f"\n\n{body}" if body else "")
        headline = folded
    if kind in policy.CONTROL_KINDS and body:
        raise UsageError(
            f"a {kind} has no body: it is complete in its headline (at most {cap} characters); "
            "drop the body, or send an ask or fyi"
        )
    return Draft(headline, body)


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


# --- post and record ---------------------------------------------------------------------------


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
    ctx: Ctx, who: Sender, to: Recipient, letter: Letter, msg_id: str, times: tuple[str, str]
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
    )
    try:
        fs.make_dirs(ctx.store.holds)
        fs.write_atomic(path, text)
    except OSError as e:
        raise nothing_sent(ctx, msg_id, f"the hold record {path}", e) from None
    return path


def post(
    ctx: Ctx, who: Sender, to: Recipient, letter: Letter, extra: dict[str, str] | None = None
) -> tuple[str, str]:
    """Reserve the id and write the message durably (a hold's record first); returns (id, until)."""
    now = ctx.now()
    ctx.store.ensure()
    if who.reply != who.seat.name:
        # A pane of a shared seat signs as its sub-seat: the mailbox exists from its first send,
        # so replies, its brief (lapsed holds) and gc find it [docs/seats.md
        # "Shared directories and sub-seats"].
        fs.make_dirs(ctx.store.mailbox(who.reply).path)
    ctx.store.check_trusted([to.mailbox])  # before anything is written for the message
    msg_id = _reserve(ctx, to.mailbox, now, letter.given_id)
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
    hold = write_hold(ctx, who, to, letter, msg_id, (ids.iso(now), until)) if until else ""
    try:
        # Even a control kind is filed unread: it is filed `inline` only once its envelope is typed.
        write_message(ctx, to.mailbox, msg_id, render(headers, body))
    except StateError:
        if hold:
            fs.remove_quietly(hold)
        raise
    return msg_id, until


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


# --- the pipeline ------------------------------------------------------------------------------


def send(ctx: Ctx, args: SendArgs, stdin_text: str | None) -> int:
    """The pipeline, then with `--wait` the wait for the reply, whose exit code replaces the send's
    once the ask is in the inbox (0 or 5); a send refused before filing returns its own code."""
    filed = Filed()
    code = file_and_wake(ctx, args, stdin_text, filed)
    if args.wait and filed.id and not filed.capped and code in (0, NOT_WOKEN):
        from hail.commands import converse

        return converse.after_send(ctx, filed.asker, filed.id, filed.to, args.wait_timeout)
    return code


def file_and_wake(ctx: Ctx, args: SendArgs, stdin_text: str | None, filed: Filed) -> int:
    from hail.store import conversation

    kind, scope, span = validate(args)
    addr = parse_target(args.target)  # refused before anything is written, the binding included
    draft = _draft(kind, args, stdin_text, ctx.cap)
    seat = ctx.require_seat() if args.peer is None else None
    by_records = None
    if seat is not None and not (args.no_submit or args.no_wake):
        from hail.transport.routes.records import send_by_records

        by_records = send_by_records(ctx, addr, seat)
    if by_records is not None:  # the records name a session between turns: no tmux call
        who, to, tmux = by_records[0], by_records[1], None
    else:
        tmux, who, to = _survey_route(ctx, args, addr, seat)
    if kind == "release" and args.re:
        check_release(ctx, args.re)
    thread = conversation.thread_of(ctx.store, args.re, who.reply, to.mailbox)
    quiet = is_quiet(ctx, kind, to.mailbox) and not thread.is_reply  # a reply wakes its asker
    capped = not quiet and thread.capped(kind)
    wake_pane = None if args.no_wake or quiet or capped else to.wake
    submit = not args.no_submit
    session = (
        by_records[2] if by_records else native_first(ctx, tmux, wake_pane, to.mailbox, submit)
    )
    hands = Hands()
    verdict = None if session is not None else look_first(hands, tmux, wake_pane)  # dialog: exit 4
    letter = Letter(kind, draft, args.re or "", scope, span, args.peer.id if args.peer else "")
    msg_id, until = post(ctx, who, to, letter, thread.headers())
    filed.id, filed.asker, filed.to, filed.capped = msg_id, who.reply, to.mailbox, capped
    pending = kind not in policy.CONTROL_KINDS and not quiet and args.peer is None
    troubles = after_filing(ctx, who, to, msg_id, letter, (thread.is_reply, pending))
    emit(f"id={msg_id}")
    flush()  # the id is out before typing starts; a closed pipe does not stop the send
    for trouble in troubles:
        note(trouble)
    if quiet:
        note(quiet_note(to.mailbox))
        return 0
    if capped:
        return report_not_woken(ctx, to, "typed", conversation.capped_reason(thread.chain))
    if args.no_wake:
        return report_not_woken(ctx, to, "typed", "--no-wake")
    head = envelope.Head(kind=kind, sender=who.from_, reply=who.reply, id=msg_id,
                         headline=draft.headline, re=args.re or "", scope=scope, until=until)  # fmt: skip
    line = envelope.render(head, has_body=draft.body is not None)
    wake = Wake(ctx, to, kind, msg_id, line, submit=submit, hands=hands)
    return wake.take(tmux, wake_pane, session, verdict)


def _survey_route(
    ctx: Ctx, args: SendArgs, addr: Addr, seat: Seat | None
) -> tuple[Tmux | None, Sender, Recipient]:
    """The sender and the route from a tmux survey (none when no server answers); the sender is
    this directory's seat, or the sender on another machine (`hail remote-peer`)."""
    from hail.transport import resolve as routing

    tmux, panes = routing.reach_or_none(ctx)
    if args.peer is not None:
        who = args.peer.sender
    else:
        assert seat is not None
        who = routing.sender(ctx, seat, panes)
    split = routing.identity_split(ctx, who, panes)
    if split:
        warn(split)
    to = routing.route(ctx, args.target, addr, tmux, panes)
    if to.found is not None:  # a pane target's seat becomes known, as a directory's does
        ctx.bind(to.found)
    return tmux, who, to


def quiet_note(mailbox: str) -> str:
    return (
        f"quiet: arrives with {mailbox}'s next prompt or tool call "
        "(an fyi never interrupts; an ask or announce does)"
    )


def _draft(kind: str, args: SendArgs, stdin_text: str | None, cap: int) -> Draft:
    """The message from the headline and body as given (arguments and stdin)."""
    raw_headline, body = split_input(args.headline, stdin_text)
    body = with_body_argument(args.body, body)
    return compose(kind, raw_headline, body, cap)
