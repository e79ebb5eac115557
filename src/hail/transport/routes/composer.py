"""Typing (every harness with no native route, and the fallback of the others) [docs/transport.md
"When hail types"]: the envelope typed into an idle, empty composer, seen, submitted, and checked
to have left it (`transport/wake.py` does the typing).

The screen decides: a person's draft, a screen hail does not know, or a dialog gets nothing typed
(the message is already in the inbox). A busy agent whose hooks run gets it at its next tool call
or when its turn ends (exit 0); while its turn is ending, the screen is given a moment to settle
first, so a message filed meanwhile is typed rather than left for the next prompt.
"""

from __future__ import annotations

import time

from hail import policy
from hail.output import note
from hail.transport.routes.base import Route

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.transport.panes import Pane
    from hail.transport.routes.base import Wake
    from hail.transport.screen import Verdict
    from hail.transport.tmux import Tmux
    from hail.transport.wake import WakeResult


class ComposerRoute(Route):
    name = "composer"
    shown = "type"
    took = "typed"
    native = False

    def type_into(self, wake: Wake, tmux: Tmux, pane: Pane, verdict: Verdict | None) -> int:
        """Type the envelope if the screen allows it; the exit status, and what stderr says."""
        inline = wake.inline()

        def attempt(verdict: Verdict | None) -> WakeResult:
            result = wake.hands.type(
                tmux,
                pane,
                wake.line,
                verdict,
                submit=wake.submit,
                before_enter=inline.file if inline else None,
            )
            if inline is not None and not result.submitted:
                inline.undo()
            return result

        result = attempt(verdict)
        if result.busy and wake.hooks_live():
            settled = settle(wake, tmux, pane.id)
            if settled is not None:
                result = attempt(settled)
        if result.busy:
            if wake.hooks_live():
                wake.busy()
                return 0
            return wake.not_woken(self.took, f"{pane.id} is busy")
        if result.reason:
            return wake.not_woken("submitted" if result.typed else self.took, result.reason)
        unsent = "" if result.submitted else " (not submitted: --no-submit)"
        note(f"{self.took}: into {pane.id}{unsent}")
        return 0


def settle(wake: Wake, tmux: Tmux, pane: str) -> Verdict | None:
    """A client redraws its idle composer only after its Stop hook, up to a few tenths of a second
    on a loaded machine: a busy screen whose Stop hook already looked for mail and let the turn
    end would leave a message filed meanwhile for the next prompt. So while the mailbox says its
    turn is ending, wait for the screen to settle. Its verdict then, or None: no turn is ending, a
    hook took the message, another hook ran (its turn goes on), or it stayed busy."""
    from hail.transport import screen

    box = wake.ctx.store.mailbox(wake.to.mailbox)
    deadline = time.monotonic() + policy.TURN_END_WAIT
    while box.turn_ending() and box.is_unread(wake.msg_id):
        verdict = wake.hands.read(tmux, pane)
        if verdict is not None and verdict.state not in (screen.BUSY, screen.QUEUED):
            return verdict
        if time.monotonic() >= deadline:
            break
        time.sleep(policy.TYPE_POLL_SECONDS)
    return None


ROUTE = ComposerRoute()
