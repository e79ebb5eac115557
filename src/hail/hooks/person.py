"""Whether a prompt came from a person or is an envelope hail typed, from the hook's payload
[docs/conversations.md "Person prompts"].

The UserPromptSubmit payload of both harnesses carries the submitted text as `prompt`. An envelope
hail typed starts `[hail kind:`; anything else a person typed (or pasted). Only the start of the
string is looked at, in the raw bytes: no `json` import on the hook path, and the text is never
read from the pane.
"""

from __future__ import annotations

_KEY = b'"prompt"'
_ENVELOPE = b"[hail kind:"
_BLANK = b" \t\r\n"


def person_prompted(payload: bytes) -> bool | None:
    """True for a person's prompt, False for a typed envelope, None when the payload has none."""
    at = payload.find(_KEY)
    while at >= 0:
        if payload[at - 1 : at] != b"\\":  # not the escaped text of another string
            rest = payload[at + len(_KEY) :].lstrip(_BLANK)
            if rest[:1] == b":":
                value = rest[1:].lstrip(_BLANK)
                if value[:1] == b'"':
                    text = value[1:].lstrip(b" ")
                    return bool(text) and not text.startswith(_ENVELOPE) and text[:1] != b'"'
        at = payload.find(_KEY, at + 1)
    return None
