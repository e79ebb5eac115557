"""A hook's payload read without json: the fields hail needs, found as bytes in the harness's raw
JSON text [docs/hooks.md "What deliver reads"]. Pure; the hook path loads it (no json, no re).
"""

from __future__ import annotations


def session_of(payload: bytes, key: str = "session_id") -> str:
    """The payload's session (`session_id`, or the harness's own `key`), or "" (no payload came in
    time, or it names none)."""
    value = value_of(payload, b'"' + key.encode() + b'"')
    if value[:1] != b'"':
        return ""
    end = value.find(b'"', 1)
    # A session id is a UUID: anything else is not used as a key (nor as a file name).
    text = value[1:end].decode("ascii", errors="replace") if end > 0 else ""
    return text if text and len(text) <= 64 and text.replace("-", "").isalnum() else ""


def turn_began(payload: bytes) -> bool:
    """Whether the payload says this is the first Stop of a turn (`"stop_hook_active": false`)."""
    return value_of(payload, b'"stop_hook_active"')[:5] == b"false"


def value_of(payload: bytes, key: bytes) -> bytes:
    """What follows `key:` in raw JSON text (b"" when the key is not there)."""
    at = payload.find(key)
    if at < 0:
        return b""
    rest = payload[at + len(key) :].lstrip(b" \t\r\n")
    return rest[1:].lstrip(b" \t\r\n") if rest[:1] == b":" else b""


def text_of(payload: bytes, key: bytes) -> str:
    """A string field's value, or "" when it is missing, not a string, or holds an escape other
    than `\\"`, `\\\\` and `\\/` (a path or a name never needs one)."""
    value = value_of(payload, key)
    if value[:1] != b'"':
        return ""
    out = bytearray()
    i = 1
    while i < len(value):
        c = value[i]
        if c == 0x22:  # the closing quote
            return out.decode("utf-8", errors="replace")
        if c == 0x5C:  # a backslash: only the escapes a path may need
            nxt = value[i + 1 : i + 2]
            if nxt not in (b'"', b"\\", b"/"):
                return ""
            out += nxt
            i += 2
            continue
        out.append(c)
        i += 1
    return ""  # no closing quote: the payload was cut


def transcript_size(payload: bytes, key: str = "transcript_path") -> int | None:
    """The size of the session's transcript the payload names (`transcript_path`, or the harness's
    own `key`), or None."""
    import os

    path = text_of(payload, b'"' + key.encode() + b'"')
    if not path.startswith("/"):
        return None
    try:
        return os.stat(path).st_size
    except OSError:
        return None
