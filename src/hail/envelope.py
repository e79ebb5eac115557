"""The one line typed into a pane, and the text rules that keep it one safe line
[docs/envelope-and-frames.md "Envelope"].

Pure: no filesystem, no tmux. Everything typed into a pane passes `sanitize` first.
"""

from __future__ import annotations

from hail import policy
from hail.text import one_line

FETCH_HINT = " — hail inbox"
ELLIPSIS = " …"
_FOLD_SEPARATORS = (". ", "; ", ", ", " ")


def sanitize(text: str) -> str:
    """One line, no control or format character (see `text.one_line`)."""
    return one_line(text)


def fold(headline: str, cap: int) -> str:
    """A prefix of `headline` cut at a separator, plus ` …`, never longer than `cap`
    [docs/envelope-and-frames.md "Cap and folding"]."""
    if len(headline) <= cap:
        return headline
    limit = cap - 2
    head = headline[:limit]
    cut = head
    for sep in _FOLD_SEPARATORS:
        at = head.rfind(sep)
        if at > limit // 2:
            cut = head[:at]
            break
    return cut.rstrip() + ELLIPSIS


class Head:
    """The fields an envelope or frame start line shows, in their fixed order."""

    __slots__ = ("headline", "id", "kind", "re", "reply", "scope", "sender", "until")

    def __init__(
        self,
        *,
        kind: str,
        sender: str,
        reply: str,
        id: str,
        headline: str,
        re: str = "",
        scope: str = "",
        until: str = "",
    ) -> None:
        self.kind = kind
        self.sender = sender
        self.reply = reply
        self.id = id
        self.headline = headline
        self.re = re
        self.scope = scope
        self.until = until


def reply_is_derivable(sender: str, reply: str) -> bool:
    """Whether `reply:` says nothing `from:` does not: the sender's mailbox or its seat.

    `from:boss/%0` with `reply:boss`, or `from:shared@%5` with `reply:shared@%5`: a reader replies
    to the seat (or sub-seat) it sees, so the field is left out of envelopes and frames.
    """
    return reply in ("", sender, sender.split("/", 1)[0])


def fields(head: Head) -> str:
    """`kind:… from:…[ reply:…] id:…[ re:…][ scope:…][ until:…]`; empty values omitted, and
    `reply:` when `from:` already names it."""
    reply = "" if reply_is_derivable(head.sender, head.reply) else head.reply
    pairs = [
        ("kind", head.kind),
        ("from", head.sender),
        ("reply", reply),
        ("id", head.id),
        ("re", head.re),
        ("scope", head.scope),
        ("until", head.until),
    ]
    return " ".join(f"{k}:{v}" for k, v in pairs if v)


def render(head: Head, *, has_body: bool) -> str:
    """The envelope line [docs/envelope-and-frames.md "Envelope"]; the fetch hint only for a
    non-control message with a body."""
    hint = FETCH_HINT if has_body and head.kind not in policy.CONTROL_KINDS else ""
    return f"[hail {fields(head)}] {head.headline}{hint}"
