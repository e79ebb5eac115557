"""Records: header lines only, read leniently [docs/files.md "Records"]; holds and pending sends,
newest first [docs/commands.md "Holds"]."""

from __future__ import annotations

import os

from hail import ids, policy
from hail.seat import parse_mailbox
from hail.store import fs
from hail.text import one_line


def render_record(pairs: list[tuple[str, str]]) -> str:
    """A record: header lines only, no blank line, no body [docs/files.md "Records"]. Empty values
    are kept.

    Values are made one clean line, so none can add a line such as a later `expires:`.
    """
    return "".join(f"{k}: {one_line(v)}\n" for k, v in pairs)


def _addr(value: str) -> str:
    return value if parse_mailbox(value) is not None else "?"


class Hold:
    """A hold record; lapse is a read-time filter that every reader applies alike [docs/commands.md
    "Holds"]."""

    __slots__ = (
        "_issued",
        "_issued_read",
        "_lapses",
        "batch",
        "expires",
        "headline",
        "id",
        "issuer",
        "kind",
        "path",
        "re",
        "scope",
        "time",
        "to",
    )

    def __init__(
        self,
        id: str,
        kind: str,
        issuer: str,
        to: str,
        scope: str,
        time: str,
        re: str,
        expires: str,
        headline: str,
        path: str,
        batch: str = "",
    ) -> None:
        self.id = id
        self.kind = kind
        self.issuer = issuer
        self.to = to
        self.scope = scope
        self.time = time
        self.re = re
        self.expires = expires
        self.headline = headline
        self.path = path
        #: The broadcast this hold is one copy of ("" for a hold sent to one seat).
        self.batch = batch
        self._issued: float | None = None
        self._issued_read = False
        self._lapses: float | None = None

    def __repr__(self) -> str:
        return (
            f"Hold({self.id!r}, issuer={self.issuer!r}, to={self.to!r}, expires={self.expires!r})"
        )

    def issued_at(self) -> float | None:
        """`time` as Unix seconds, None when it is missing or unreadable; parsed once."""
        if not self._issued_read:
            self._issued = ids.parse_iso(self.time) if self.time else None
            self._issued_read = True
        return self._issued

    def lapses_at(self) -> float:
        """`expires`, else `time` + OLD_BLOCK_SECONDS for an old `block` and + HOLD_DEFAULT_SECONDS
        otherwise, else the epoch."""
        if self._lapses is None:
            self._lapses = self._lapse_time()
        return self._lapses

    def _lapse_time(self) -> float:
        """Never more than HOLD_MAX_SECONDS after `time`, whatever `expires` says: the cap holds on
        read."""
        start = self.issued_at()
        if self.expires:
            t = ids.parse_iso(self.expires)
            if t is not None:
                return t if start is None else min(t, start + policy.HOLD_MAX_SECONDS)
        if start is None:
            return 0.0
        span = policy.OLD_BLOCK_SECONDS if self.kind == "block" else policy.HOLD_DEFAULT_SECONDS
        return start + span

    def in_effect(self, now: float) -> bool:
        return self.lapses_at() > now


def hold_text(
    *,
    msg_id: str,
    issuer: str,
    to: str,
    scope: str,
    time: str,
    re: str,
    expires: str,
    headline: str,
    batch: str = "",
) -> str:
    pairs = [("id", msg_id), ("kind", "hold"), ("issuer", issuer), ("to", to), ("scope", scope)]
    pairs.append(("time", time))
    if re:
        pairs.append(("re", re))
    if batch:
        pairs.append(("batch", batch))
    pairs += [("expires", expires), ("headline", headline)]
    return render_record(pairs)


def read_hold(path: str) -> Hold | None:
    text = fs.read_text(path)
    if text is None:
        return None
    r = fs.parse_record(text)
    return Hold(
        id=os.path.basename(path),
        kind=r.get("kind", "hold"),
        issuer=_addr(r.get("issuer", "")),
        to=_addr(r.get("to", "")),
        scope=r.get("scope", ""),
        time=r.get("time", ""),
        re=r.get("re", ""),
        expires=r.get("expires", ""),
        headline=r.get("headline", ""),
        path=path,
        batch=r.get("batch", ""),
    )


def read_holds(directory: str) -> list[Hold]:
    """Every hold record in a directory (not recursive), newest first."""
    out = []
    for name in sorted(fs.list_names(directory), reverse=True):
        # No stat first: read_text skips a directory (holds/lapsed) by its error, one call less.
        hold = read_hold(os.path.join(directory, name))
        if hold is not None:
            out.append(hold)
    return out


class Pending:
    """A send from this mailbox that has no receipt yet."""

    __slots__ = ("epoch", "headline", "id", "kind", "path", "to")

    def __init__(self, id: str, kind: str, to: str, epoch: float, headline: str, path: str) -> None:
        self.id = id
        self.kind = kind
        self.to = to
        self.epoch = epoch
        self.headline = headline
        self.path = path

    def __repr__(self) -> str:
        return f"Pending({self.id!r}, to={self.to!r}, epoch={self.epoch!r})"


def pending_text(msg_id: str, kind: str, to: str, epoch: float, headline: str) -> str:
    pairs = [("id", msg_id), ("kind", kind), ("to", to), ("epoch", str(int(epoch)))]
    pairs.append(("headline", headline))
    return render_record(pairs)


def read_pending(directory: str) -> list[Pending]:
    """A mailbox's pending sends, newest first."""
    out = []
    for name in sorted(fs.list_names(directory), reverse=True):
        path = os.path.join(directory, name)
        text = fs.read_text(path)
        if text is None:
            continue
        r = fs.parse_record(text)
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


def remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
