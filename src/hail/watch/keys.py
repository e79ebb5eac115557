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
    Binding("question_mark", "help", "help", tooltip="this help"),
    Binding("q", "quit", "quit", tooltip="quit"),
)
#: A page over the view (help, a message) closes on any of these.
PAGE_BINDINGS = (Binding("escape,q,question_mark", "dismiss", "close"),)
#: The tables' own moves (Textual's DataTable), named on the status line and the help page.
MOVES = ("cursor_up", "cursor_down", "page_up", "page_down")

_NAMES = {
    "tab": "Tab",
    "enter": "Enter",
    "escape": "Esc",
    "question_mark": "?",
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


def _help_page() -> str:
    rows = [(" ".join(_move_keys()), "move in the focused table")]
    rows += [("  ".join(_keys(b)), b.tooltip) for b in BINDINGS]
    width = max(len(keys) for keys, _ in rows) + 3
    closes = [k for b in PAGE_BINDINGS for k in _keys(b)]
    return "\n".join(
        [
            "hail watch — every seat and message at a glance; it reads, and never claims, types"
            " or edits",
            "",
            *(f"  {keys:<{width}}{what}" for keys, what in rows),
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
