"""The message file: `key: value` headers, one blank line, the body, one final newline
[docs/files.md "Message file"].

Pure. Parsing is lenient so files of older versions read too.
"""

from __future__ import annotations

from hail.text import one_line

HEADER_ORDER = ("from", "reply", "kind", "id", "time", "re", "scope", "until", "ask")


class Message:
    """A parsed message. `headline` is the `ask:` header; a headline-only message stores it as body."""

    __slots__ = ("body", "headers")

    def __init__(self, headers: dict[str, str] | None = None, body: str = "") -> None:
        self.headers = headers if headers is not None else {}
        self.body = body

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and (self.headers, self.body) == (
            other.headers,
            other.body,
        )

    def __hash__(self) -> int:
        return hash((tuple(self.headers.items()), self.body))

    def __repr__(self) -> str:
        return f"Message({self.headers!r}, {self.body!r})"

    def get(self, key: str) -> str:
        return self.headers.get(key, "")

    @property
    def kind(self) -> str:
        return self.get("kind")

    @property
    def id(self) -> str:
        return self.get("id")

    @property
    def sender(self) -> str:
        return self.get("from")

    @property
    def headline(self) -> str:
        return self.get("ask")

    @property
    def has_body(self) -> bool:
        """False for a headline-only message, whose body is its headline."""
        return self.body != self.headline


def render(headers: dict[str, str], body: str) -> str:
    """Headers in the send order (unknown ones after), a blank line, the body, a newline.

    Every value is made one clean line here, whoever built it: a value can never add a header,
    end the headers early or carry a control character into a frame or a brief.
    """
    values = {k: one_line(v) for k, v in headers.items()}
    keys = [k for k in HEADER_ORDER if values.get(k)]
    keys += [k for k in values if k not in HEADER_ORDER and values[k]]
    head = "".join(f"{k}: {values[k]}\n" for k in keys)
    return f"{head}\n{body}\n"


def parse(text: str) -> Message:
    """Headers until the first empty or non-header line; the body is the rest minus one newline."""
    headers: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line == "":
            i += 1
            break
        key, sep, value = line.partition(": ")
        if not sep or " " in key or not key:
            break
        headers.setdefault(key, value)
        i += 1
    body = "\n".join(lines[i:])
    if body.endswith("\n"):
        body = body[:-1]
    return Message(headers, body)
