"""stdout and stderr as the SPEC wants them [§0.3]: results on stdout, `hail: ` notices on stderr,
aligned tables. A closed pipe is handled once, by the entry point."""

from __future__ import annotations

import sys


def emit(text: str = "") -> None:
    """One result line on stdout (nothing when fd 1 was closed at startup)."""
    if sys.stdout is not None:
        sys.stdout.write(text + "\n")


def note(text: str) -> None:
    """One `hail: …` notice line on stderr."""
    sys.stderr.write(f"hail: {text}\n")


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
