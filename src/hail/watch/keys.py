"""`hail watch`'s keys, written once as Textual bindings: the view binds them, and its status line
(`KEYS`) and help page (`HELP`) are made from them [docs/watch.md "Keys"].
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import DataTable

#: The view's own keys. `description` is the status line's word, `tooltip` the help page's line.
BINDINGS = (
    Binding("tab", "focus_next", "seats/messages", tooltip="switch between Seats and Messages"),
    Binding(
        "enter",
        "select",
        "jump/open",
        tooltip="on a seat: bring its agent's pane up in tmux; on a message: open it in full",
    ),
    Binding("o", "open", "open", tooltip="open the highlighted message in full"),
    Binding(
        "f",
        "only",
        "only this seat",
        tooltip="show only the highlighted seat (its mail, waits, holds and trouble)",
    ),
    Binding("a,escape", "all", "all", tooltip="show every seat again"),
    Binding(
        "w",
        "write",
        "write",
        tooltip="write as the person to the highlighted seat, a sub-seat or all (asks first for"
        " all and for a hold)",
    ),
    Binding("r", "reply", "reply", tooltip="reply as the person to the highlighted message (--re)"),
    Binding("h", "holds", "holds", tooltip="the holds in effect: x releases one (asks first)"),
    Binding("n", "nudge", "nudge", tooltip="wake the highlighted seat again for its unread mail"),
    Binding("i", "inbox", "inbox", tooltip="the person's inbox (claims what it shows as read)"),
    Binding(
        "d",
        "dialogs",
        "dialogs",
        tooltip="the agents waiting on a permission dialog: answer one with a key it offers"
        " (asks first)",
    ),
    Binding("question_mark", "help", "help", tooltip="this help"),
    Binding("q", "quit", "quit", tooltip="quit"),
)
#: A page over the view (help, a message) closes on any of these.
PAGE_BINDINGS = (Binding("escape,q,question_mark", "dismiss", "close"),)
#: A question before an action: only y acts.
CONFIRM_BINDINGS = (
    Binding("y", "yes", "yes", tooltip="yes: do it"),
    Binding("n,escape", "no", "no", tooltip="no: do nothing"),
)
#: The message form: Tab moves between its fields, Enter in a field does nothing.
FORM_BINDINGS = (
    Binding("ctrl+s", "send", "send", tooltip="send the message"),
    Binding("escape", "drop", "drop", tooltip="drop it: nothing is sent"),
)
#: The holds list (↑ ↓ move).
HOLDS_BINDINGS = (
    Binding("x", "release", "release", tooltip="release the highlighted hold"),
    Binding("escape", "close", "close", tooltip="close the list"),
)
#: The dialogs list (↑ ↓ move): a key the highlighted dialog offers answers it.
DIALOG_BINDINGS = (
    *(Binding(d, f"answer('{d}')", d, tooltip=f"pick option {d}") for d in "123456789"),
    Binding("s", "answer('Enter')", "Enter", tooltip="send Enter: the highlighted option"),
    Binding("x", "answer('Escape')", "Esc", tooltip="send Esc: cancel the dialog"),
    Binding("escape", "close", "close", tooltip="close the list: nothing is sent"),
)
#: Every list of keys the help page names, with its heading.
SCREENS = (
    ("the message form (w, r)", FORM_BINDINGS),
    ("the holds list (h)", HOLDS_BINDINGS),
    ("the dialogs list (d)", DIALOG_BINDINGS),
    ("a question before an action", CONFIRM_BINDINGS),
)
#: The tables' own moves (Textual's DataTable), named on the status line and the help page.
MOVES = ("cursor_up", "cursor_down", "page_up", "page_down")

_NAMES = {
    "tab": "Tab",
    "enter": "Enter",
    "escape": "Esc",
    "question_mark": "?",
    "ctrl+s": "Ctrl+S",
    "up": "↑",
    "down": "↓",
    "pageup": "PgUp",
    "pagedown": "PgDn",
}


def _keys(binding: Binding) -> list[str]:
    return [_NAMES.get(k.strip(), k.strip()) for k in binding.key.split(",")]


def _move_keys() -> list[str]:
    table: list[Binding] = [b for b in DataTable.BINDINGS if isinstance(b, Binding)]
    return [key for m in MOVES for b in table if b.action == m for key in _keys(b)]


def _status_line() -> str:
    moves = "".join(k for k in _move_keys() if len(k) == 1)  # the arrows: the rest is implied
    words = [f"{moves} move"] + [f"{_keys(b)[0]} {b.description}" for b in BINDINGS]
    return "  ".join(words)


def _rows(bindings: tuple[Binding, ...]) -> list[tuple[str, str]]:
    digits = [b for b in bindings if b.key.isdigit()]
    rows = [(f"{digits[0].key}…{digits[-1].key}", "pick that option")] if digits else []
    return rows + [("  ".join(_keys(b)), b.tooltip) for b in bindings if not b.key.isdigit()]


def _help_page() -> str:
    rows = [(" ".join(_move_keys()), "move in the focused table")]
    rows += _rows(BINDINGS)
    width = max(len(keys) for keys, _ in rows) + 3
    closes = [k for b in PAGE_BINDINGS for k in _keys(b)]
    others = [
        line
        for heading, bindings in SCREENS
        for line in ("", f"In {heading}:", *(f"  {k:<{width}}{w}" for k, w in _rows(bindings)))
    ]
    return "\n".join(
        [
            "hail watch — every seat and message at a glance; it acts only on a key of its own,"
            " as the person (hail --as person), and asks first where it matters",
            "",
            *(f"  {keys:<{width}}{what}" for keys, what in rows),
            *others,
            "",
            "ROUTE: how a send reaches the seat (typed: hail types the envelope; - no pane to"
            " type into).",
            'STATE: what its agent\'s screen shows, as a send judges it; "no hooks" when no hook'
            " ran for 7 days.",
            "CONTEXT: each agent's context now, its share of the window as a bar; yellow near its"
            " client's compaction point, red when it is about to compact; - unknown.",
            "ON: what each agent is on: the first line of the prompt that started its turn, or the"
            " headline of the message that woke it.",
            "RECEIPT: delivered (unread), or injected / read / inline and the seconds it took.",
            "hail watch --once prints one frame as text, hail watch --json the same state as JSON.",
            "",
            f"{', '.join(closes[:-1])} or {closes[-1]} closes this page.",
            "",
        ]
    )


#: The status line's key list, and the help page.
KEYS = _status_line()
HELP = _help_page()
