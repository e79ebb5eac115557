"""Hold and pending-send records: header lines only, read leniently, newest first [SPEC §3.4, §8]."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from hail import ids, policy
from hail.seat import parse_mailbox
from hail.store import fs
from hail.store.message import parse_record, render_record


def _addr(value: str) -> str:
    return value if parse_mailbox(value) is not None else "?"


@dataclass(frozen=True)
class Hold:
    id: str
    kind: str
    issuer: str
    to: str
    scope: str
    time: str
    re: str
    expires: str
    headline: str
    path: Path

    def lapses_at(self) -> float:
        """`expires`, else `time` + 7 d for an old `block` and + 8 h otherwise, else the epoch."""
        if self.expires:
            t = ids.parse_iso(self.expires)
            if t is not None:
                return t
        start = ids.parse_iso(self.time) if self.time else None
        if start is None:
            return 0.0
        span = policy.OLD_BLOCK_SECONDS if self.kind == "block" else policy.HOLD_DEFAULT_SECONDS
        return start + span

    def in_effect(self, now: float) -> bool:
        return self.lapses_at() > now


def hold_text(
    msg_id: str, issuer: str, to: str, scope: str, time: str, re: str, expires: str, headline: str
) -> str:
    pairs = [("id", msg_id), ("kind", "hold"), ("issuer", issuer), ("to", to), ("scope", scope)]
    pairs.append(("time", time))
    if re:
        pairs.append(("re", re))
    pairs += [("expires", expires), ("headline", headline)]
    return render_record(pairs)


def read_hold(path: Path) -> Hold | None:
    text = fs.read_text(path)
    if text is None:
        return None
    r = parse_record(text)
    return Hold(
        id=path.name,
        kind=r.get("kind", "hold"),
        issuer=_addr(r.get("issuer", "")),
        to=_addr(r.get("to", "")),
        scope=r.get("scope", ""),
        time=r.get("time", ""),
        re=r.get("re", ""),
        expires=r.get("expires", ""),
        headline=r.get("headline", ""),
        path=path,
    )


def read_holds(directory: Path) -> list[Hold]:
    """Every hold record in a directory (not recursive), newest first."""
    out = []
    for name in sorted(fs.list_names(directory), reverse=True):
        path = directory / name
        if path.is_file():
            hold = read_hold(path)
            if hold is not None:
                out.append(hold)
    return out


@dataclass(frozen=True)
class Pending:
    id: str
    kind: str
    to: str
    epoch: float
    headline: str
    path: Path


def pending_text(msg_id: str, kind: str, to: str, epoch: float, headline: str) -> str:
    pairs = [("id", msg_id), ("kind", kind), ("to", to), ("epoch", str(int(epoch)))]
    pairs.append(("headline", headline))
    return render_record(pairs)


def read_pending(directory: Path) -> list[Pending]:
    """A mailbox's pending sends, newest first."""
    out = []
    for name in sorted(fs.list_names(directory), reverse=True):
        path = directory / name
        text = fs.read_text(path)
        if text is None:
            continue
        r = parse_record(text)
        try:
            epoch = float(r.get("epoch", "0"))
        except ValueError:
            epoch = 0.0
        out.append(
            Pending(
                name, r.get("kind", ""), _addr(r.get("to", "")), epoch, r.get("headline", ""), path
            )
        )
    return out


def remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
