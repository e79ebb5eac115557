"""One safe line of text: what every header value, record value and typed envelope passes through.

Pure, and on the hook path: `unicodedata` is loaded only when a value holds something unprintable.
"""

from __future__ import annotations

#: Unicode categories that never reach a pane, a frame or a brief: controls (C0, C1), format
#: characters (bidi embeddings, overrides and isolates, zero-width characters, BOM, soft hyphen),
#: line and paragraph separators, and lone surrogates.
DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
#: Line-like characters become a space, so words on either side stay apart.
_AS_SPACE = frozenset("\t\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")


def one_line(text: str) -> str:
    """`text` as one line: breaks and tabs become spaces, every other Cc/Cf/Zl/Zp/Cs is dropped."""
    if text.isprintable():  # no such character at all: the common case, at C speed
        return text.strip()
    import unicodedata

    out = []
    for ch in text:
        if ch in _AS_SPACE:
            out.append(" ")
        elif unicodedata.category(ch) not in DROPPED_CATEGORIES:
            out.append(ch)
    return "".join(out).strip()


#: The controls a terminal acts on: every C0 control but tab and newline (ESC, BEL, CR, backspace
#: …), DEL, and the C1 controls U+0080-U+009F.
_SHOWN_ESCAPED = (*range(0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))
_visible_table: dict[int, str] = {}


def visible(text: str) -> str:
    """Peer text as hail prints it [docs/envelope-and-frames.md "Frames"]: each control character
    but newline and tab written out as a Python string literal writes it (`\x1b`, `\r`), as hail's
    own output escapes them; the stored text keeps its bytes. So a peer cannot colour, move or
    hide what a person's terminal or an agent's screen shows. One C-speed pass; the table is made
    on the first call, so a hook with no mail never pays for it."""
    if not _visible_table:
        _visible_table.update((c, chr(c).encode("unicode_escape").decode()) for c in _SHOWN_ESCAPED)
    return text.translate(_visible_table)


def clip_value(text: str, limit: int) -> str:
    """At most `limit` characters, the last one `…` when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def printable_line(text: str) -> str:
    """A header, record or log value as one printable line: peer text never drives a screen."""
    line = one_line(text)
    return line if line.isprintable() else "".join(c for c in line if c.isprintable())
