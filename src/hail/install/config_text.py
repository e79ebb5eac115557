"""Reading and writing a person's config text without changing what hail does not edit.

Pure. JSON numbers keep their source text (`1e400` stays `1e400`, never `Infinity`; long integers
and decimals keep every digit), lone surrogates are written back as the `\\uXXXX` escapes they came
from, and TOML comments are counted so that a merge which would drop one is refused instead.
"""

from __future__ import annotations

import json
import os
import re

#: The refusal for a text nested too deeply to parse or write without exhausting the stack.
TOO_DEEP = "it is nested deeper than hail can edit safely"
#: The way out when hail refuses a text it cannot edit safely.
BY_HAND_FIX = "add hail's hooks by hand (hail setup lists them at the end of its output)"

_SURROGATE = re.compile("[\ud800-\udfff]")


class ExactJson:
    """One JSON text loaded with its numbers as placeholders that `dumps` turns back into source."""

    def __init__(self, text: str) -> None:
        token = os.urandom(8).hex()
        while token in text:
            token = os.urandom(8).hex()
        self._token = token
        self._numbers: list[str] = []
        self.value: object = json.loads(
            text, parse_float=self._keep, parse_int=self._keep, parse_constant=self._keep
        )

    def _keep(self, source: str) -> str:
        self._numbers.append(source)
        return f"\ue000{self._token}:{len(self._numbers) - 1}\ue000"

    def is_number(self, value: object) -> bool:
        return isinstance(value, str) and value.startswith(f"\ue000{self._token}:")

    def number_text(self, value: object) -> str | None:
        """The source text of a number loaded as a placeholder, None for any other value."""
        if not self.is_number(value):
            return None
        assert isinstance(value, str)
        return self._numbers[int(value[len(self._token) + 2 : -1])]

    def dumps(self, value: object) -> str:
        """2-space JSON, non-ASCII kept, numbers as written, lone surrogates escaped."""
        out = json.dumps(value, indent=2, ensure_ascii=False)
        out = re.sub(
            f'"\ue000{self._token}:([0-9]+)\ue000"',
            lambda m: self._numbers[int(m.group(1))],
            out,
        )
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)


def toml_comments(text: str) -> list[str]:
    """Every `# …` comment of a TOML text, in order (a `#` inside a string is not one)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(text[i:end].rstrip("\r"))
            i = end
        elif text.startswith('"""', i) or text.startswith("'''", i):
            quote = text[i : i + 3]
            i = _string_end(text, i + 3, quote, escapes=quote == '"""')
        elif c in "\"'":
            i = _string_end(text, i + 1, c, escapes=c == '"')
        else:
            i += 1
    return out


def _string_end(text: str, i: int, quote: str, *, escapes: bool) -> int:
    """The index after the string that ends with `quote` from `i` (the text's end if it never does)."""
    while i < len(text):
        if escapes and text[i] == "\\":
            i += 2
            continue
        if text.startswith(quote, i):
            end = i + len(quote)
            if len(quote) == 3:  # up to two more quotes still belong to the string: `a""""`
                while text[end : end + 1] == quote[0] and end - i < 5:
                    end += 1
            return end
        i += 1
    return len(text)
