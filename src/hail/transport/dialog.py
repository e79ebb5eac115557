"""What a captured agent screen shows: a permission dialog, a queued message, a busy or ready composer.

Pure: screen lines in, a verdict out. The literals are the real TUIs' texts [docs/real-clients.md
"Screen literals"] (captures in tests/data/screens), used as docs/transport.md "Dialog guard" says;
they live in these tables only, because the next release of either TUI may change them. Only the
last few non-blank lines count: a dialog replaces the composer at the bottom, while history above
may quote anything.
"""

from __future__ import annotations

from hail import policy

#: Text typed into these is discarded and the Enter after it approves (Claude Code), or a typed `y`
#: approves at once (Codex) [docs/transport.md "Dialog guard"]. Never a bare word such as `Approve`:
#: Codex prints `Approved` in its history.
DIALOG_LITERALS: tuple[str, ...] = (
    # Claude Code 2.x
    "Do you want to proceed",
    "Yes, and don't ask again",
    "Esc to cancel",
    "No, and tell Claude what to do",
    # Codex, seen on 0.171
    "Press enter to confirm or esc to cancel",
    # Codex
    "Would you like to run the following command?",
    "Would you like to make the following edits?",
    "Would you like to grant these permissions?",
    "Would you like to proceed",
    "Yes, proceed",
    "Yes, just this once",
    "No, and tell Codex what to do",
    # any
    "(y/n)",
    "Allow once",
)

#: A Codex composer busy in a tool call queues typed text and shows this above its input
#: [docs/transport.md "Verification and submit"]; the text is submitted later in the same turn.
#: (While Codex waits on the model instead, Enter submits at once and cuts the reply in progress
#: short: seen on Codex 0.171.)
QUEUE_HINTS: tuple[str, ...] = ("Messages to be submitted after next tool call",)

#: A busy Claude Code shows a submitted line as queued. Claude Code 2.1.332 runs UserPromptSubmit
#: at once and hands the line to the running turn beside its next tool result; 2.1.197 submitted it
#: after the turn. Either way the send is complete (exit 0).
CLAUDE_QUEUED = ("Press up to edit queued messages",)

#: A turn in progress (footer or status line of either TUI).
BUSY_LITERALS = ("esc to interrupt", "Reconnecting... waiting for network")

#: The input line: Claude Code draws `❯` + NBSP (history uses a plain space); Codex draws `› `.
CLAUDE_COMPOSER = "❯\u00a0"
CODEX_COMPOSER = "› "


def screen_tail(screen: list[str], n: int = policy.SCREEN_TAIL_LINES) -> list[str]:
    """The last `n` non-blank lines: the composer area, or the dialog that replaced it."""
    return [line for line in screen if line.strip()][-n:]


def _first_literal(lines: list[str], literals: tuple[str, ...]) -> str | None:
    for line in lines:
        for literal in literals:
            if literal in line:
                return literal
    return None


def find_dialog(screen: list[str]) -> str | None:
    """The dialog literal shown in the last 8 non-blank lines, or None [docs/transport.md
    "Dialog guard"]."""
    return _first_literal(screen_tail(screen), DIALOG_LITERALS)


def _squeeze(text: str) -> str:
    return "".join(text.split())


def codex_holding(screen: list[str], id_token: str) -> bool:
    """A busy Codex kept the envelope in its composer: its id is still at the bottom of the screen
    and the queue hint shows [docs/transport.md "Verification and submit"]."""
    tail = _squeeze("".join(screen_tail(screen)))
    if _squeeze(id_token) not in tail:
        return False
    return _first_literal(screen, QUEUE_HINTS) is not None


def _composer_shown(lines: list[str]) -> bool:
    return any(
        line.startswith(CLAUDE_COMPOSER) or line.rstrip() == "❯" or line.startswith(CODEX_COMPOSER)
        for line in lines
    )


def classify(screen: list[str]) -> str:
    """`dialog`, `queued` (a message waits for the running turn), `busy`, `ready` or `unknown`."""
    tail = screen_tail(screen)
    if _first_literal(tail, DIALOG_LITERALS) is not None:
        return "dialog"
    if _first_literal(tail, QUEUE_HINTS + CLAUDE_QUEUED) is not None:
        return "queued"
    if _first_literal(tail, BUSY_LITERALS) is not None:
        return "busy"
    if _composer_shown(tail):
        return "ready"
    return "unknown"


def probe_of(text: str) -> str:
    """What proves the text reached the screen [docs/transport.md "Verification and submit"]: the
    `id:<id>` token of an envelope (an older envelope from the same seat shares its opening
    characters), else its first 40 non-blank chars."""
    if text.startswith("[hail "):
        for word in text.split():
            if word.startswith("id:") and len(word) > 3:
                return word.rstrip("]")
    return _squeeze(text)[: policy.TYPE_PROBE_CHARS]
