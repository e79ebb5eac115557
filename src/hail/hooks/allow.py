"""`hail deliver --event PreToolUse`: let hail's own command past the harness's permission prompt
[docs/hooks.md "Copilot CLI"].

Copilot CLI asks before any `hail …` its model runs, and setup cannot hand it `--allow-tool`. Its
preToolUse hook may answer `{"permissionDecision":"allow"}` instead, so this hook does, for one
shape of command only: a plain `hail <verb> …` run by the harness's shell tool, whose words are
unquoted safe characters, single-quoted text, or double-quoted text with nothing bash expands in
it, optionally ending in one quoted heredoc (`<<'EOF'` … `EOF`, whose body bash never expands)
with nothing after its closing line. Nothing in such a command can run a second program: no `;`,
`&`, `|`, newline outside quotes, redirection, `$`, backquote, glob or subshell. hail's verbs that
reach other panes or edit configs (`read`, `type`, `keys`, `setup`) and those no model runs
(`listen`, `remote-peer`) are not answered, as Codex's rule for hail asks for or forbids them. Any
other call gets no answer, so the harness's own rules decide. Stdlib string work only: the hook
path imports no `re`, `shlex` or `json`.
"""

from __future__ import annotations

from hail.harnesses import registry
from hail.harnesses.base import TOP_CONTEXT
from hail.hooks import protocol

#: Characters a word may hold outside quotes: none of them means anything to bash.
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/@%+=")
#: What a double-quoted word may not hold: bash expands these inside double quotes.
_EXPANDED_IN_DOUBLE = frozenset('$`\\!"')
#: hail's verbs a model's command is not let through with (docs/hooks.md "Copilot CLI").
NOT_ALLOWED = frozenset({"read", "type", "keys", "setup", "listen", "remote-peer"})
REASON = "hail's own command (allowed by hail's preToolUse hook)"


def answer(fmt: str | None, payload: bytes) -> int:
    """Print the allow for hail's own command; nothing for any other call. Always exits 0."""
    try:
        fields = registry.get(fmt).payload if fmt else None
        if fields is None or not fields.shell:
            return 0
        if protocol.string_of(payload, fields.tool) != fields.shell:
            return 0
        command = protocol.string_of(payload, "command")
        if command is None or not is_hails_own(command):
            return 0
        protocol.write_stdout(allow_json(fmt or "") + "\n")
    except Exception as exc:
        protocol.log_error(None, "deliver", exc)
    return 0


def allow_json(fmt: str) -> str:
    """The allow as the harness reads it: top-level (Copilot CLI), else in `hookSpecificOutput`."""
    reason = protocol.json_string(REASON)
    decision = '"permissionDecision":"allow","permissionDecisionReason":' + reason
    if registry.get(fmt).output == TOP_CONTEXT:
        return "{" + decision + "}"
    return '{"hookSpecificOutput":{"hookEventName":"PreToolUse",' + decision + "}}"


def is_hails_own(command: str) -> bool:
    """Whether `command` is one plain `hail …` invocation that can run nothing else."""
    first, sep, rest = command.strip().partition("\n")
    parsed = _words(first)
    if parsed is None:
        return False
    words, tag = parsed
    if not words or words[0] != "hail" or (len(words) > 1 and words[1] in NOT_ALLOWED):
        return False
    if tag is None:
        return not sep
    return sep == "\n" and _heredoc_closes(tag, rest)


def _words(line: str) -> tuple[list[str], str | None] | None:
    """The words of one line, quotes removed, and the tag of its heredoc (None: it has none); None
    when the line holds anything but plain, single-quoted and expansion-free double-quoted words,
    and one final heredoc operator with a quoted tag."""
    words: list[str] = []
    tag: str | None = None
    i, n = 0, len(line)
    while i < n:
        if line[i] in " \t":
            i += 1
            continue
        if tag is not None:
            return None  # nothing may follow the heredoc's operator on its line
        if line.startswith("<<", i):
            tag, i = _quoted(line, i + 2 + (line[i + 2 : i + 3] == " "))
            if not tag or not all(ch in _PLAIN for ch in tag):
                return None
            continue
        word, i = _word(line, i)
        if word is None:
            return None
        words.append(word)
    return words, tag


def _word(line: str, i: int) -> tuple[str | None, int]:
    """The word starting at `i` and where it ends; None for one holding anything bash reads."""
    out: list[str] = []
    n = len(line)
    while i < n and line[i] not in " \t":
        ch = line[i]
        if ch in "'\"":
            text, i = _quoted(line, i)
            if text is None:
                return None, i
            out.append(text)
        elif ch in _PLAIN or ch > "\x7f":
            out.append(ch)
            i += 1
        else:
            return None, i
    return "".join(out), i


def _quoted(line: str, i: int) -> tuple[str | None, int]:
    """The text of the quoted string at `i` and just past it: single quotes hold anything, double
    quotes nothing bash expands; None for no quote there, or one not closed on the line."""
    quote = line[i : i + 1]
    if quote not in ("'", '"'):
        return None, i
    end = line.find(quote, i + 1)
    if end < 0:
        return None, i
    text = line[i + 1 : end]
    if quote == '"' and any(ch in _EXPANDED_IN_DOUBLE for ch in text):
        return None, i
    return text, end + 1


def _heredoc_closes(tag: str, body: str) -> bool:
    """Whether the heredoc's body ends at its first line that is exactly `tag`, with nothing but
    blank space after it: the command's last line."""
    lines = body.split("\n")
    end = next((k for k, line in enumerate(lines) if line == tag), None)
    return end is not None and not "".join(lines[end + 1 :]).strip()
