"""Answering an agent's permission dialog from `hail watch` [docs/watch.md "Answering a dialog"].

The person reads each waiting dialog's text as the screen shows it and picks one key it offers.
That key goes to that pane only, and only while the very dialog the person read is on its screen:
the pane is captured again right before the key is sent and its dialog compared with the one shown;
a changed or gone dialog gets nothing. One key per answer, sent by tmux's key name (`Enter`,
`Escape`) or typed literally (a digit): nothing else reaches the pane, no control character but the
one chosen key.
"""

from __future__ import annotations

from dataclasses import dataclass

from hail.transport import screen
from hail.transport.dialog import ENTER, ESCAPE, Dialog, dialog_of
from hail.transport.tmux import Tmux, TmuxError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from hail.watch.panes import PaneState

#: How the view names the keys a dialog offers.
KEY_WORDS = {ENTER: "Enter", ESCAPE: "Esc"}


@dataclass(frozen=True, slots=True)
class Waiting:
    """An agent pane waiting on a dialog, and that dialog as it was read."""

    pane: str
    seat: str
    agent: str
    dialog: Dialog

    def heading(self) -> str:
        return f"{self.pane} {self.agent} in {self.seat or '(no seat)'}"


def waiting(env: Mapping[str, str], panes: Iterable[PaneState]) -> tuple[list[Waiting], str]:
    """Each agent pane whose screen the last look called a dialog, read again now, and why none
    could be read ("" when tmux answered)."""
    wanted = [p for p in panes if p.agent and p.state == screen.DIALOG]
    if not wanted:
        return [], ""
    try:
        tmux = Tmux.from_env(env)
    except TmuxError as err:
        return [], err.message
    out = []
    for pane in wanted:
        found = _read(tmux, pane.id)
        if found is not None:
            out.append(Waiting(pane.id, pane.seat or "", pane.agent or "", found))
    return out, ""


def _read(tmux: Tmux, pane: str) -> Dialog | None:
    try:
        return dialog_of(tmux.capture(pane, attributes=True))
    except TmuxError:
        return None


def answer(env: Mapping[str, str], shown: Waiting, key: str) -> str:
    """Send `key` to the dialog's pane if the same dialog is still on its screen; what happened,
    as one line for the status line."""
    if key not in shown.dialog.keys:
        return f"{shown.pane}'s dialog offers no {key}: nothing sent"
    try:
        tmux = Tmux.from_env(env)
    except TmuxError as err:
        return f"nothing sent to {shown.pane}: {err.message}"
    now = _read(tmux, shown.pane)  # right before the key: the dialog the person read, or not
    if now is None:
        return f"{shown.pane} shows no dialog any more: nothing sent"
    if now != shown.dialog:
        return f"{shown.pane}'s dialog changed since it was shown: nothing sent (d shows it again)"
    try:
        cancel = tmux.in_mode(shown.pane)  # in copy mode the key would go to the mode
        if key in KEY_WORDS:
            tmux.send_keys(shown.pane, [key], cancel_mode=cancel)
        else:
            tmux.type_literal(shown.pane, key, cancel_mode=cancel)
    except TmuxError as err:
        return f"cannot send {KEY_WORDS.get(key, key)} to {shown.pane}: {err.message}"
    return (
        f"sent {KEY_WORDS.get(key, key)} to {shown.pane}'s dialog ({shown.agent} in {shown.seat})"
    )
