"""Gemini CLI's session file, read for the gauge [docs/gauge.md "Gemini CLI"].

Measured on Gemini CLI 0.61.0: the session file (`transcript_path` of every hook payload) is JSON
lines of records. A message record has an `id`; a reply (`"type":"gemini"`) carries `model` and
`tokens` (`input`, the prompt with its cached part; `cached`; `output`; `thoughts`; `tool`;
`total`), and is written again under the same id when its tool calls end: the newest record of an
id is the message. A `{"$rewindTo": <id>}` record drops that message and every one after it; a
`$set` record holding `messages` (and the first record, holding the session's header) replaces
all messages before it. The CLI loads the file the same way (`loadConversationRecord`).

The file names no window. The CLI's own table (`tokenLimit` in its bundle) gives 256,000 tokens to
`gemma-4-31b-it` and `gemma-4-26b-a4b-it` and 1,048,576 to every other model; hail repeats it.
Gemini CLI records no cost.
"""

from __future__ import annotations

import json
from contextlib import closing

from hail import policy
from hail.gauge.base import (
    NOT_IN_TAIL,
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

#: Gemini CLI 0.61.0's `tokenLimit`: its Gemma 4 models, and its default for every other.
GEMMA_WINDOW = 256_000
GEMMA_MODELS = frozenset({"gemma-4-31b-it", "gemma-4-26b-a4b-it"})
DEFAULT_WINDOW = 1_048_576
_TOKENS = ("input", "cached", "output", "thoughts", "tool")


def tokens_of(record: dict[str, object]) -> Tokens | None:
    """A reply's tokens: the prompt's cached part apart, the tool-use prompt counted as input
    and the thoughts as output (as `total` counts them)."""
    tokens = record.get("tokens")
    found = counts(tokens, _TOKENS) if isinstance(tokens, dict) else None
    if found is None:
        return None
    prompt, cached, output, thoughts, tool = found
    return Tokens(max(prompt - cached, 0) + tool, min(cached, prompt), 0, output + thoughts)


def reply_of(record: object) -> Call | None:
    if not isinstance(record, dict) or record.get("type") != "gemini":
        return None
    tokens = tokens_of(record)
    if tokens is None or not isinstance(record.get("id"), str):
        return None
    return Call(str(record["id"]), str(record.get("model") or ""), tokens)


def record_of(line: bytes) -> dict[str, object] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def snapshot_of(record: dict[str, object]) -> list[object] | None:
    """The messages a `$set` record or the header puts in place of every earlier one."""
    holder = record.get("$set") if isinstance(record.get("$set"), dict) else record
    messages = holder.get("messages") if isinstance(holder, dict) else None
    if not isinstance(messages, list):
        return None
    if holder is record and not ("sessionId" in record and "projectHash" in record):
        return None
    return messages


class Replies:
    """The replies of a session file read newest first, as the CLI's loader would keep them."""

    __slots__ = ("by_id", "done", "found_rewound", "newest", "rewound", "tangled")

    def __init__(self) -> None:
        self.by_id: dict[str, Call] = {}
        self.newest: Call | None = None
        self.rewound = ""  # the id a later `$rewindTo` dropped, with all after it
        self.found_rewound = False
        self.done = False  # an earlier snapshot replaced everything older
        self.tangled = False  # rewinds within rewinds: not followed

    def wants(self, line: bytes) -> bool:
        """Whether the line may change what is kept: a reply, a rewind, a snapshot, and while a
        rewind is followed back, any message (the one rewound to may be a prompt)."""
        return (
            b'"tokens"' in line
            or b'"$rewindTo"' in line
            or b'"messages"' in line
            or (bool(self.rewound) and b'"id"' in line)
        )

    def see(self, record: dict[str, object]) -> None:
        rewind = record.get("$rewindTo")
        if isinstance(rewind, str):
            if self.rewound:
                self.tangled = self.done = True
            self.rewound, self.found_rewound = rewind, False
            return
        snapshot = snapshot_of(record)
        if snapshot is not None:
            for message in reversed(self._after_rewind(snapshot)):
                self._keep(reply_of(message))
            self.done = True
            return
        if isinstance(record.get("id"), str):
            self._message(record)

    def _message(self, record: dict[str, object]) -> None:
        if self.rewound:
            if record["id"] == self.rewound:
                self.found_rewound = True
                return
            if not self.found_rewound:
                return
            self.rewound = ""  # past the first record of the dropped message: kept again
        self._keep(reply_of(record))

    def _after_rewind(self, messages: list[object]) -> list[object]:
        """A snapshot's messages less those a later rewind dropped: from the rewound id on, or
        all of them when it holds no such id and no later record had it either."""
        if not self.rewound:
            return messages
        ids = [m.get("id") if isinstance(m, dict) else None for m in messages]
        if self.rewound in ids:
            return messages[: ids.index(self.rewound)]
        return messages if self.found_rewound else []

    def _keep(self, reply: Call | None) -> None:
        if reply is None or reply.id in self.by_id:
            return
        self.by_id[reply.id] = reply
        self.newest = self.newest or reply


class GeminiReader(Reader):
    name = "gemini"
    source = "session-file"
    table_source = "gemini-cli-table"
    compact_command = "/compress"

    def compacts_at(self, window: int) -> int | None:
        return int(window * policy.GEMINI_COMPRESS_SHARE)

    def reading(self, where: Where) -> Reading:
        tail = Tail(where.path)
        replies = Replies()
        try:
            with closing(tail.lines()) as lines:
                for line in lines:
                    record = record_of(line) if replies.wants(line) else None
                    if record is not None:
                        replies.see(record)
                    if replies.done or (replies.newest is not None and not tail.fits):
                        break
        except OSError as e:
            return file_trouble(e, tail.bytes_read)
        if replies.tangled:
            return Reading(why=NOT_IN_TAIL, bytes_read=tail.bytes_read)
        whole = tail.whole or replies.done
        return from_calls(
            replies.newest, replies.by_id.values(), whole=whole, bytes_read=tail.bytes_read
        )

    def table_window(self, model: str, where: Where) -> int | None:
        return GEMMA_WINDOW if model in GEMMA_MODELS else DEFAULT_WINDOW
