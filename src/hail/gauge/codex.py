"""Codex's rollout, read for the gauge [docs/gauge.md "Codex"].

Measured on Codex 0.171.0 (with and without its daemon): the rollout (`transcript_path` of every
hook payload) is JSON lines. After each model call an `event_msg` whose payload is a
`token_count` holds `info.last_token_usage` (that call), `info.total_token_usage` (the session
so far) and `info.model_context_window` (258,400 for gpt-5.5); its `input_tokens` count the
cached ones (`cached_input_tokens`) too, and its `output_tokens` the reasoning. A `token_count`
whose `info` is null carries rate limits only. Each call also leaves a `token_usage_record`
(its `usage`), and each turn a `turn_context` naming its `model`: read whole, they price a session
call by call. Codex records no cost.
"""

from __future__ import annotations

import json
from contextlib import closing

from hail import policy
from hail.gauge.base import (
    NO_CALL,
    NOT_IN_TAIL,
    Reader,
    Reading,
    Tokens,
    Where,
    counts,
    file_trouble,
)
from hail.gauge.tail import Tail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

_USAGE = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens")
_KINDS = (b'"token_count"', b'"turn_context"', b'"token_usage_record"')


def tokens_of(usage: object) -> Tokens | None:
    """A Codex usage object as tokens: the cached and cache-written input apart from the rest."""
    found = counts(usage, _USAGE) if isinstance(usage, dict) else None
    if found is None:
        return None
    whole, cached, written, output = found
    return Tokens(max(whole - cached - written, 0), cached, written, output)


def entry_of(line: bytes) -> tuple[str, dict[str, object]] | None:
    """The kind of a line the gauge reads (`token_count`, `turn_context`, `token_usage_record`)
    and its payload; None for any other line or one that is not JSON."""
    if not any(kind in line for kind in _KINDS):
        return None
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    payload = entry.get("payload") if isinstance(entry, dict) else None
    if not isinstance(payload, dict):
        return None
    kind = entry.get("type")
    if kind == "event_msg" and payload.get("type") == "token_count":
        return ("token_count", payload) if isinstance(payload.get("info"), dict) else None
    if kind in ("turn_context", "token_usage_record"):
        return str(kind), payload
    return None


class CodexReader(Reader):
    name = "codex"
    source = "rollout"
    window_in_file = True

    def compacts_at(self, window: int) -> int | None:
        return int(window * policy.CODEX_COMPACT_SHARE)

    def reading(self, where: Where) -> Reading:
        tail = Tail(where.path)
        count: dict[str, object] | None = None
        model = ""
        older: list[tuple[str, dict[str, object]]] = []  # newest first
        try:
            with closing(tail.lines()) as lines:
                for line in lines:
                    entry = entry_of(line)
                    if entry is None:
                        continue
                    kind, payload = entry
                    if kind == "token_count" and count is None:
                        count = payload
                    elif kind == "turn_context" and not model:
                        model = str(payload.get("model") or "")
                    older.append(entry)
                    # Past the bound nothing is summed: the newest count is all, with its turn's
                    # model unless the hook named it (Codex names it in every payload).
                    if count is not None and (model or where.model) and not tail.fits:
                        break
        except OSError as e:
            return file_trouble(e, tail.bytes_read)
        by_model = _by_model(reversed(older)) if tail.whole else None
        if count is None:
            if tail.whole:  # no call yet: nothing spent
                return Reading(model=model, spent=Tokens(0), by_model=by_model, why=NO_CALL)
            return Reading(model=model, why=NOT_IN_TAIL, bytes_read=tail.bytes_read)
        info = count["info"]
        assert isinstance(info, dict)
        window = info.get("model_context_window")
        last = tokens_of(info.get("last_token_usage"))
        return Reading(
            last=last,
            model=model,
            window=window if isinstance(window, int) and window > 0 else None,
            spent=tokens_of(info.get("total_token_usage")),
            by_model=by_model,
            why="" if last is not None else NOT_IN_TAIL,
            bytes_read=tail.bytes_read,
        )


def _by_model(entries: Iterable[tuple[str, dict[str, object]]]) -> dict[str, Tokens] | None:
    """Each call's usage summed under the model of its turn, from the whole rollout in order;
    None when a call's model or usage cannot be read."""
    totals: dict[str, Tokens] = {}
    model = ""
    for kind, payload in entries:
        if kind == "turn_context":
            model = str(payload.get("model") or "")
        elif kind == "token_usage_record":
            tokens = tokens_of(payload.get("usage"))
            if tokens is None or not model:
                return None
            totals[model] = totals.get(model, Tokens(0)).plus(tokens)
    return totals
