"""What hooks share: is anyone reading stdout, the harness payload, the hook JSON, the error log.

Hooks never fail a session [docs/hooks.md "Failure handling"]: `log_error` never raises.

"""

from __future__ import annotations

import os
import stat
import sys
import time

from hail import errors, policy
from hail.store import fs
from hail.store.store import Store, state_root


def stdout_reaches_nobody() -> bool:
    """fd 1 closed, or /dev/null: output would be lost, so nothing may be claimed [docs/hooks.md
    "deliver, step by step"]."""
    try:
        st = os.fstat(1)
    except OSError:
        return True
    try:
        null = os.stat(os.devnull)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (null.st_dev, null.st_ino)


def payload_bytes() -> bytes:
    """The harness's payload as raw bytes [docs/hooks.md "What deliver reads"].

    A harness starts the hook, then writes the payload and closes stdin: on a loaded machine the
    hook can get here first, and a payload read only if already there would be missed now and
    then (a sub-agent's tool call taken for the agent's own, a person's prompt for none). So a
    pipe gets up to HOOK_PAYLOAD_WAIT to bring it, up to its end or the `}` that closes the
    outermost object (`closes_an_object`); a file or /dev/null is read as it is, a terminal never.
    """
    try:
        if os.isatty(0):
            return b""
        mode = os.fstat(0).st_mode
    except OSError:
        return b""
    piped = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
    deadline = time.monotonic() + (policy.HOOK_PAYLOAD_WAIT if piped else 0.0)
    data = b""
    try:
        while len(data) < policy.HOOK_STDIN_MAX:
            chunk = _read_at_once(policy.HOOK_STDIN_MAX - len(data), regular=stat.S_ISREG(mode))
            if chunk is None:  # nothing there yet
                # Once a whole object may be here, take only what follows at once: a harness that
                # keeps stdin open costs no wait.
                wait = 0.0 if closes_an_object(data) else deadline - time.monotonic()
                if wait <= 0 or not _readable_within(wait):
                    break
                continue
            if not chunk:
                break
            data += chunk
    except (OSError, ValueError):
        pass  # what was read so far is judged like a payload cut short
    return data


_JSON_SPACE = b" \t\r\n"
#: Every byte but the four that open and close objects and arrays: `translate` deletes them.
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"{}[]")


def closes_an_object(data: bytes) -> bool:
    """Whether `data` is one JSON object up to the brace that closes it (whitespace around it).

    Braces and brackets count only outside strings, so neither an inner `}` nor one in a string
    ends it. Only the structure is checked: whether it is valid JSON is `json.loads`'s to say.
    Byte searches, never a loop over every byte: a payload is mostly long strings.
    """
    text = data.strip(_JSON_SPACE)
    if text[:1] != b"{" or text[-1:] != b"}":
        return False
    depth = 0
    at = 0
    while True:
        quote = text.find(b'"', at)
        brackets = text[at : quote if quote >= 0 else len(text)].translate(None, _NOT_BRACKETS)
        for n, bracket in enumerate(brackets):
            depth += 1 if bracket in b"{[" else -1
            if depth == 0:  # the outermost object closed: whole only if nothing follows
                return quote < 0 and n == len(brackets) - 1
        if quote < 0:
            return False
        at = _string_end(text, quote + 1)
        if at < 0:
            return False  # a string still open


def _string_end(text: bytes, at: int) -> int:
    """Just past the quote that ends the string whose text starts at `at`, or -1 if none does."""
    while True:
        quote = text.find(b'"', at)
        if quote < 0:
            return -1
        backslashes = 0
        while text[quote - 1 - backslashes] == 0x5C:  # a run of backslashes: odd escapes the quote
            backslashes += 1
        if backslashes % 2 == 0:
            return quote + 1
        at = quote + 1


def _read_at_once(size: int, *, regular: bool) -> bytes | None:
    """What stdin holds now (b"" at its end), or None when nothing is there yet: never waits.

    A pipe or socket (Node, so Claude Code, hands hooks a socket) is read with O_NONBLOCK set for
    that read only, so a payload already there costs no `select`, a shared library to load.
    """
    if regular:
        return os.read(0, size)
    blocking = os.get_blocking(0)
    if blocking:
        os.set_blocking(0, False)
    try:
        return os.read(0, size)
    except BlockingIOError:
        return None
    finally:
        if blocking:
            os.set_blocking(0, True)


def _readable_within(seconds: float) -> bool:
    """Whether stdin brings something within `seconds`: only a payload not there yet waits."""
    import select  # loaded only for that wait

    ready, _, _ = select.select([0], [], [], seconds)
    return bool(ready)


#: What a payload that could not be read whole counts as: possibly a sub-agent's.
UNSEEN = {"agent_id": "?"}


def payload_json(data: bytes) -> object | None:
    """The payload (`payload_bytes`) as JSON, as far as the sub-agent guard needs it."""
    if not data:
        return None
    if len(data) >= policy.HOOK_STDIN_MAX or not closes_an_object(data):
        # Cut at the read limit, or not whole in time: the part not seen may name a sub-agent, whose
        # context is thrown away, so mail waits for a hook that sees its whole payload.
        return UNSEEN
    if b'"agent_id"' not in data:
        return None  # only the sub-agent guard reads it: skip parsing JSON when it cannot apply
    import json

    try:
        payload: object = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        # Not JSON after all, or nested deeper than the parser goes (a tool's output of nested
        # arrays): keep only what decides the guard (safe side: mail waits).
        return UNSEEN if _names_an_agent(data) else None
    return payload


def _names_an_agent(data: bytes) -> bool:
    """Whether raw JSON text holds `"agent_id": "<something>"` anywhere (safe side: mail waits)."""
    at = data.find(b'"agent_id"')
    while at >= 0:
        rest = data[at + 10 :].lstrip(b" \t\r\n")
        if rest[:1] == b":":
            value = rest[1:].lstrip(b" \t\r\n")
            if value[:1] == b'"' and value[1:2] not in (b'"', b""):
                return True
        at = data.find(b'"agent_id"', at + 1)
    return False


def prompt_of(payload: bytes) -> str | None:
    """The `prompt` of a UserPromptSubmit payload, or None when it holds none.

    Decoded by hand, like `json_string` is written by hand: importing `json` costs a noticeable
    share of a hook call. Anything unexpected reads as no prompt, which only means the frame
    repeats a headline the model may already have.
    """
    return string_of(payload, "prompt")


def string_of(payload: bytes, key: str) -> str | None:
    """The JSON string under `key` in a payload's raw text, as `json.loads` reads it; None when the
    payload holds none there, or one json would refuse. The first occurrence outside another string
    counts: inside a string its quotes are escaped, so a prompt that says `"transcript_path": "/x"`
    never passes for the field; None for no key ("": a field the harness's payloads never carry)."""
    if not key:
        return None
    quoted = b'"' + key.encode() + b'"'
    at = payload.find(quoted)
    while at >= 0:
        if payload[at - 1 : at] != b"\\":  # not the escaped text of another string
            rest = payload[at + len(quoted) :].lstrip(b" \t\r\n")
            if rest[:1] == b":":
                value = rest[1:].lstrip(b" \t\r\n")
                if value[:1] == b'"':
                    return _json_string(value[1:].decode("utf-8", errors="replace"))
        at = payload.find(quoted, at + 1)
    return None


_JSON_UNESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}


def _json_string(text: str) -> str | None:
    """The JSON string that `text` starts with (after its opening quote), or None where `json.loads`
    would refuse it (a bad escape, a raw control character); a lone `\\u` surrogate reads as U+FFFD."""
    parts: list[str] = []
    surrogates = False
    i = 0
    while True:
        quote = text.find('"', i)
        escape = text.find("\\", i)
        if quote < 0:
            return None
        end = quote if escape < 0 or quote < escape else escape
        raw = text[i:end]
        if not raw.isprintable() and _has_control(raw):
            return None
        parts.append(raw)
        if end == quote:
            break
        code = text[escape + 1 : escape + 2]
        if code == "u":
            digits = text[escape + 2 : escape + 6]
            if len(digits) != 4 or not _HEX_DIGITS.issuperset(digits):  # int() takes `+1`, ` 1`
                return None
            parts.append(chr(int(digits, 16)))
            surrogates = surrogates or "\ud800" <= parts[-1] <= "\udfff"
            i = escape + 6
        elif code in _JSON_UNESCAPES:
            parts.append(_JSON_UNESCAPES[code])
            i = escape + 2
        else:
            return None
    out = "".join(parts)
    if surrogates:  # a character beyond the BMP written as a \u pair
        out = out.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return out


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _has_control(text: str) -> bool:
    """Whether `text` holds a character JSON allows only escaped (U+0000 to U+001F)."""
    return any(ch < " " for ch in text)


def is_subagent_call(payload: object | None) -> bool:
    """Claude Code marks a Task sub-agent's hook input with a non-empty `agent_id`."""
    if not isinstance(payload, dict):
        return False
    agent = payload.get("agent_id")
    return isinstance(agent, str) and bool(agent)


_JSON_ESCAPES = {i: f"\\u{i:04x}" for i in range(0x20)}
_JSON_ESCAPES.update(
    {ord('"'): '\\"', ord("\\"): "\\\\", 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"}
)


def json_string(text: str) -> str:
    """A JSON string literal as `json.dumps(text, ensure_ascii=False)` writes it; a lone surrogate,
    which UTF-8 cannot hold, is written as its `\\uXXXX` escape, as `json.dumps` escapes it with
    `ensure_ascii`.

    Written out because importing `json` costs a noticeable share of a hook call; a unit test
    checks it against `json.dumps` and `json.loads` on arbitrary text.
    """
    out = text.translate(_JSON_ESCAPES)
    if not out.isascii():
        try:
            out.encode("utf-8")
        except UnicodeEncodeError:
            out = "".join(f"\\u{ord(ch):04x}" if "\ud800" <= ch <= "\udfff" else ch for ch in out)
    return '"' + out + '"'


def session_dir(fmt: str | None, payload: bytes) -> str | None:
    """The directory a hook acts for: None for its own; for a harness that runs its hooks
    elsewhere (`PayloadFields.cwd`: Copilot CLI's run in the git root), the absolute directory its
    payload names, and "" when the payload names none, so the hook takes no seat rather than the
    wrong one [docs/hooks.md "Copilot CLI"]."""
    if fmt is None:
        return None
    from hail.harnesses import registry

    key = registry.get(fmt).payload.cwd
    if not key:
        return None
    where = string_of(payload, key) or ""
    return where if where.startswith("/") and os.path.isdir(where) else ""


def hook_json(event: str, text: str, fmt: str | None = None) -> str:
    """`{"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}}`, compact, UTF-8 raw;
    the event under the harness's own name (Gemini CLI's differ) [docs/hooks.md "Gemini CLI"]; a
    top-level `{"additionalContext":…}` for a harness that reads only that (Copilot CLI)."""
    from hail.harnesses import registry
    from hail.harnesses.base import TOP_CONTEXT

    harness = registry.get(fmt) if fmt else None
    if harness is not None and harness.output == TOP_CONTEXT:
        return '{"additionalContext":' + json_string(text) + "}"
    name = harness.event_name(event) if harness is not None else event
    return (
        '{"hookSpecificOutput":{"hookEventName":'
        + json_string(name)
        + ',"additionalContext":'
        + json_string(text)
        + "}}"
    )


def stop_json(text: str) -> str:
    """`{"decision":"block","reason":…}`: the Stop output Claude Code, Codex and Gemini CLI (on
    AfterAgent) read as "go on with this". Codex rejects `hookSpecificOutput` on Stop, so the text
    rides in `reason`."""
    return '{"decision":"block","reason":' + json_string(text) + "}"


def write_stdout(text: str) -> None:
    """Write all of `text` to fd 1, unbuffered, so a failure is seen here and not at exit."""
    fs.write_all(1, text.encode("utf-8"))


def log_error(store: Store | None, verb: str, error: BaseException | str) -> None:
    """Append an entry to the state root's hook-errors.log; never raises [docs/files.md "Small
    files"].

    The entry is the line `<iso> <verb>: <message>`, and for an unexpected error (not a HailError)
    its traceback below it, each line indented, so that a bug met in a session can be found. An
    entry is cut to HOOK_LOG_ENTRY_MAX, and the log is rotated once before it would pass
    HOOK_LOG_MAX. With HAIL_DEBUG the traceback is printed to stderr too. `store` is None when the
    hook failed before it had one: then the log is the one of the state root the environment names.
    """
    try:
        log = (store or Store(state_root(os.environ))).hook_log
        message = " ".join(str(error).split()) or type(error).__name__
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        trace = None
        if isinstance(error, BaseException) and errors.is_unexpected(error):
            trace = errors.traceback_of(error)
            if errors.debugging(os.environ):
                _print_trace(trace)
        entry = _entry(f"{stamp} {verb}: {message}", trace)
        fs.make_dirs(os.path.dirname(log))
        try:
            if os.stat(log).st_size + len(entry) > policy.HOOK_LOG_MAX:
                os.replace(log, log + ".1")
        except FileNotFoundError:
            pass
        fd = fs.open_regular(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            fs.write_all(fd, entry)
        finally:
            os.close(fd)
    except Exception:  # the log is a courtesy; a hook must never fail because of it
        pass


#: Room kept in an entry for the line that says how much of a traceback was left out.
_CUT = "  … {} earlier lines of the traceback left out\n"
_CUT_ROOM = 64


def _entry(line: str, trace: str | None) -> bytes:
    """One log entry of at most HOOK_LOG_ENTRY_MAX bytes: the line, then as many of the
    traceback's last lines as fit, indented by two spaces (doctor counts the lines that start
    with a time)."""
    limit = policy.HOOK_LOG_ENTRY_MAX
    head = _clip(line.encode("utf-8", "replace"), limit // 4) + b"\n"
    if trace is None:
        return head
    lines = [
        _clip(f"  {text}".encode("utf-8", "replace"), limit // 4) + b"\n"
        for text in trace.splitlines()
    ]
    room = limit - len(head) - _CUT_ROOM
    kept: list[bytes] = []
    for text in reversed(lines):
        if len(text) > room:
            break
        kept.append(text)
        room -= len(text)
    if len(kept) < len(lines):
        kept.append(_CUT.format(len(lines) - len(kept)).encode("utf-8"))
    return head + b"".join(reversed(kept))


def _clip(data: bytes, size: int) -> bytes:
    """`data` cut to `size` bytes, ending in `…`, never inside a character."""
    if len(data) <= size:
        return data
    return data[: size - 3].decode("utf-8", "ignore").encode("utf-8") + "…".encode()


def _print_trace(trace: str) -> None:
    try:
        sys.stderr.write(trace)
        sys.stderr.flush()
    except Exception:  # a closed stderr must not fail the hook either
        pass
