"""A permission dialog as a person answers it from `hail watch`: its text as the screen shows it,
and the keys it offers [docs/watch.md "Answering a dialog"].

Pure: screen lines in (as `capture-pane -p -J -e` prints them), a `Dialog` out. Whether a screen
shows a dialog at all is `transport/screen.py`'s judgement; this only reads one that it called a
dialog. The text is the screen's last non-blank lines, the marker of the highlighted option
included, so a dialog whose highlighted option moved, or that was replaced by another, no longer
equals the one the person read. The keys are those every client's dialog takes: the digit of
each numbered option, Enter (the highlighted option) and Esc where the dialog says it cancels.
"""

from __future__ import annotations

from hail import policy
from hail.text import printable_line
from hail.transport import screen

#: A numbered option opens with its digit and `. `, after a box's side, the highlight's marker or
#: both (`│ ● 1. Allow once`, `❯ 1. Yes`, `› 1. Yes, proceed (y)`).
_LEADERS = frozenset(" │┃❯›●>")
#: The key names sent for Enter and Esc (tmux's names: never a control character typed literally).
ENTER = "Enter"
ESCAPE = "Escape"


class Dialog:
    """A dialog's text (its last non-blank screen lines, each one printable line) and the keys it
    offers: digits, then `Enter`, then `Escape` when it says Esc cancels."""

    __slots__ = ("keys", "text")

    def __init__(self, text: tuple[str, ...], keys: tuple[str, ...]) -> None:
        self.text = text
        self.keys = keys

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dialog) and self.text == other.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"Dialog({self.text!r}, {self.keys!r})"


def dialog_of(raw: list[str]) -> Dialog | None:
    """The dialog a screen shows, or None when `screen.classify` sees no dialog there."""
    if screen.classify(raw).state != screen.DIALOG:
        return None
    lines = [printable_line(screen.parse_line(line).text).rstrip() for line in raw]
    tail = tuple(line for line in lines if line.strip())[-policy.DIALOG_TEXT_LINES :]
    return Dialog(tail, offered(tail))


def option_digit(line: str) -> str:
    """The digit of a numbered option line (`❯ 1. Yes`), or ""."""
    rest = line.lstrip("".join(_LEADERS))
    if len(rest) >= 3 and rest[0] in "123456789" and rest[1:3] == ". ":
        return rest[0]
    return ""


def offered(text: tuple[str, ...]) -> tuple[str, ...]:
    """The keys a dialog's text offers: each option's digit, Enter, and Esc when it says so."""
    digits = tuple(dict.fromkeys(d for d in map(option_digit, text) if d))
    cancels = any("esc" in line.lower() for line in text)
    return (*digits, ENTER, *((ESCAPE,) if cancels else ()))
