"""stdout and stderr [docs/commands.md "Output conventions"]: results on stdout, `hail: ` notices on
stderr, aligned tables. A closed pipe is handled once, by the entry point."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    #: A `hail doctor` line's status: fine, to fix (exit 1), or worth knowing.
    Check = Literal["ok", "FIX", "note"]
    #: A `hail doctor` line: its status and its text.
    CheckLine = tuple[Check, str]


def shown(text: str) -> str:
    """`text` as it can be printed to a terminal: bytes of a path that are not UTF-8 become U+FFFD,
    and the characters that could drive or deceive a terminal (controls, bidi and other format
    characters, line and paragraph separators, lone surrogates: `text.DROPPED_CATEGORIES`) are
    escaped (`\\x1b`, `\\u202e`), line breaks excepted. A value the caller typed (an id, a path)
    cannot drive their terminal when hail echoes it, and a screen shows as a person sees it: a
    no-break space, a private-use glyph or a character newer than this Python stays as it is."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:  # noqa: SIM105 (the fast verbs print through here: contextlib costs an import)
            text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        except UnicodeEncodeError:  # a lone surrogate that stands for no byte: escaped below
            pass
    if text.replace("\n", "").isprintable():  # the common case, at C speed
        return text
    import unicodedata

    from hail.text import DROPPED_CATEGORIES

    return "".join(
        ch.encode("unicode_escape").decode("ascii")
        if ch != "\n" and unicodedata.category(ch) in DROPPED_CATEGORIES
        else ch
        for ch in text
    )


def emit(text: str = "") -> None:
    """One result line on stdout (nothing when fd 1 was closed at startup).

    A closed pipe ends output quietly and the verb goes on to its own exit status [docs/commands.md
    "Output conventions"]; code that must know whether its text arrived (inbox claims) writes to
    stdout itself.
    """
    if sys.stdout is None:
        return
    try:
        sys.stdout.write(shown(text) + "\n")
    except BrokenPipeError:
        silence()


def flush() -> None:
    """Flush stdout now; a closed pipe is silenced like in `emit`."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence()


def silence() -> None:
    """Send later writes (and the flush at exit) to /dev/null: the reader is gone."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):
        pass


def note(text: str) -> None:
    """One `hail: …` notice line on stderr."""
    sys.stderr.write(f"hail: {shown(text)}\n")


def warn(text: str) -> None:
    note(f"warning: {text}")


def table(rows: list[list[str]]) -> list[str]:
    """Columns padded to the widest cell plus two spaces; the last column is not padded."""
    if not rows:
        return []
    widths = [0] * max(len(r) for r in rows)
    for row in rows:
        for i, cell in enumerate(row[:-1]):
            widths[i] = max(widths[i], len(cell))
    lines = []
    for row in rows:
        cells = [c.ljust(widths[i] + 2) for i, c in enumerate(row[:-1])] + row[-1:]
        lines.append("".join(cells).rstrip())
    return lines


def age(seconds: float) -> str:
    """A span as hail writes it everywhere: `<s>s` under a minute, `<m>m` under an hour,
    `<h>h<mm>m` under a day, else `<d>d`; a negative span is `0s`."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d"


def tokens(n: float) -> str:
    """A count of tokens as hail writes it: `812`, `46k`, `1.2M`."""
    if n < 1000:
        return str(int(n))
    if n < 999_500:
        return f"{round(n / 1000)}k"
    return f"{n / 1e6:.1f}M"
