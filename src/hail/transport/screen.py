"""What an agent's screen shows: an idle composer, a busy one, a person's draft, a dialog, queued
text, or no composer hail knows.

Pure: screen lines in (as `capture-pane -p -J -e` prints them, attributes and all; plain lines work
too), a verdict out. The literals are the real TUIs' texts (the captures in tests/data/screens;
docs/transport.md "Screen classes"); they live in each harness's module only (`hail/harnesses/`),
because the next release of any TUI may change them. Here are the readers of each composer shape.

How it reads a screen:

- The **composer** is found first: Claude Code's input line starts with `❯` + NBSP between two
  `─` rules (history uses a plain space); Codex's is the last `› ` line at the bottom, followed only
  by its indented draft lines, status line and footer (history `› ` lines are dim, a dialog's chosen
  option is reverse video).
- With a composer on the screen there is **no dialog**: dialogs replace the composer. Without one,
  only the last lines count, and never a line holding hail's own envelope or frame, so a peer's
  headline quoting `(y/n)` is not a dialog.
- A **draft** is text in the composer that a person typed. A placeholder (Codex's `Ask Codex to do
  anything`, Claude Code's `Press up to edit queued messages`) is drawn dim, and the cursor in
  reverse video: neither is text. On a capture without attributes, the known placeholders are
  recognised by their words.
- **Busy** is a turn in progress: Claude Code's footer says `esc to interrupt`; Codex's `Working
  (… esc to interrupt)` line sits just above its composer. **Queued** is busy with a typed message
  waiting for the turn.
"""

from __future__ import annotations

from hail import policy
from hail.harnesses import registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hail.harnesses.base import Harness

IDLE = "idle"
BUSY = "busy"
QUEUED = "queued"
DRAFT = "draft"
DIALOG = "dialog"
NONE = "none"

#: Each harness's screen literals (its module in `hail/harnesses/`), in the registry's order.
HARNESSES = registry.every()
#: The readers of the first two composers hail read (Claude Code's, Codex's) look for each
#: other's busy, queue and placeholder texts too.
_SHARING = ("between_rules", "last_prompt")


def _every(field: str, shapes: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """One literal field of the harnesses' screens (of those `shapes`), in the registry's order."""
    return tuple(
        dict.fromkeys(
            lit
            for h in HARNESSES
            if shapes is None or h.screen.shape in shapes
            for lit in getattr(h.screen, field)
        )
    )


#: Text typed into these is discarded and the Enter after it approves (Claude Code), or a typed `y`
#: approves at once (Codex). Never a bare word such as `Approve`: Codex prints `Approved` in its
#: history. The last two, any harness's.
DIALOG_LITERALS: tuple[str, ...] = (*_every("dialogs"), "(y/n)", "Allow once")
#: A turn in progress: Claude Code's footer, Codex's working line (or its network retry).
BUSY_LITERALS = _every("busy", _SHARING)
#: A message typed during a turn, waiting for it: Codex shows its hint above its composer, Claude
#: Code its own above its composer and as the composer's placeholder.
QUEUE_HINTS = _every("queued", _SHARING)
#: Placeholders: dim text in an empty composer. Only a capture without attributes needs these.
PLACEHOLDERS = _every("placeholders", _SHARING)

RULE = "─"
#: hail's envelope and frame lines open with these: a peer's words, never the client's own.
HAIL_MARKS = ("[hail ", "[hail:")
#: How many non-blank lines may follow Codex's composer: its draft lines, status and footer.
CODEX_BELOW_MAX = 8
#: How many non-blank lines above Codex's composer hold its working line and queue.
CODEX_ABOVE = 6


class Line:
    """One screen line: all its characters (`text`), and only those drawn neither dim nor in
    reverse video (`solid`; others become spaces), which is what a person typed."""

    __slots__ = ("solid", "styled", "text")

    def __init__(self, text: str, solid: str, styled: bool) -> None:
        self.text = text
        self.solid = solid
        self.styled = styled


def parse_line(raw: str) -> Line:
    """Split a `capture-pane -e` line into its characters and their dim/reverse state."""
    if "\x1b" not in raw:
        return Line(raw, raw, False)
    text: list[str] = []
    solid: list[str] = []
    dim = reverse = False
    i, n = 0, len(raw)
    while i < n:
        ch = raw[i]
        if ch == "\x1b" and i + 1 < n and raw[i + 1] == "[":
            end = i + 2
            while end < n and not ("@" <= raw[end] <= "~"):
                end += 1
            if end < n and raw[end] == "m":
                dim, reverse = _sgr(raw[i + 2 : end], dim, reverse)
            i = end + 1
            continue
        if ch == "\x1b" and i + 1 < n and raw[i + 1] == "]":
            # OSC (a hyperlink): up to BEL or ESC backslash; it draws nothing.
            end = i + 2
            while end < n and raw[end] != "\x07" and raw[end] != "\x1b":
                end += 1
            i = end + (2 if end < n and raw[end] == "\x1b" else 1)
            continue
        text.append(ch)
        solid.append(" " if dim or reverse else ch)
        i += 1
    return Line("".join(text), "".join(solid), True)


def _sgr(params: str, dim: bool, reverse: bool) -> tuple[bool, bool]:
    """Apply one SGR sequence's parameters to the dim and reverse flags."""
    codes = params.split(";") if params else ["0"]
    i = 0
    while i < len(codes):
        code = codes[i]
        if code in ("38", "48", "58"):
            # A colour: `5;N` or `2;R;G;B` follow, and are not attributes of their own.
            i += 3 if codes[i + 1 : i + 2] == ["5"] else 5
            continue
        if code in ("", "0"):
            dim = reverse = False
        elif code == "2":
            dim = True
        elif code == "22":
            dim = False
        elif code == "7":
            reverse = True
        elif code == "27":
            reverse = False
        i += 1
    return dim, reverse


class Verdict:
    """A screen's class, the composer's text when there is one, and the dialog literal shown."""

    __slots__ = ("client", "composer", "literal", "state")

    def __init__(self, state: str, client: str = "", composer: str = "", literal: str = "") -> None:
        self.state = state
        self.client = client
        self.composer = composer
        self.literal = literal

    def __repr__(self) -> str:
        return f"Verdict({self.state!r}, {self.client!r}, {self.composer!r}, {self.literal!r})"

    def holds(self, probe: str) -> bool:
        """Whether the composer still shows the probe (whitespace ignored: wrapped lines match)."""
        return squeeze(probe) in squeeze(self.composer)


def squeeze(text: str) -> str:
    return "".join(text.split())


def _first_literal(lines: list[Line], literals: tuple[str, ...]) -> str:
    for line in lines:
        for literal in literals:
            if literal in line.text:
                return literal
    return ""


def _is_hail_line(line: Line) -> bool:
    return any(mark in line.text for mark in HAIL_MARKS)


def _typed(lines: list[Line]) -> str:
    """A person's text in composer lines: solid characters, known placeholders removed when the
    capture carried no attributes."""
    out = []
    for line in lines:
        text = line.solid
        if not line.styled:
            for placeholder in PLACEHOLDERS:
                text = text.replace(placeholder, "")
        out.append(text)
    return "\n".join(out).strip()


def _between_rules(lines: list[Line], h: Harness) -> Verdict | None:
    """Claude Code's and Copilot CLI's composer: the last prompt line, up to the rule below it; the
    footer after. Where the screen names what sits just above its prompt line (`above`: Copilot
    CLI's rule), only such a line counts: its prompt, `❯ `, also opens Claude Code's history lines,
    which sit below no rule."""
    prompt, empty = h.screen.prompt, h.screen.extra["empty"][0]
    ruled = h.screen.extra.get("above", ("",))[0]
    at = next(
        (
            i
            for i in range(len(lines) - 1, -1, -1)
            if (lines[i].text.startswith(prompt) or lines[i].text.rstrip() == empty)
            and (not ruled or (i > 0 and lines[i - 1].text.startswith(ruled)))
        ),
        None,
    )
    if at is None:
        return None
    end = next((j for j in range(at + 1, len(lines)) if lines[j].text.startswith(RULE)), len(lines))
    box = lines[at:end]
    first = box[0]
    cut = len(prompt)
    box_text = [first.text[cut:], *(line.text for line in box[1:])]
    box_typed = [Line(first.text[cut:], first.solid[cut:], first.styled), *box[1:]]
    composer = "\n".join(box_text).strip()
    footer = [line for line in lines[end + 1 :] if line.text.strip()]
    above = [line for line in lines[:at] if line.text.strip()][-CODEX_ABOVE:]
    typed = _typed(box_typed)
    if typed:
        return Verdict(DRAFT, h.name, composer)
    if _first_literal(footer, BUSY_LITERALS):
        queued = _first_literal([*above, *box], QUEUE_HINTS)
        return Verdict(QUEUED if queued else BUSY, h.name, composer)
    return Verdict(IDLE, h.name, composer)


def _is_codex_prompt(line: Line, prompt: str) -> bool:
    if not line.text.startswith(prompt) and line.text.rstrip() != prompt.strip():
        return False
    if line.styled and line.solid[:1] != line.text[:1]:
        return False  # a dim glyph is history; a reverse one is a dialog's chosen option
    rest = line.text[len(prompt) :]
    digits = len(rest) - len(rest.lstrip("0123456789"))
    return not (digits and rest[digits : digits + 2] == ". ")  # `› 1. Yes, proceed (y)`


def _last_prompt(lines: list[Line], h: Harness) -> Verdict | None:
    """Codex's composer: the last `› ` line with only indented lines (its draft, status line and
    footer) below it; its draft ends at the status line."""
    prompt, busy_footer = h.screen.prompt, h.screen.extra["busy_footer"]
    chrome = (*h.screen.extra["status"], *h.screen.extra["footers"], *busy_footer)
    blank_free = [i for i, line in enumerate(lines) if line.text.strip()]
    for pos in range(len(blank_free) - 1, max(-1, len(blank_free) - 2 - CODEX_BELOW_MAX), -1):
        at = blank_free[pos]
        if not _is_codex_prompt(lines[at], prompt):
            continue
        below = [lines[i] for i in blank_free[pos + 1 :]]
        if not all(line.text.startswith("  ") for line in below):
            return None
        if _first_literal(below, DIALOG_LITERALS) and not any(map(_is_hail_line, below)):
            return None
        draft_lines = [lines[at]]
        for line in lines[at + 1 :]:
            if not line.text.strip() or any(m in line.text for m in chrome):
                break
            draft_lines.append(line)
        first = lines[at]
        cut = len(prompt)
        draft_lines[0] = Line(first.text[cut:], first.solid[cut:], first.styled)
        composer = "\n".join(line.text for line in draft_lines).strip()
        above = [lines[i] for i in blank_free[max(0, pos - CODEX_ABOVE) : pos]]
        above = [line for line in above if not _is_hail_line(line)]
        if _typed(draft_lines):
            return Verdict(DRAFT, h.name, composer)
        if _first_literal(above, QUEUE_HINTS):
            return Verdict(QUEUED, h.name, composer)
        if _first_literal(above, BUSY_LITERALS) or _first_literal(below, busy_footer):
            return Verdict(BUSY, h.name, composer)
        return Verdict(IDLE, h.name, composer)
    return None


def _below_rule(lines: list[Line], h: Harness) -> Verdict | None:
    """Gemini CLI's composer: the first ` > ` line below the last `─` rule, up to its footer; its
    working line sits just above the rule."""
    sc = h.screen
    placeholder, footer, spinner = sc.placeholders[0], sc.extra["footer"][0], sc.extra["spinner"]
    rule = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].text.startswith(RULE)), None)
    if rule is None:
        return None
    at = next(
        (
            i
            for i in range(rule + 1, min(len(lines), rule + 4))
            if lines[i].text.startswith(sc.prompt) or lines[i].text.rstrip() == sc.prompt.strip()
        ),
        None,
    )
    if at is None:
        return None
    box: list[Line] = []
    for line in lines[at:]:
        if footer in line.text or (box and not line.text.strip()):
            break
        box.append(line)
    cut = len(sc.prompt)
    box[0] = Line(box[0].text[cut:], box[0].solid[cut:], box[0].styled)
    composer = "\n".join(line.text for line in box).replace(placeholder, "").strip()
    typed = "\n".join(line.solid for line in box).replace(placeholder, "").strip()
    above = [line for line in lines[:rule] if line.text.strip()][-CODEX_ABOVE:]
    above = [line for line in above if not _is_hail_line(line)]
    if typed:
        return Verdict(DRAFT, h.name, composer)
    if _first_literal(above, sc.queued):
        return Verdict(QUEUED, h.name, composer)
    spinning = any(spinner[0] <= line.text.lstrip()[:1] <= spinner[1] for line in above[-3:])
    if spinning or _first_literal(above[-3:], sc.busy):
        return Verdict(BUSY, h.name, composer)
    return Verdict(IDLE, h.name, composer)


def _bar_box(lines: list[Line], h: Harness) -> Verdict | None:
    """opencode's composer: the `┃` box above the last `╹▀` line, less its agent line."""
    bar, closing, placeholder = h.screen.prompt, h.screen.extra["end"][0], h.screen.placeholders[0]
    end = next(
        (i for i in range(len(lines) - 1, -1, -1) if lines[i].text.lstrip().startswith(closing)),
        None,
    )
    if end is None:
        return None
    top = end
    while top > 0 and lines[top - 1].text.lstrip().startswith(bar):
        top -= 1
    if top == end:
        return None
    # The sidebar (session title, context, directory) shares the box's rows: only what lies above
    # the closing line is the composer's.
    width = len(lines[end].text.rstrip())
    box = [line.text[:width].lstrip()[1:].strip() for line in lines[top : end - 1]]
    composer = "\n".join(t for t in box if not t.startswith(placeholder)).strip()
    footer = [line for line in lines[end + 1 :] if line.text.strip()]
    if composer:
        return Verdict(DRAFT, h.name, composer)
    if _first_literal(footer, h.screen.busy):
        return Verdict(BUSY, h.name, composer)
    return Verdict(IDLE, h.name, composer)


def _rule_framed(lines: list[Line], h: Harness) -> Verdict | None:
    """Qwen Code's composer: the last `>` line at column 0 just below a `─` rule, up to the next
    rule; its working line sits above the upper rule, its footer below the lower one."""
    sc = h.screen
    empty, cursor = sc.extra["empty"][0], sc.extra["cursor"][0]
    at = next(
        (
            i
            for i in range(len(lines) - 1, 0, -1)
            if (lines[i].text.startswith(sc.prompt) or lines[i].text.rstrip() == empty)
            and lines[i - 1].text.startswith(RULE)
        ),
        None,
    )
    if at is None:
        return None
    end = next((j for j in range(at + 1, len(lines)) if lines[j].text.startswith(RULE)), None)
    if end is None:
        return None
    box = [line.text for line in lines[at:end]]
    box[0] = box[0][len(empty) :]
    composer = "\n".join(box).replace(cursor, "")
    for placeholder in sc.placeholders:
        composer = composer.replace(placeholder, "")
    composer = composer.strip()
    above = [line for line in lines[: at - 1] if line.text.strip() and not _is_hail_line(line)]
    above = above[-CODEX_ABOVE:]
    footer = [line for line in lines[end + 1 :] if line.text.strip()]
    if _first_literal(above[-3:], sc.dialogs):
        return None  # a dialog drawn over the turn: `classify` names it
    if composer:
        return Verdict(DRAFT, h.name, composer)
    if _first_literal([*above[-3:], *footer], sc.busy):
        return Verdict(BUSY, h.name, composer)
    return Verdict(IDLE, h.name, composer)


#: The composer readers, by the `shape` a harness's screen names: each finds one kind of composer
#: and reads its state with the harness's literals.
READERS: dict[str, Callable[[list[Line], Harness], Verdict | None]] = {
    "between_rules": _between_rules,
    "last_prompt": _last_prompt,
    "below_rule": _below_rule,
    "bar_box": _bar_box,
    "rule_framed": _rule_framed,
}


def classify(raw: list[str]) -> Verdict:
    """The screen's class: idle, busy, queued, draft, dialog or none (no composer hail knows)."""
    lines = [parse_line(line) for line in raw]
    for harness in HARNESSES:
        found = READERS[harness.screen.shape](lines, harness)
        if found is not None:
            return found
    tail = [line for line in lines if line.text.strip() and not _is_hail_line(line)]
    literal = _first_literal(tail[-policy.SCREEN_TAIL_LINES :], DIALOG_LITERALS)
    if literal:
        return Verdict(DIALOG, literal=literal)
    return Verdict(NONE)


def probe_of(text: str) -> str:
    """What proves the text reached the screen: the `id:<id>` token of an envelope (an older
    envelope from the same seat shares its opening characters), else its first 40 non-blank chars."""
    if text.startswith("[hail "):
        for word in text.split():
            if word.startswith("id:") and len(word) > 3:
                return word.rstrip("]")
    return squeeze(text)[: policy.TYPE_PROBE_CHARS]
