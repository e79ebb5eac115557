"""Typing into an agent's pane: read the screen, and type only into an idle, empty composer.

Nothing else in hail types a message into a pane (the person's answer to a dialog, one key from
`hail watch`, is `watch/dialogs.py`'s). The message is already durable in the inbox when this
runs, so every other case types nothing and leaves it to the hooks: a busy agent gets it at its
next tool call or when its turn ends, a person's draft is never touched, a screen hail does not
know is never typed into. Text is typed once and never cleared or retyped: a retry would duplicate
the envelope in a composer that was merely slow to draw it. Enter is pressed only after this text
(its id, not an older envelope's opening) is seen on the screen, and only after a pause, because a
composer that receives text and Enter together treats both as one paste. The send is complete only
once the envelope has left the composer [docs/transport.md "When hail types"].
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from hail import policy
from hail.errors import DialogError
from hail.transport import screen
from hail.transport.panes import DEFAULT_AGENTS, Pane, process_name
from hail.transport.tmux import Tmux, TmuxError


@dataclass(frozen=True)
class WakeResult:
    """What reached the pane. `reason` says why the send is not complete, else "". `busy`: nothing
    was typed because a turn is in progress (complete when the seat's hooks are live)."""

    typed: bool
    submitted: bool
    reason: str
    busy: bool = False


def dialog_message(pane: str) -> str:
    return (
        f"{pane} shows a permission/approval dialog; text typed there answers it (a key of the "
        f"envelope picks an option, Enter approves). Read it (hail read {pane} 10), let its user "
        "resolve it, then resend, or resend with --no-wake: the message waits in the inbox and the "
        "hooks deliver it after the dialog"
    )


def read_screen(tmux: Tmux, pane: str) -> screen.Verdict | None:
    """The pane's screen class, or None when it cannot be captured."""
    try:
        return screen.classify(tmux.capture(pane, attributes=True))
    except TmuxError:
        return None


def look(tmux: Tmux, pane: str) -> screen.Verdict | None:
    """Read the screen before anything is written: a dialog refuses the send (exit 4), since any
    text typed there answers it. A pane that cannot be captured is judged when typing is due,
    after the message is safely in the inbox."""
    verdict = read_screen(tmux, pane)
    if verdict is not None and verdict.state == screen.DIALOG:
        raise DialogError(dialog_message(pane))
    return verdict


def draft_reason(pane: str) -> str:
    return f"a person is typing in {pane}: arrives with their next prompt"


def no_composer_reason(pane: Pane) -> str:
    return (
        f"{pane.id} shows no {pane.agent} composer (a login, trust or warning screen, shell mode, "
        "or another program), so nothing was typed"
    )


def not_foreground_reason(pane: Pane) -> str:
    return (
        f"{pane.agent} is not the foreground program of {pane.id} (it runs "
        f"{process_name(pane.command)}), so nothing was typed"
    )


def verdict_reason(pane: Pane, verdict: screen.Verdict | None) -> WakeResult | None:
    """What the screen forbids before typing, or None when typing may go ahead."""
    if verdict is None:
        return WakeResult(
            False, False, f"cannot read the screen of {pane.id}, so nothing was typed"
        )
    if pane.agent not in DEFAULT_AGENTS:
        # An agent named in HAIL_AGENT_COMMANDS: hail does not know its screen, only its process.
        if not pane.foreground:
            return WakeResult(False, False, not_foreground_reason(pane))
        return None
    state = verdict.state
    if state == screen.DRAFT:
        return WakeResult(False, False, draft_reason(pane.id))
    if state in (screen.BUSY, screen.QUEUED):
        return WakeResult(False, False, "", busy=True)
    if state != screen.IDLE:
        return WakeResult(False, False, no_composer_reason(pane))
    return None


def submit_pause(chars: int) -> float:
    """How long the text must sit before Enter stops counting as part of its paste."""
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
    wanted = screen.squeeze(probe)
    limit = policy.TYPE_SEEN_TIMEOUT if timeout is None else timeout
    deadline = time.monotonic() + limit
    while True:
        try:
            lines = tmux.capture(pane)
        except TmuxError:
            return False
        if wanted in screen.squeeze("".join(lines)):
            return True
        if time.monotonic() >= deadline:
            return False
        sleep(policy.TYPE_POLL_SECONDS)


def left_composer(tmux: Tmux, pane: str, probe: str) -> bool:
    """Poll until the composer no longer holds the probe: the envelope was submitted (a client
    that became busy meanwhile and keeps it in its composer has not taken it)."""
    deadline = time.monotonic() + policy.SUBMIT_VERIFY_TIMEOUT
    while True:
        verdict = read_screen(tmux, pane)
        if verdict is not None and not verdict.holds(probe):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(policy.TYPE_POLL_SECONDS)


def _type_once(tmux: Tmux, pane: str, text: str) -> str:
    """Type the text (leaving copy or view mode first); "" or the tmux error."""
    try:
        tmux.type_literal(pane, text, cancel_mode=tmux.in_mode(pane))
    except TmuxError as err:
        return err.message
    return ""


def wake(
    tmux: Tmux,
    pane: Pane,
    text: str,
    verdict: screen.Verdict | None,
    *,
    submit: bool,
    before_enter: Callable[[], None] | None = None,
) -> WakeResult:
    """Type the envelope plus one space into an idle, empty composer, see its id on screen,
    pause, Enter, and check it left the composer. `before_enter` runs once the text is seen."""
    refused = verdict_reason(pane, verdict)
    if refused is not None:
        return refused
    # The trailing space closes a file-mention popup an `@word` at the end would leave open.
    typed = text + " "
    failure = _type_once(tmux, pane.id, typed)
    if failure:
        return WakeResult(False, False, f"typing into {pane.id} failed: {failure}")
    probe = screen.probe_of(text)
    if not wait_seen(tmux, pane.id, probe):
        return WakeResult(True, False, _not_seen_reason(pane.id))
    if not submit:
        return WakeResult(True, False, "")
    time.sleep(submit_pause(len(typed)))
    if before_enter is not None:
        before_enter()
    try:
        # A scroll during the pause puts the pane in copy mode, where Enter is a copy command.
        tmux.send_keys(pane.id, ["Enter"], cancel_mode=tmux.in_mode(pane.id))
    except TmuxError as err:
        return WakeResult(True, False, f"typing into {pane.id} failed: {err.message}")
    if pane.agent in DEFAULT_AGENTS and not left_composer(tmux, pane.id, probe):
        return WakeResult(True, False, _still_there_reason(pane.id))
    return WakeResult(True, True, "")


def _not_seen_reason(pane: str) -> str:
    return (
        f"typed into {pane} but not seen there after {policy.TYPE_SEEN_TIMEOUT:g} s, so not "
        "submitted; "
        f"hail read {pane} 10 to check, then hail keys {pane} Enter"
    )


def _still_there_reason(pane: str) -> str:
    return (
        f"typed into {pane} and pressed Enter, but the envelope is still in its composer (its "
        f"agent turned busy); hail read {pane} 10 to check"
    )


def type_text(tmux: Tmux, pane: str, text: str) -> bool:
    """`hail type`: type one line literally without Enter; True once its first 40 non-blank
    characters show on the screen. TmuxError when typing fails."""
    tmux.type_literal(pane, text, cancel_mode=tmux.in_mode(pane))
    probe = screen.squeeze(text)[: policy.TYPE_PROBE_CHARS]
    return wait_seen(tmux, pane, probe)


def press_keys(tmux: Tmux, pane: str, keys: list[str]) -> None:
    """`hail keys`: send key names, leaving copy or view mode first."""
    tmux.send_keys(pane, keys, cancel_mode=tmux.in_mode(pane))
