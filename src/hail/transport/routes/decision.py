"""Which route a filed message takes to its recipient, and what the send says of it
[docs/transport.md "Routes"].

A live native route is preferred over typing. Between turns (hail's hook records say so) the
session's route takes it with nothing typed, and the send exits 0. During a turn nothing is woken
or queued: PostToolUse and Stop carry the mail (exit 0, `busy`), and the screen is read only for
what the records cannot tell: a dialog that holds the turn (exit 5: it arrives once a person
answers it), and a turn the person interrupted, which ran no Stop (its composer is idle again:
typed as before). Otherwise the envelope is typed into an idle, empty composer (`composer`), never
into an agent that wakes itself. With no route left, the send exits 5: the message waits in the
inbox.

What the decision does to panes (read a screen, type, survey tmux) goes through `Hands`, so its
unit tests run on fake routes, fake records and fake screens with no subprocess. Nothing here is
imported before the send needs it: a wake by the records alone loads neither the pane survey nor
the typing code.
"""

from __future__ import annotations

import os

from hail import policy
from hail.errors import NOT_WOKEN
from hail.output import note
from hail.transport.routes import registry
from hail.transport.routes.base import BUSY, NotWoken

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hail.context import Ctx
    from hail.transport.panes import Pane
    from hail.transport.resolve import Recipient
    from hail.transport.routes.base import Session
    from hail.transport.screen import Verdict
    from hail.transport.tmux import Tmux
    from hail.transport.wake import WakeResult


# --- what the send says when nobody was woken ----------------------------------------------------


def not_woken_tail(ctx: Ctx, to: Recipient) -> str:
    root = ctx.store.bound_root(to.seat)
    if root is not None and not os.path.exists(root):
        return (
            f". Its workspace {root} is gone, so no hook will read it; do not resend "
            "(hail doctor lists such seats)"
        )
    if ctx.store.mailbox(to.mailbox).hooks_live(ctx.now()):
        return "; do not resend: it arrives with their next prompt or tool call"
    where = root if root is not None else "its seat"
    return (
        f". No hook has read {to.mailbox} lately, so it waits until someone runs hail inbox in "
        f"{where}. If its agent works from another directory, hail seats shows where; do not resend."
    )


def not_typed_reason(ctx: Ctx, to: Recipient, tmux: Tmux | None) -> str:
    """Why nothing was typed: the route's reason, or why tmux did not answer (a sandbox, say)."""
    if tmux is not None:
        return to.reason or "no tmux server"
    from hail.transport.tmux import unreachable_reason

    return unreachable_reason(ctx.env)


def report_not_woken(ctx: Ctx, to: Recipient, verb: str, reason: str) -> int:
    note(f"delivered to {to.mailbox}'s inbox; not {verb} ({reason}){not_woken_tail(ctx, to)}")
    return NOT_WOKEN


# --- before filing -------------------------------------------------------------------------------


def native_first(
    ctx: Ctx, tmux: Tmux | None, pane: Pane | None, mailbox: str, submit: bool
) -> Session | None:
    """The pane's live native session, when it has one and the send may use it: `--no-submit`
    asks for typing, except of an agent that wakes itself and is never typed into. Nothing is typed
    on a native route, so a dialog does not refuse the send."""
    if pane is None or tmux is None:
        return None
    route = registry.of_agent(pane.agent)
    if not route.native or not (submit or route.wakes_itself):
        return None
    found = route.find(ctx, pane, mailbox)
    if found is not None:
        found.learn(ctx)
    return found


def look_first(hands: Hands, tmux: Tmux | None, pane: Pane | None) -> Verdict | None:
    """The wake pane's screen before anything is written, when it is to be typed into: a dialog
    refuses the send (exit 4), since any text typed there answers it."""
    if pane is None or tmux is None:
        return None
    return hands.look(tmux, pane.id)


# --- hail's hands on the panes ---------------------------------------------------------------------


class Hands:
    """What the decision does to panes: read a screen, type the envelope, look before filing, and
    survey the tmux server. Unit tests of the decision give it fakes."""

    def read(self, tmux: Tmux, pane: str) -> Verdict | None:
        from hail.transport.wake import read_screen

        return read_screen(tmux, pane)

    def look(self, tmux: Tmux, pane: str) -> Verdict | None:
        from hail.transport.wake import look

        return look(tmux, pane)

    def type(
        self,
        tmux: Tmux,
        pane: Pane,
        line: str,
        verdict: Verdict | None,
        *,
        submit: bool,
        before_enter: Callable[[], None] | None,
    ) -> WakeResult:
        from hail.transport.wake import wake

        return wake(tmux, pane, line, verdict, submit=submit, before_enter=before_enter)

    def pane(self, ctx: Ctx, pane_id: str) -> tuple[Tmux | None, Pane | None]:
        """The tmux server and one of its panes, surveyed now."""
        from hail.transport import resolve

        tmux, panes = resolve.reach_or_none(ctx)
        return tmux, panes.get(pane_id) if panes is not None else None


# --- after filing ----------------------------------------------------------------------------------


class Wake:
    """One filed message's wake: its recipient, its kind, its id, the envelope line to type or
    queue, whether it is to be submitted (`--no-submit` types it and leaves it), and the hands
    that reach its panes."""

    __slots__ = ("ctx", "hands", "kind", "line", "msg_id", "submit", "to")

    def __init__(
        self,
        ctx: Ctx,
        to: Recipient,
        kind: str,
        msg_id: str,
        line: str,
        *,
        submit: bool,
        hands: Hands | None = None,
    ) -> None:
        self.ctx = ctx
        self.to = to
        self.kind = kind
        self.msg_id = msg_id
        self.line = line
        self.submit = submit
        self.hands = hands or Hands()

    def not_woken(self, verb: str, reason: str) -> int:
        return report_not_woken(self.ctx, self.to, verb, reason)

    def busy(self) -> None:
        note(f"{BUSY}: arrives at {self.to.mailbox}'s next tool call or when its turn ends")

    def hooks_live(self) -> bool:
        return self.ctx.store.mailbox(self.to.mailbox).hooks_live(self.ctx.now())

    def inline(self) -> InlineFiling | None:
        """A control kind's filing `inline` as its envelope is typed or queued."""
        if self.kind not in policy.CONTROL_KINDS:
            return None
        return InlineFiling(self.ctx, self.to.mailbox, self.msg_id)

    def take(
        self, tmux: Tmux | None, pane: Pane | None, session: Session | None, verdict: Verdict | None
    ) -> int:
        """The route chosen before filing: the native session's, else typing into the wake pane,
        else exit 5 with why nothing was typed."""
        if session is not None:
            return self.natively(tmux, session)
        if pane is None or tmux is None:
            return self.not_woken("typed", not_typed_reason(self.ctx, self.to, tmux))
        return self.typed(tmux, pane, verdict)

    def typed(self, tmux: Tmux, pane: Pane, verdict: Verdict | None) -> int:
        from hail.transport.routes.composer import ROUTE as TYPING

        return TYPING.type_into(self, tmux, pane, verdict)

    def natively(self, tmux: Tmux | None, session: Session) -> int:
        """Take the session's route when it is between turns (an agent that wakes itself always);
        else, or when the route fails, the screen decides."""
        mailbox = self.to.mailbox
        if session.route.wakes_itself or session.between_turns(self.ctx, mailbox):
            if session.types_when_idle():
                typed = self._type_if_idle(tmux, session)
                if typed is not None:
                    return typed
            try:
                failure = session.take(self)
            except NotWoken as e:
                return self.not_woken(e.verb, e.reason)
            if not failure:
                note(session.line(mailbox))
                return 0
            if session.route.wakes_itself:  # never typed into
                return self.not_woken(session.route.took, failure)
            note(f"{failure}; typing instead")
        return self.by_turn(tmux, session)

    def by_turn(self, tmux: Tmux | None, session: Session) -> int:
        """The session runs a turn (or its route failed): its hooks carry the mail while the turn
        runs, a dialog holds it, and an idle screen (a turn the person interrupted ran no Stop) is
        typed into."""
        from hail.transport import screen

        tmux, pane = self._surveyed(tmux, session)
        if tmux is None or pane is None:
            return self.not_woken("typed", f"no tmux pane {session.pane_id} answers")
        verdict = self.hands.read(tmux, pane.id)
        state = verdict.state if verdict is not None else None
        if state in (screen.BUSY, screen.QUEUED, screen.DRAFT) and self.hooks_live():
            self.busy()
            return 0
        if state == screen.DIALOG:
            return self.not_woken(
                "typed",
                f"a dialog in {pane.id} holds its turn; it arrives with the next tool call once "
                "the dialog is answered",
            )
        return self.typed(tmux, pane, verdict)

    def _type_if_idle(self, tmux: Tmux | None, session: Session) -> int | None:
        """Into an idle, empty composer the envelope is typed (the session's route is slower);
        None, and the route takes it, over anything else: a person's draft is never typed over."""
        from hail.transport import screen

        tmux, pane = self._surveyed(tmux, session)
        if tmux is None or pane is None:
            return None
        verdict = self.hands.read(tmux, pane.id)
        if verdict is None or verdict.state != screen.IDLE:
            return None
        return self.typed(tmux, pane, verdict)

    def _surveyed(self, tmux: Tmux | None, session: Session) -> tuple[Tmux | None, Pane | None]:
        """The tmux server and the session's pane, surveyed now when hail's records found the
        session and the screen must decide after all."""
        if tmux is not None and session.pane is not None:
            return tmux, session.pane
        return self.hands.pane(self.ctx, session.pane_id)


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
