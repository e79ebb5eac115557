"""How a filed message wakes its recipient, and what the send says of it [docs/transport.md
"Routes"]: the route is decided from hail's hook records (each harness's `wake` and `records`)
and, when they cannot tell, from the screen.

Between turns (hail's hook records say so) the wake goes native, with nothing typed, and the send
exits 0. During a turn nothing is woken or queued: PostToolUse and Stop carry the mail (exit 0,
`busy`), and the screen is read only for what the records cannot tell: a dialog that holds the
turn (exit 5: it arrives once a person answers it), and a turn the person interrupted, which ran
no Stop (its composer is idle again: typed as before). Otherwise the envelope is typed into an
idle, empty composer (`transport/wake`), never into an agent whose plugin wakes it.

Nothing here is imported before the send needs it: a wake by the records alone loads neither the
pane survey nor the typing code.
"""

from __future__ import annotations

import os

from hail import policy
from hail.errors import NOT_WOKEN
from hail.harnesses.base import HOOKS, PLUGIN, ROUTES, TYPE
from hail.output import note

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.route import Route
    from hail.transport.native import Native
    from hail.transport.panes import Pane
    from hail.transport.screen import Verdict
    from hail.transport.tmux import Tmux
    from hail.transport.wake import WakeResult


# --- report ------------------------------------------------------------------------------------


#: How `_queue` says the queue was asked for and gave no answer (so nothing may be typed).
MAYBE_QUEUED = "unanswered: "


def not_woken_tail(ctx: Ctx, to: Route) -> str:
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


def not_typed_reason(ctx: Ctx, to: Route, tmux: Tmux | None) -> str:
    """Why nothing was typed: the route's reason, or why tmux did not answer (a sandbox, say)."""
    if tmux is not None:
        return to.reason or "no tmux server"
    from hail.transport.tmux import unreachable_reason

    return unreachable_reason(ctx.env)


def report_not_woken(ctx: Ctx, to: Route, verb: str, reason: str) -> int:
    note(f"delivered to {to.mailbox}'s inbox; not {verb} ({reason}){not_woken_tail(ctx, to)}")
    return NOT_WOKEN


# --- before filing -----------------------------------------------------------------------------


def native_first(
    ctx: Ctx, tmux: Tmux | None, pane: Pane | None, mailbox: str, submit: bool
) -> Native | None:
    """The pane's native wake, when it has one and the send may use it (no `submit` asks for
    typing). Nothing is typed on it, so a dialog does not refuse the send."""
    if pane is None or tmux is None or not submit:
        return None
    from hail.transport.native import find, learn

    found = find(ctx, pane, mailbox)
    if found is not None:
        learn(ctx, found)
    return found


def look_first(tmux: Tmux | None, pane: Pane | None) -> Verdict | None:
    """The wake pane's screen before anything is written (`wake.look`), when it is to be woken."""
    if pane is None or tmux is None:
        return None
    from hail.transport.wake import look

    return look(tmux, pane.id)


# --- after filing ------------------------------------------------------------------------------


class Wake:
    """One filed message's wake: its route, its kind, its id, the envelope line to type or queue,
    and whether it is to be submitted (`--no-submit` types it and leaves it)."""

    __slots__ = ("ctx", "kind", "line", "msg_id", "submit", "to")

    def __init__(
        self, ctx: Ctx, to: Route, kind: str, msg_id: str, line: str, *, submit: bool
    ) -> None:
        self.ctx = ctx
        self.to = to
        self.kind = kind
        self.msg_id = msg_id
        self.line = line
        self.submit = submit

    def not_woken(self, verb: str, reason: str) -> int:
        return report_not_woken(self.ctx, self.to, verb, reason)

    def busy(self) -> None:
        note(
            f"{ROUTES[HOOKS]}: arrives at {self.to.mailbox}'s next tool call or when its turn ends"
        )

    def hooks_live(self) -> bool:
        return self.ctx.store.mailbox(self.to.mailbox).hooks_live(self.ctx.now())

    def inline(self) -> InlineFiling | None:
        """A control kind's filing `inline` as its envelope is typed or queued."""
        if self.kind not in policy.CONTROL_KINDS:
            return None
        return InlineFiling(self.ctx, self.to.mailbox, self.msg_id)

    def take(
        self, tmux: Tmux | None, pane: Pane | None, native: Native | None, verdict: Verdict | None
    ) -> int:
        """The route chosen before filing: the native one, else typing into the wake pane, else
        exit 5 with why nothing was typed."""
        if native is not None:
            return self.natively(tmux, native)
        if pane is None or tmux is None:
            return self.not_woken("typed", not_typed_reason(self.ctx, self.to, tmux))
        return self.by_screen(tmux, pane, verdict)

    # --- typing ---------------------------------------------------------------------------------

    def by_screen(self, tmux: Tmux, pane: Pane, verdict: Verdict | None) -> int:
        """Type the envelope if the screen allows it; the exit status and what stderr says."""
        from hail.transport.wake import wake

        inline = self.inline()

        def attempt(verdict: Verdict | None) -> WakeResult:
            result = wake(
                tmux,
                pane,
                self.line,
                verdict,
                submit=self.submit,
                before_enter=inline.file if inline else None,
            )
            if inline is not None and not result.submitted:
                inline.undo()
            return result

        result = attempt(verdict)
        if result.native:
            return self.by_plugin(pane.agent or "", pane.id)
        if result.busy and self.hooks_live():
            settled = screen_after_turn_end(self.ctx, tmux, pane.id, self.to.mailbox, self.msg_id)
            if settled is not None:
                result = attempt(settled)
        if result.busy:
            if self.hooks_live():
                self.busy()
                return 0
            return self.not_woken("typed", f"{pane.id} is busy")
        if result.reason:
            return self.not_woken("submitted" if result.typed else "typed", result.reason)
        unsent = "" if result.submitted else " (not submitted: --no-submit)"
        note(f"{ROUTES[TYPE]}: into {pane.id}{unsent}")
        return 0

    # --- the native routes ----------------------------------------------------------------------

    def natively(self, tmux: Tmux | None, found: Native) -> int:
        """Wake natively when the session is between turns; else judge the turn by its screen."""
        from hail.transport import native as routes

        if found.plugin is not None:
            return self.by_plugin(found.agent, found.pane_id)
        if routes.between_turns(self.ctx, found, self.to.mailbox):
            typed = self._type_for_no_daemon(tmux, found)
            if typed is not None:
                return typed
            failure = self._wake_or_queue(found)
            if failure.startswith(MAYBE_QUEUED):  # typing could bring it twice
                return self.not_woken("queued", failure.removeprefix(MAYBE_QUEUED))
            if not failure:
                note(routes.route_line(found, self.to.mailbox))
                return 0
            note(f"{failure}; typing instead")
        tmux, pane = surveyed(self.ctx, tmux, found)
        if tmux is None or pane is None:
            return self.not_woken("typed", f"no tmux pane {found.pane_id} answers")
        from hail.transport import screen
        from hail.transport.wake import read_screen

        verdict = read_screen(tmux, pane.id)
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
        # No Stop ended the turn (the person interrupted it) or the queue failed: the screen decides.
        return self.by_screen(tmux, pane, verdict)

    def _wake_or_queue(self, found: Native) -> str:
        """Signal the session's waiter or queue on its Codex thread; "" once done, else why not."""
        from hail.transport import native as routes

        if found.waiter is None:
            return self._queue(found)
        if routes.wake_waiter(self.ctx, found.waiter, self.to.mailbox):
            return ""
        return f"process {found.waiter.pid} is no waiter of {self.to.mailbox}'s Claude Code"

    def _type_for_no_daemon(self, tmux: Tmux | None, found: Native) -> int | None:
        """A Codex without its daemon reads its queue only every 10 s: into its idle, empty
        composer the envelope is typed instead (under a second), as before the native routes.
        None, and the queue takes it, over anything else: a person's draft is never typed over."""
        if found.thread is None or found.thread.daemon:
            return None
        tmux, pane = surveyed(self.ctx, tmux, found)
        if tmux is None or pane is None:
            return None
        from hail.transport import screen
        from hail.transport.wake import read_screen

        verdict = read_screen(tmux, pane.id)
        if verdict is None or verdict.state != screen.IDLE:
            return None
        return self.by_screen(tmux, pane, verdict)

    def _queue(self, found: Native) -> str:
        """Queue the envelope on the Codex thread; "" once queued. A control kind is complete in
        its envelope: filed `inline` before the queue takes it, as when it is typed, and given back
        unread if the queue refused it."""
        from hail.transport.codex_queue import queue

        assert found.thread is not None
        inline = self.inline()
        if inline is not None:
            inline.file()
        from hail.transport.codex_daemon import Unanswered

        try:
            failure = queue(self.ctx, found.thread, found.tui, self.line, f"hail-{self.msg_id}")
        except Unanswered as e:
            failure = f"{MAYBE_QUEUED}{e}: it may be queued all the same"
        if failure and inline is not None:
            inline.undo()  # the hooks bring it, should the queue not have taken it
        return failure

    def by_plugin(self, agent: str, pane: str) -> int:
        """An agent that wakes itself (opencode): leave the mark its plugin watches for, once a
        hook of a plugin that watches ran lately. A sub-seat made by this very send has had no hook
        yet: its seat's plugin, which watches every mailbox its pane reads, counts."""
        ctx, to, now = self.ctx, self.to, self.ctx.now()
        box, seat_box = ctx.store.mailbox(to.mailbox), ctx.store.mailbox(to.seat)
        if not (box.plugin_watches(now) or seat_box.plugin_watches(now)):
            hooked = box.hooks_live(now) or seat_box.hooks_live(now)
            return self.not_woken("typed", native_reason(agent, pane, hooked=hooked))
        # The plugin watches for this mark, not for new mail: a quiet fyi, a capped or --no-wake
        # send files mail without it, and so wakes nobody.
        try:
            box.leave_wake(self.msg_id)
        except OSError as e:
            return self.not_woken(
                "woken", f"could not leave the wake mark {box.wake}: {e.strerror or e}"
            )
        note(f"{ROUTES[PLUGIN]}: {agent} in {pane} takes it when its session is idle")
        return 0


def native_reason(agent: str, pane: str, *, hooked: bool = False) -> str:
    if hooked:
        return (
            f"{agent} in {pane} wakes itself on new mail, but hail's plugin there does not"
            " watch this mailbox (an older plugin, or its watch failed): run hail setup, then "
            "restart it"
        )
    return (
        f"{agent} in {pane} wakes itself on new mail, but hail's plugin has not run for this"
        " seat in 7 days: run hail setup, then restart it"
    )


def surveyed(ctx: Ctx, tmux: Tmux | None, found: Native) -> tuple[Tmux | None, Pane | None]:
    """The tmux server and the route's pane, surveyed now when the route came from hail's records
    and the screen must decide after all (a turn began meanwhile, or the queue failed)."""
    if tmux is not None and found.pane is not None:
        return tmux, found.pane
    from hail import route as routing

    tmux, panes = routing.reach_or_none(ctx)
    return tmux, panes.get(found.pane_id) if panes is not None else None


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
