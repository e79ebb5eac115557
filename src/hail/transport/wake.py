"""Typing into an agent's pane: the dialog guard, then type, see it, pause, Enter [docs/transport.md
"Dialog guard"].

Nothing else in hail types into a pane. Text is typed once and never cleared or retyped: a retry
would duplicate the envelope in a composer that was merely slow to draw it. Enter is pressed only
after this text (its id, not an older envelope's opening) is seen on the screen, and only after a
pause, because a composer that receives text and Enter together treats both as one paste.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from hail import policy
from hail.errors import DialogError
from hail.transport import dialog
from hail.transport.panes import Pane
from hail.transport.tmux import Tmux, TmuxError


@dataclass(frozen=True)
class WakeResult:
    """What reached the pane. `reason` is the exit-5 reason [docs/transport.md "Exit-5 reasons"]
    when the send is not complete, else ""."""

    typed: bool
    submitted: bool
    reason: str

    @property
    def ok(self) -> bool:
        return not self.reason


def dialog_message(pane: str) -> str:
    return (
        f"{pane} shows a permission/approval dialog; text typed there is discarded and Enter "
        f"approves it. Read it (hail read {pane} 10), resolve it, then resend; --force only after "
        "reading"
    )


def guard_dialog(tmux: Tmux, pane: str) -> None:
    """Raise DialogError when the pane's screen ends in a permission or approval dialog
    [docs/transport.md "Dialog guard"].

    A pane that cannot be captured is not judged here: typing into it fails next and is reported
    as an exit-5 reason, after the message is safely in the inbox.
    """
    try:
        screen = tmux.capture(pane)
    except TmuxError:
        return
    if dialog.find_dialog(screen) is not None:
        raise DialogError(dialog_message(pane))


def submit_pause(chars: int) -> float:
    """How long the text must sit before Enter stops counting as part of its paste
    [docs/transport.md "Verification and submit"]."""
    return max(policy.SUBMIT_PAUSE_MIN, policy.SUBMIT_PAUSE_PER_CHAR * chars)


def wait_seen(
    tmux: Tmux,
    pane: str,
    probe: str,
    *,
    timeout: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """Poll the visible screen until the probe shows (whitespace ignored: wrapped lines match)."""
    wanted = "".join(probe.split())
    limit = policy.TYPE_SEEN_TIMEOUT if timeout is None else timeout
    deadline = time.monotonic() + limit
    while True:
        try:
            screen = tmux.capture(pane)
        except TmuxError:
            return False
        if wanted in "".join("".join(screen).split()):
            return True
        if time.monotonic() >= deadline:
            return False
        sleep(policy.TYPE_POLL_SECONDS)


def _type_once(tmux: Tmux, pane: str, text: str) -> str:
    """Type the text (leaving copy or view mode first); "" or the tmux error."""
    try:
        tmux.type_literal(pane, text, cancel_mode=tmux.in_mode(pane))
    except TmuxError as err:
        return err.message
    return ""


def wake(tmux: Tmux, pane: Pane, text: str, *, submit: bool) -> WakeResult:
    """Type the envelope plus one space, see its id on screen, pause, Enter; check Codex holding."""
    # The trailing space closes a file-mention popup an `@word` at the end would leave open.
    typed = text + " "
    failure = _type_once(tmux, pane.id, typed)
    if failure:
        return WakeResult(False, False, f"typing into {pane.id} failed: {failure}")
    probe = dialog.probe_of(text)
    if not wait_seen(tmux, pane.id, probe):
        return WakeResult(True, False, _not_seen_reason(pane.id))
    if not submit:
        return WakeResult(True, False, "")
    time.sleep(submit_pause(len(typed)))
    try:
        # A scroll during the pause puts the pane in copy mode, where Enter is a copy command.
        tmux.send_keys(pane.id, ["Enter"], cancel_mode=tmux.in_mode(pane.id))
    except TmuxError as err:
        return WakeResult(True, False, f"typing into {pane.id} failed: {err.message}")
    if pane.is_codex and _codex_holds(tmux, pane.id, probe):
        return WakeResult(
            True, False, f"Codex in {pane.id} is busy and holds the envelope in its composer"
        )
    return WakeResult(True, True, "")


def _not_seen_reason(pane: str) -> str:
    return (
        f"typed into {pane} but not seen there after 10 s, so not submitted; "
        f"hail read {pane} 10 to check, then hail keys {pane} Enter"
    )


def _codex_holds(tmux: Tmux, pane: str, probe: str) -> bool:
    time.sleep(policy.CODEX_HOLD_CHECK_DELAY)
    try:
        screen = tmux.capture(pane)
    except TmuxError:
        return False
    return dialog.codex_holding(screen, probe)


def type_text(tmux: Tmux, pane: str, text: str) -> bool:
    """`hail type`: type one line literally without Enter; True once its first 40 non-blank
    characters show on the screen [docs/commands.md "read, type, keys"]. TmuxError when typing
    fails."""
    tmux.type_literal(pane, text, cancel_mode=tmux.in_mode(pane))
    probe = "".join(text.split())[: policy.TYPE_PROBE_CHARS]
    return wait_seen(tmux, pane, probe)


def press_keys(tmux: Tmux, pane: str, keys: list[str]) -> None:
    """`hail keys`: send key names, leaving copy or view mode first [docs/commands.md
    "read, type, keys"]."""
    tmux.send_keys(pane, keys, cancel_mode=tmux.in_mode(pane))
