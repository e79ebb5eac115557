"""opencode's figures, as hail's own opencode plugin records them [docs/gauge.md "opencode"].

opencode 1.18.33 keeps its sessions in a database, not a file to read from its end; but hail's
plugin runs inside it and sees every reply's `message.updated` event: its `tokens` (`input`, the
part of the prompt read fresh; `cache.read`; `cache.write`; `output`; `reasoning`) and its `cost`
in USD, which opencode prices by the model's `cost` in its config. One assistant message is one
model call. `chat.params` hands the plugin the model, whose `limit.context` is its window. The
plugin writes the newest reply of its session, the window and the session's totals (summed over
every reply of the session, read once from opencode and kept up to date) to a record beside the
mailbox's other marks, `seats/<mailbox>/gauge-opencode-<pid>` (`record_path`), written whole and
renamed into place, 0600. This reads it.
"""

from __future__ import annotations

import os

from hail import policy
from hail.gauge.base import (
    NO_FILE,
    NOT_RECORDED,
    OTHER_SESSION,
    UNREADABLE,
    Reader,
    Reading,
    Tokens,
    Where,
)
from hail.store import fs
from hail.store.fs import parse_record

#: The record's name in its mailbox directory, before the opencode process's pid.
RECORD_PREFIX = "gauge-opencode-"
_LAST = ("input", "cache-read", "cache-write", "output", "reasoning")
_SESSION = tuple(f"session-{key}" for key in _LAST)


def record_path(mailbox_dir: str, pid: int) -> str:
    """Where the plugin of the opencode process `pid` records the figures of its session."""
    return os.path.join(mailbox_dir, f"{RECORD_PREFIX}{pid}")


def read_record(path: str) -> bytes | None:
    """The record's bytes; None when there is none. OSError when it cannot be read; ValueError
    when it is longer than the plugin ever writes one (`policy.GAUGE_RECORD_MAX`)."""
    try:
        fd = fs.open_regular(path, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        raw = os.read(fd, policy.GAUGE_RECORD_MAX + 1)
    finally:
        os.close(fd)
    if len(raw) > policy.GAUGE_RECORD_MAX:
        raise ValueError(f"{path} is longer than a gauge record")
    return raw


def tokens_of(record: dict[str, str], keys: tuple[str, ...]) -> Tokens | None:
    """The tokens under `keys` (input, cache read, cache write, output, reasoning)."""
    counts = [record.get(key, "") for key in keys]
    if not all(c.isdigit() for c in counts):
        return None
    fresh, read, write, output, reasoning = (int(c) for c in counts)
    return Tokens(fresh, read, write, output + reasoning)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value >= 0 and value == value and value != float("inf") else None


class OpencodeReader(Reader):
    name = "opencode"
    source = "plugin-record"
    window_in_file = True

    def compacts_at(self, window: int) -> int | None:
        return max(0, window - policy.OPENCODE_COMPACT_RESERVE)

    session_unknown = NOT_RECORDED

    def reading(self, where: Where) -> Reading:
        try:
            raw = read_record(where.path)
        except (OSError, ValueError):
            return Reading(why=UNREADABLE)
        if raw is None:
            return Reading(why=NO_FILE)
        size = len(raw)
        record = parse_record(raw.decode("utf-8", errors="replace"))
        if where.session and record.get("session") != where.session:
            return Reading(why=OTHER_SESSION, bytes_read=size)
        last = tokens_of(record, _LAST)
        window = record.get("window", "")
        return Reading(
            last=last,
            model=record.get("model", ""),
            window=int(window) if window.isdigit() and int(window) > 0 else None,
            spent=tokens_of(record, _SESSION),
            cost=_number(record.get("session-cost", "")),
            why="" if last is not None else NOT_RECORDED,
            bytes_read=size,
        )
