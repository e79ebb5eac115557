"""The reference pages in docs/, read the way the drift tests need them: sections, the message
headers, records and the layout of docs/files.md."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def sections(text: str, level: str = "##") -> dict[str, str]:
    """Each `<level> heading` of a page and its text up to the next heading of that level or above."""
    out: dict[str, str] = {}
    current: str | None = None
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = re.match(r"(#+) (.+?)\s*$", line) if not fenced else None
        if heading and len(heading.group(1)) <= len(level):
            current = heading.group(2) if len(heading.group(1)) == len(level) else None
            if current is not None:
                out[current] = ""
            continue
        if current is not None:
            out[current] += line + "\n"
    return out


def names(text: str, word: str) -> bool:
    """Whether `word` stands in `text` as a word of its own (`--all` is not in `--all-seats`)."""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def files_section(name: str) -> str:
    return sections(page("files.md"))[name]


def documents_header(key: str) -> bool:
    return re.search(rf"^{re.escape(key)}: ", files_section("Message file"), re.M) is not None


def layout_patterns() -> list[re.Pattern[str]]:
    """Every path of docs/files.md "Layout", and each directory above it, as a pattern."""
    out = []
    for row in files_section("Layout").splitlines():
        if not row.startswith("| `"):
            continue
        cell = row.split(" | ")[0].split("→")[0]
        for path in re.findall(r"`([^`]+)`", cell):
            parts = [_part_pattern(p) for p in path.split("/")]
            out += [re.compile("/".join(parts[: k + 1])) for k in range(len(parts))]
    return out


def _part_pattern(part: str) -> str:
    """`<id>.md` → `[^/]+\\.md`, `{new,cur}` → `(?:new|cur)`, `…` → `.+`."""
    pieces = re.split(r"(<[^>]*>|\{[^}]*\}|…)", part)
    out = ""
    for piece in pieces:
        if piece.startswith("<"):
            out += "[^/]+"
        elif piece.startswith("{"):
            out += "(?:" + "|".join(map(re.escape, piece[1:-1].split(","))) + ")"
        elif piece == "…":
            out += ".+"
        else:
            out += re.escape(piece)
    return out


def documented(path: str) -> bool:
    return any(p.fullmatch(path) for p in layout_patterns())
