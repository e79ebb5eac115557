"""Claude Code's transcript, read for the gauge [docs/gauge.md "Claude Code"].

Measured on Claude Code 2.1.332: the transcript (`transcript_path` of every hook payload) is JSON
lines; each model call's `message.usage` (`input_tokens`, `cache_creation_input_tokens`,
`cache_read_input_tokens`, `output_tokens`) rides on its `"type":"assistant"` lines, one line per
content block, all with the same `message.id` and usage. Lines with `isSidechain` are a sub-agent's,
whose context is not the session's; a `"<synthetic>"` model's line is Claude Code's own note (an
error shown as a reply) with no call behind it. A `compact_boundary` line after the newest call
means the context was compacted since: the call's figure no longer holds.

The transcript names no window. hail's table below is Claude Code 2.1.332's own model registry
(each model's `context.window`, read from its bundle), by canonical model name; a `[1m]` model
setting (the SessionStart payload's `model`) asks for the 1M window of a model that has one. A
model outside the table has no window unless the person's config gives one.
"""

from __future__ import annotations

import json
from contextlib import closing

from hail import policy
from hail.gauge.base import (
    COMPACTED,
    Call,
    Reader,
    Reading,
    Tokens,
    Where,
    counts,
    file_trouble,
    from_calls,
)
from hail.gauge.tail import Tail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: Each model's `context.window` in Claude Code 2.1.332's registry. Models of the registry with
#: no context entry (Claude 3.x) fall to its default of 200,000.
WINDOWS: Mapping[str, int] = {
    **dict.fromkeys(
        (
            "claude-3-5-haiku",
            "claude-3-5-sonnet",
            "claude-3-7-sonnet",
            "claude-haiku-4-5",
            "claude-sonnet-4-0",
            "claude-sonnet-4-5",
            "claude-sonnet-4-6",
            "claude-opus-4-0",
            "claude-opus-4-1",
            "claude-opus-4-5",
            "claude-opus-4-6",
        ),
        200_000,
    ),
    **dict.fromkeys(
        (
            "claude-haiku-5-5",
            "claude-sonnet-5",
            "claude-sonnet-5-5",
            "claude-opus-4-7",
            "claude-opus-4-8",
            "claude-opus-5",
            "claude-opus-5-5",
            "claude-fable-5",
            "claude-fable-5-1",
            "claude-fable-5-2",
            "claude-mythos-5",
            "claude-mythos-5-1",
            "claude-mythos-5-2",
        ),
        1_000_000,
    ),
}
#: The models whose registry entry has a `maximum_window` of 1,000,000 beside a smaller window:
#: their `[1m]` setting runs with it.
LONG_WINDOW = 1_000_000
LONG_CAPABLE = frozenset(
    {"claude-sonnet-4-0", "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-opus-4-6"}
)
LONG_SUFFIX = "[1m]"
#: The registry's names of the models whose API id drops the `-0` (`claude-opus-4-20250514`).
ALIASES = {"claude-opus-4": "claude-opus-4-0", "claude-sonnet-4": "claude-sonnet-4-0"}
SYNTHETIC = "<synthetic>"


def canonical(model: str) -> str:
    """`claude-sonnet-4-5` for the spellings of one model: dated (`-20250929`), Vertex
    (`@20250929`), Bedrock (`us.anthropic.…-v1:0`), behind a gateway's `…/`, with `[1m]`."""
    name = model.strip().lower().removesuffix(LONG_SUFFIX).rsplit("/", 1)[-1]
    if "anthropic." in name:
        name = name.split("anthropic.", 1)[1]
    name = name.split("@", 1)[0].split(":", 1)[0]
    for is_suffix in (_is_version, _is_date):
        head, _, tail = name.rpartition("-")
        if head and is_suffix(tail):
            name = head
    return ALIASES.get(name, name)


def _is_version(part: str) -> bool:
    """Bedrock's `v1` (its `:0` already cut), or a date where no version is."""
    return (part[:1] == "v" and part[1:].isdigit()) or _is_date(part)


def _is_date(part: str) -> bool:
    return len(part) == 8 and part.isdigit()


_USAGE = (
    "input_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "output_tokens",
)


def call_of(line: bytes) -> Call | None:
    """The call an assistant line records; None for any other line, a sub-agent's, a synthetic
    one, or one that is not JSON."""
    if b'"usage"' not in line or b'"assistant"' not in line:
        return None
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict) or entry.get("type") != "assistant" or entry.get("isSidechain"):
        return None
    message = entry.get("message")
    if not isinstance(message, dict) or message.get("model") == SYNTHETIC:
        return None
    usage = message.get("usage")
    found = counts(usage, _USAGE) if isinstance(usage, dict) else None
    if found is None:
        return None
    return Call(str(message.get("id") or ""), str(message.get("model") or ""), Tokens(*found))


def is_compaction(line: bytes) -> bool:
    if b'"compact_boundary"' not in line:
        return False
    try:
        entry = json.loads(line)
    except ValueError:
        return False
    return (
        isinstance(entry, dict)
        and entry.get("subtype") == "compact_boundary"
        and not entry.get("isSidechain")
    )


class ClaudeReader(Reader):
    name = "claude"
    source = "transcript"

    def compacts_at(self, window: int) -> int | None:
        return max(0, window - policy.CLAUDE_COMPACT_RESERVE)

    def reading(self, where: Where) -> Reading:
        tail = Tail(where.path)
        calls: dict[str, Call] = {}
        newest: Call | None = None
        compacted = False
        try:
            with closing(tail.lines()) as lines:
                for line in lines:
                    if newest is None and is_compaction(line):
                        compacted = True
                        continue
                    call = call_of(line)
                    if call is None:
                        continue
                    newest = newest or call
                    if not tail.fits:  # the session cannot be summed: the newest call is all
                        break
                    # Newest first: the first line of a call's id is its last word.
                    calls.setdefault(call.id or f"#{len(calls)}", call)
        except OSError as e:
            return file_trouble(e, tail.bytes_read)
        why = COMPACTED if compacted and newest is not None else ""
        return from_calls(
            newest, calls.values(), whole=tail.whole, bytes_read=tail.bytes_read, why=why
        )

    def table_window(self, model: str, where: Where) -> int | None:
        name = canonical(model)
        long = where.model.strip().lower().endswith(LONG_SUFFIX) and canonical(where.model) == name
        if long and name in LONG_CAPABLE:
            return LONG_WINDOW
        return WINDOWS.get(name)

    def model_names(self, model: str) -> list[str]:
        return [model, canonical(model)]
