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
from hail.output import emit, flush, note, warn
from hail.seat import parse_target
from hail.store import fs, records
from hail.store.message import render

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.route import Route, Sender
    from hail.transport.native import Native
    from hail.transport.panes import Pane
    from hail.transport.screen import Verdict
    from hail.transport.tmux import Tmux
    from hail.transport.wake import WakeResult

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
    (in seconds), all validated."""

    __slots__ = ("draft", "kind", "re", "scope", "span")

    def __init__(self, kind: str, draft: Draft, re: str, scope: str, span: int | None) -> None:
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
    return hooks_live(ctx, mailbox)


# --- post and record ---------------------------------------------------------------------------


def write_message(ctx: Ctx, mailbox: str, msg_id: str, text: str) -> None:
    """Post the message durably; a disk that cannot take it is a clear error with nothing sent."""
    box = ctx.store.mailbox(mailbox)
    try:
        box.post(msg_id, text, inline=False)
    except OSError as e:
        try:  # noqa: SIM105 (contextlib would cost every send an import)
            os.unlink(ctx.store.id_path(msg_id))  # the id was never used
        except OSError:
            pass
        raise StateError(
            f"could not write the message into {box.path} ({e.strerror or e}); nothing was sent: "
            "free some disk space (or fix that directory's permissions), then send again"
        ) from None


def post(
    ctx: Ctx, who: Sender, to: Route, letter: Letter, extra: dict[str, str] | None = None
) -> tuple[str, str]:
    """Reserve the id and write the message durably; returns (id, until)."""
    now = ctx.now()
    ctx.store.ensure()
    if who.reply != who.seat.name:
        # A pane of a shared seat signs as its sub-seat: the mailbox exists from its first send,
        # so replies, its brief (lapsed holds) and gc find it [docs/seats.md
        # "Shared directories and sub-seats"].
        fs.make_dirs(ctx.store.mailbox(who.reply).path)
    ctx.store.check_trusted([to.mailbox])  # before anything is written for the message
    msg_id = ctx.store.reserve_id(to.mailbox, now)
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
    # Even a control kind is filed unread: it is filed `inline` only once its envelope is typed.
    write_message(ctx, to.mailbox, msg_id, render(headers, body))
    if letter.kind == "hold":
        fs.make_dirs(ctx.store.holds)
        text = records.hold_text(
            msg_id,
            who.reply,
            to.mailbox,
            letter.scope,
            ids.iso(now),
            letter.re,
            until,
            letter.draft.headline,
        )
        fs.write_atomic(os.path.join(ctx.store.holds, msg_id), text)
    elif letter.kind == "release" and letter.re:
        records.remove(os.path.join(ctx.store.holds, letter.re))
        records.remove(os.path.join(ctx.store.lapsed, letter.re))
    return msg_id, until


def record_pending(ctx: Ctx, who: Sender, to: Route, msg_id: str, kind: str, headline: str) -> None:
    pending = ctx.store.mailbox(who.reply).pending
    fs.make_dirs(pending)
    fs.write_atomic(
        os.path.join(pending, msg_id),
        records.pending_text(msg_id, kind, to.mailbox, ctx.now(), headline),
    )


# --- report ------------------------------------------------------------------------------------


def not_woken_tail(ctx: Ctx, to: Route) -> str:
    root = ctx.store.bound_root(to.seat)
    if root is not None and not os.path.exists(root):
        return (
            f". Its workspace {root} is gone, so no hook will read it; do not resend "
            "(hail doctor lists such seats)"
        )
    if hooks_live(ctx, to.mailbox):
        return "; do not resend: it arrives with their next prompt or tool call"
    where = root if root is not None else "its seat"
    return (
        f". No hook has read {to.mailbox} lately, so it waits until someone runs hail inbox in "
        f"{where}. If its agent works from another directory, hail seats shows where; do not resend."
    )


def not_typed_reason(ctx: Ctx, to: Route, tmux: Tmux | None) -> str:
    """Why nothing was typed: the route's reason, or why tmux did not answer (a sandbox, say)."""
    if tmux is not None:
        return to.reason or "no tmux server"
    from hail.transport.tmux import unreachable_reason

    return unreachable_reason(ctx.env)


def report_not_woken(ctx: Ctx, to: Route, verb: str, reason: str) -> int:
    note(f"delivered to {to.mailbox}'s inbox; not {verb} ({reason}){not_woken_tail(ctx, to)}")
    return NOT_WOKEN


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
    from hail import route as routing
    from hail.store import conversation

    kind, scope, span = validate(args)
    addr = parse_target(args.target)  # refused before anything is written, the binding included
    draft = _draft(kind, args, stdin_text, ctx.cap)
    seat = ctx.require_seat()
    tmux, panes = routing.reach_or_none(ctx)
    who = routing.sender(ctx, seat, panes)
    split = routing.identity_split(ctx, who, panes)
    if split:
        warn(split)
    to = routing.route(ctx, args.target, addr, tmux, panes)
    if to.found is not None:  # a pane target's seat becomes known, as a directory's does
        ctx.bind(to.found)
    if kind == "release" and args.re:
        check_release(ctx, args.re)
    thread = conversation.thread_of(ctx.store, args.re, who.reply, to.mailbox)
    quiet = is_quiet(ctx, kind, to.mailbox) and not thread.is_reply  # a reply wakes its asker
    capped = not quiet and thread.capped(kind)
    wake_pane = None if args.no_wake or quiet or capped else to.wake
    native = _native_first(ctx, args, tmux, wake_pane, to.mailbox)
    verdict = None if native is not None else _look_first(tmux, wake_pane)  # a dialog: exit 4
    letter = Letter(kind, draft, args.re or "", scope, span)
    msg_id, until = post(ctx, who, to, letter, thread.headers())
    if thread.is_reply and args.re:
        conversation.record_reply(ctx.store, args.re, msg_id, to.mailbox)
    filed.id, filed.asker, filed.to, filed.capped = msg_id, who.reply, to.mailbox, capped
    if kind not in policy.CONTROL_KINDS and not quiet:
        record_pending(ctx, who, to, msg_id, kind, draft.headline)
    emit(f"id={msg_id}")
    flush()  # the id is out before typing starts; a closed pipe does not stop the send
    if quiet:
        note(quiet_note(to.mailbox))
        return 0
    if capped:
        return report_not_woken(ctx, to, "typed", conversation.capped_reason(thread.chain))
    if args.no_wake:
        return report_not_woken(ctx, to, "typed", "--no-wake")
    if wake_pane is None or tmux is None:
        return report_not_woken(ctx, to, "typed", not_typed_reason(ctx, to, tmux))
    head = envelope.Head(
        kind, who.from_, who.reply, msg_id, draft.headline, args.re or "", scope, until
    )
    line = envelope.render(head, has_body=draft.body is not None)
    if native is not None:
        return native_and_report(ctx, args, kind, to, msg_id, line, (tmux, native))
    return wake_and_report(ctx, args, kind, to, msg_id, line, (tmux, wake_pane, verdict))


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


def _native_first(
    ctx: Ctx, args: SendArgs, tmux: Tmux | None, pane: Pane | None, mailbox: str
) -> Native | None:
    """The pane's native wake, when it has one and the send may use it (`--no-submit` asks for
    typing). Nothing is typed on it, so a dialog does not refuse the send."""
    if pane is None or tmux is None or args.no_submit:
        return None
    from hail.transport.native import find

    return find(ctx, pane, mailbox)


def _look_first(tmux: Tmux | None, pane: Pane | None) -> Verdict | None:
    """The wake pane's screen before anything is written (`wake.look`), when it is to be woken."""
    if pane is None or tmux is None:
        return None
    from hail.transport.wake import look

    return look(tmux, pane.id)


def wake_and_report(
    ctx: Ctx,
    args: SendArgs,
    kind: str,
    to: Route,
    msg_id: str,
    line: str,
    where: tuple[Tmux, Pane, Verdict | None],
) -> int:
    """Type the envelope if the screen allows it; the exit status and what stderr says."""
    from hail.transport.wake import wake

    tmux, pane, verdict = where
    inline = InlineFiling(ctx, to.mailbox, msg_id) if kind in policy.CONTROL_KINDS else None

    def attempt(verdict: Verdict | None) -> WakeResult:
        result = wake(
            tmux,
            pane,
            line,
            verdict,
            submit=not args.no_submit,
            before_enter=inline.file if inline else None,
        )
        if inline is not None and not result.submitted:
            inline.undo()
        return result

    result = attempt(verdict)
    if result.native:
        return _wake_by_plugin(ctx, to, pane, msg_id)
    if result.busy and hooks_live(ctx, to.mailbox):
        settled = screen_after_turn_end(ctx, tmux, pane.id, to.mailbox, msg_id)
        if settled is not None:
            result = attempt(settled)
    if result.busy:
        if hooks_live(ctx, to.mailbox):
            note(f"busy: arrives at {to.mailbox}'s next tool call or when its turn ends")
            return 0
        return report_not_woken(ctx, to, "typed", f"{pane.id} is busy")
    if result.reason:
        return report_not_woken(ctx, to, "submitted" if result.typed else "typed", result.reason)
    note(f"typed: into {pane.id}" + ("" if result.submitted else " (not submitted: --no-submit)"))
    return 0


# --- the native routes [docs/transport.md "Routes"] --------------------------------------------
#
# Between turns (hail's hook records say so) the wake goes native, with nothing typed, and the send
# exits 0. During a turn nothing is woken or queued: PostToolUse and Stop carry the mail (exit 0,
# `busy`), and the screen is read only for what the records cannot tell: a dialog that holds the
# turn (exit 5: it arrives once a person answers it), and a turn the person interrupted, which ran
# no Stop (its composer is idle again: typed as before).


def native_and_report(
    ctx: Ctx,
    args: SendArgs,
    kind: str,
    to: Route,
    msg_id: str,
    line: str,
    where: tuple[Tmux, Native],
) -> int:
    """Wake natively when the session is between turns; else judge the turn by its screen."""
    from hail.transport import native as routes

    tmux, found = where
    if routes.between_turns(ctx, found, to.mailbox):
        if found.waiter is not None:
            if routes.wake_waiter(ctx, found.waiter, to.mailbox):
                note(routes.route_line(found, to.mailbox))
                return 0
            failure = f"process {found.waiter.pid} is no waiter of {to.mailbox}'s Claude Code"
        else:
            failure = _queue(ctx, kind, to, msg_id, line, found)
        if not failure:
            note(routes.route_line(found, to.mailbox))
            return 0
        note(f"{failure}; typing instead")
    from hail.transport import screen
    from hail.transport.wake import read_screen

    verdict = read_screen(tmux, found.pane.id)
    state = verdict.state if verdict is not None else None
    if state in (screen.BUSY, screen.QUEUED, screen.DRAFT) and hooks_live(ctx, to.mailbox):
        note(f"busy: arrives at {to.mailbox}'s next tool call or when its turn ends")
        return 0
    if state == screen.DIALOG:
        return report_not_woken(
            ctx,
            to,
            "typed",
            f"a dialog in {found.pane.id} holds its turn; it arrives with the next tool call once "
            "the dialog is answered",
        )
    # No Stop ended the turn (the person interrupted it) or the queue failed: the screen decides.
    return wake_and_report(ctx, args, kind, to, msg_id, line, (tmux, found.pane, verdict))


def _queue(ctx: Ctx, kind: str, to: Route, msg_id: str, line: str, found: Native) -> str:
    """Queue the envelope on the Codex thread; "" once queued. A control kind is complete in its
    envelope: filed `inline` before the queue takes it, as when it is typed, and given back unread
    if the queue refused it."""
    from hail.transport.codex_queue import queue

    assert found.thread is not None
    inline = InlineFiling(ctx, to.mailbox, msg_id) if kind in policy.CONTROL_KINDS else None
    if inline is not None:
        inline.file()
    failure = queue(ctx, found.thread, found.tui, line)
    if failure and inline is not None:
        inline.undo()
    return failure


#: The file in a mailbox a send renames into place to wake an agent that wakes itself (opencode's
#: plugin watches for it) [docs/hooks.md "opencode"].
WAKE_MARK = "wake"


def _wake_by_plugin(ctx: Ctx, to: Route, pane: Pane, msg_id: str) -> int:
    """An agent that wakes itself (opencode): leave the mark its plugin watches for."""
    if not hooks_live(ctx, to.mailbox):
        return report_not_woken(ctx, to, "typed", native_reason(pane))
    # The plugin watches for this mark, not for new mail: a quiet fyi, a capped or --no-wake send
    # files mail without it, and so wakes nobody.
    fs.write_atomic(os.path.join(ctx.store.mailbox(to.mailbox).path, WAKE_MARK), msg_id)
    note(f"woken by its plugin: {pane.agent} in {pane.id} takes it when its session is idle")
    return 0


def native_reason(pane: Pane) -> str:
    return (
        f"{pane.agent} in {pane.id} wakes itself on new mail, but hail's plugin has not run for this"
        " seat in 7 days: run hail setup, then restart it"
    )


class InlineFiling:
    """A control kind's envelope carries all of it: once typed, its file is claimed `inline`
    (before Enter, so the prompt hook it triggers does not deliver it a second time), and given
    back unread if the envelope was not submitted, so the hooks deliver it instead."""

    __slots__ = ("box", "claimed", "msg_id")

    def __init__(self, ctx: Ctx, mailbox: str, msg_id: str) -> None:
        self.box = ctx.store.mailbox(mailbox)
        self.msg_id = msg_id
        self.claimed: str | None = None

    def file(self) -> None:
        self.claimed = self.box.claim(self.msg_id, "inline")

    def undo(self) -> None:
        if self.claimed is not None:
            self.box.give_back(self.claimed)
            self.claimed = None


def screen_after_turn_end(
    ctx: Ctx, tmux: Tmux, pane: str, mailbox: str, msg_id: str
) -> Verdict | None:
    """A client redraws its idle composer only after its Stop hook, up to a few tenths of a second
    on a loaded machine: a busy screen whose Stop hook already looked for mail and let the turn
    end would leave a message filed meanwhile for the next prompt. So while the mailbox says its
    turn is ending, wait for the screen to settle. Its verdict then, or None: no turn is ending, a
    hook took the message, another hook ran (its turn goes on), or it stayed busy."""
    import time

    from hail.transport import screen
    from hail.transport.wake import read_screen

    box = ctx.store.mailbox(mailbox)
    deadline = time.monotonic() + policy.TURN_END_WAIT
    while box.turn_ending() and box.is_unread(msg_id):
        verdict = read_screen(tmux, pane)
        if verdict is not None and verdict.state not in (screen.BUSY, screen.QUEUED):
            return verdict
        if time.monotonic() >= deadline:
            break
        time.sleep(policy.TYPE_POLL_SECONDS)
    return None


def hooks_live(ctx: Ctx, mailbox: str) -> bool:
    """A hook read this mailbox within HOOKED_FRESH_DAYS: a busy agent's hooks will carry the
    message."""
    hooked = ctx.store.mailbox(mailbox).hooked_at()
    return hooked is not None and ctx.now() - hooked < policy.HOOKED_FRESH_SECONDS
