"""What an agent is on, in one line: the task line `hail seats` and `hail watch` show per agent,
made from the prompt that started its turn [docs/gauge.md "Task line"].

A person's prompt gives its first line that says something. A prompt hail typed (an envelope,
`[hail kind:… id:…] <headline> — hail inbox`) gives its headline, and so does hail's delivered text
when a client takes it as a prompt (opencode's plugin wakes its session with the frames; Gemini CLI
runs its prompt hook again for them): the first frame's headline. A turn the client started on its
own (Claude Code's `<task-notification>`) says nothing of the task: "".

The line is one safe line: terminal escapes (`ESC [ … m`, OSC titles) are dropped with their
parameters, then every control and format character (bidi overrides, zero-width characters) as
`text.one_line` drops them, and it is clipped to `policy.TASK_LINE_MAX` characters.

The same reading tells a person's prompt from hail's own (`is_persons`, docs/conversations.md
"Person prompts"), which the prompt hook asks first: one module of the hook path reads prompts.
Pure, and cheap enough for the hook path: no re, json or dataclasses.
"""

from __future__ import annotations

from hail import policy

_ENVELOPE = "[hail kind:"
_DELIVERY = "hail: "
_FRAMED = " framed by token "
_NOTIFICATION = "<task-notification>"
_ESC = "\x1b"
_CSI = "\x9b"
_OSC = "\x9d"
_ST = "\x9c"
_BEL = "\x07"


def is_persons(prompt: str) -> bool:
    """Whether a person typed `prompt`: not an envelope hail typed, not hail's delivered text taken
    as a prompt (Gemini CLI runs BeforeAgent again for an AfterAgent block's text; opencode's
    plugin wakes a session with it), not a turn the client started itself (Claude Code's
    `<task-notification>`, which hail's waiter's wake starts too), and not empty. Only its start
    matters; the text is never read from the pane."""
    text = prompt.lstrip(" ")
    if not text or text.startswith((_ENVELOPE, _NOTIFICATION)):
        return False
    return not (text.startswith(_DELIVERY) and _FRAMED in text.split("\n", 1)[0])


def task_line(prompt: str, limit: int = policy.TASK_LINE_MAX) -> str:
    """The task line of a turn started by `prompt`: one safe line of at most `limit` characters,
    "" when the prompt says nothing of a task."""
    text = without_escapes(prompt).lstrip()
    if text.startswith(_NOTIFICATION):
        return ""
    head = text.split("\n", 1)[0]
    if text.startswith(_ENVELOPE):
        line = envelope_headline(text)
    elif text.startswith(_DELIVERY) and _FRAMED in head:
        line = delivered_headline(text)
    elif head.isprintable() and head.strip():
        # A person's first line as they typed it, the common case: already one safe line, so the
        # prompt hook loads no more to clip it.
        return _clip(head.strip(), limit)
    else:
        line = first_line(text)
    return safe_line(line, limit)


def safe_line(line: str, limit: int) -> str:
    """`line` as one printable line (`text.printable_line`), clipped to `limit` characters."""
    from hail.text import printable_line

    return _clip(printable_line(line), limit)


def _clip(line: str, limit: int) -> str:
    """At most `limit` characters, the last one `…` when cut (as `text.clip_value` cuts)."""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def from_headline(headline: str, limit: int = policy.TASK_LINE_MAX) -> str:
    """The task line of a turn that a delivered message started (Claude Code's waiter wakes its
    session with a `<task-notification>`, opencode's plugin with no text): its headline, as one
    safe line of at most `limit` characters."""
    return safe_line(without_escapes(headline), limit)


def first_line(text: str) -> str:
    """The first line that holds more than blanks and controls."""
    from hail.text import printable_line

    for line in text.splitlines():
        if printable_line(line):
            return line
    return ""


def envelope_headline(text: str) -> str:
    """`[hail kind:… id:…] <headline>[ — hail inbox]` → the headline."""
    line = text.split("\n", 1)[0]
    _, sep, headline = line.partition("] ")
    if not sep:
        return ""
    from hail.envelope import FETCH_HINT  # only for an envelope: the hook path's prompts skip it

    return headline.removesuffix(FETCH_HINT)


def delivered_headline(text: str) -> str:
    """The first frame's headline in hail's delivered text: the start line is
    `[hail:<token> <kind> from:… id:…] <headline>`. A frame without one (its envelope was the
    prompt) gives way to the next."""
    token = text.split(_FRAMED, 1)[1].split(":", 1)[0].split()[0] if _FRAMED in text else ""
    start = f"[hail:{token} " if token else "[hail:"
    for line in text.splitlines()[1:]:
        if line.startswith(start):
            headline = line.partition("] ")[2]
            if headline.strip():
                return headline
    return ""


def without_escapes(text: str) -> str:
    """`text` without terminal escape sequences, their parameters included: CSI (`ESC [ … final`,
    or C1 CSI), OSC up to BEL or ST, and any other `ESC x` pair. The common case, no escape at all,
    costs one scan at C speed."""
    if _ESC not in text and _CSI not in text and _OSC not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if (ch == _ESC and text[i + 1 : i + 2] == "[") or ch == _CSI:
            i = _after_csi(text, i + (2 if ch == _ESC else 1))
        elif (ch == _ESC and text[i + 1 : i + 2] == "]") or ch == _OSC:
            i = _after_osc(text, i + (2 if ch == _ESC else 1))
        elif ch == _ESC:
            i += 2  # a two-character escape (`ESC c`, `ESC 7`): both go
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _after_csi(text: str, i: int) -> int:
    """Past a CSI's parameter and intermediate bytes and its final byte (`@` to `~`)."""
    while i < len(text) and not "@" <= text[i] <= "~":
        if text[i] in "\n\r":  # a broken sequence: the line goes on
            return i
        i += 1
    return i + 1


def _after_osc(text: str, i: int) -> int:
    """Past an OSC's text and its terminator (BEL, ST or `ESC \\`); a broken one at the line's end."""
    while i < len(text):
        ch = text[i]
        if ch in (_BEL, _ST):
            return i + 1
        if ch == _ESC:
            return i + 2 if text[i + 1 : i + 2] == "\\" else i
        if ch in "\n\r":
            return i
        i += 1
    return i
