"""Identity from the working directory, and the address grammar [SPEC §1].

A seat is named by the nearest directory carrying `.hail-seat`, `.jj` or `.git`, never by the process
tree, an inherited TMUX_PANE or a harness variable: those named the wrong pane in practice.
Filesystem only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hail.errors import SeatError, UsageError

VERBS = ["send", "whoami", "seats", "sent", "await", "brief", "inbox", "show", "read", "type", "keys", "setup", "doctor", "gc", "deliver", "help", "version", "demo"]
REMOVED = ["message", "msg", "note", "migrate", "list", "who", "resolve", "id", "name", "hello"]
RESERVED = frozenset(VERBS + REMOVED)

_NAME_RE = re.compile(r"^[A-Za-z0-9._-]+$")
_PANE_RE = re.compile(r"^%[0-9]+$")


def is_plain_name(name: str) -> bool:
    """Letters, digits, `.`, `_`, `-`; not `.` or `..`."""
    return bool(_NAME_RE.match(name)) and name not in (".", "..")


def is_seat_name(name: str) -> bool:
    """A plain name that is not a hail verb or removed spelling."""
    return is_plain_name(name) and name not in RESERVED


def is_pane_id(text: str) -> bool:
    return bool(_PANE_RE.match(text))


@dataclass(frozen=True)
class Seat:
    """A seat: its name, the directory that names it, and how it was found."""

    name: str
    root: Path
    source: str

    @property
    def bindable(self) -> bool:
        """HAIL_SEAT seats have no directory of their own and are never bound."""
        return not self.source.startswith("HAIL_SEAT")


def _marker(d: Path) -> tuple[str, str] | None:
    """The (name, source) a directory's own marker gives, or None."""
    seat_file = d / ".hail-seat"
    if seat_file.is_file():
        try:
            text = seat_file.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            text = ""
        return text, ".hail-seat"
    if (d / ".jj").is_dir():
        return d.name, "jj workspace root"
    if os.path.lexists(d / ".git"):
        return d.name, "git root"
    return None


def find_seat(cwd: Path, home: Path | None) -> Seat | None:
    """The nearest marked directory from `cwd` upwards, stopping (exclusive) at $HOME.

    Raises SeatError when the marker names an invalid or reserved seat.
    """
    home_real = _real(home) if home is not None else None
    d = cwd
    while True:
        if home_real is not None and _real(d) == home_real:
            return None
        found = _marker(d)
        if found is not None:
            name, source = found
            if not is_seat_name(name):
                raise SeatError(
                    f"seat name '{name}' from {d} is not a plain name; write a plain name "
                    f"[A-Za-z0-9._-] (not a hail verb) to {d}/.hail-seat"
                )
            return Seat(name, d, source)
        if d.parent == d:
            return None
        d = d.parent


def seat_of(cwd: Path, home: Path | None, env: Mapping[str, str]) -> Seat | None:
    """The directory's seat, else HAIL_SEAT (never consulted when the directory names one)."""
    found = find_seat(cwd, home)
    if found is not None:
        return found
    value = env.get("HAIL_SEAT", "")
    if not value:
        return None
    if not is_seat_name(value):
        raise SeatError(f"HAIL_SEAT={value} is not a plain seat name")
    return Seat(value, cwd, "HAIL_SEAT (no workspace here)")


def no_seat_error(cwd: Path) -> SeatError:
    return SeatError(
        f"no seat here: {cwd} is not in a jj workspace or git repo; run hail from your workspace, "
        "or add a .hail-seat file naming it"
    )


def _real(p: Path) -> Path:
    try:
        return p.resolve()
    except OSError:
        return p


# --- addresses [§1.3] ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Addr:
    """A parsed target. Exactly one of the shapes is set:

    - `seat` alone: a seat's mailbox;
    - `seat` + `pane` with `sub=True`: the sub-seat `seat@%N`;
    - `seat` + `pane` with `sub=False`: the pane `%N`, checked to be in `seat` (`seat/%N`);
    - `pane_target` alone: a tmux pane target (`%N`, `session:window.pane`, all digits).
    """

    seat: str = ""
    pane: str = ""
    sub: bool = False
    pane_target: str = ""

    @property
    def mailbox(self) -> str:
        """The mailbox name for seat and sub-seat forms."""
        return f"{self.seat}@{self.pane}" if self.sub else self.seat


def _bad_target(arg: str) -> UsageError:
    return UsageError(f"'{arg}' is not a seat, sub-seat or pane; hail seats lists them")


def looks_like_pane_target(text: str) -> bool:
    return is_pane_id(text) or ":" in text or text.isdigit()


def parse_target(arg: str) -> Addr:
    """Split on the first `/`, then each side on `@`; every part must be one safe name."""
    if not arg or "\0" in arg:
        raise _bad_target(arg)
    left, slash, right = arg.partition("/")
    if slash:
        if "/" in right or "@" in right or "@" in left:
            raise _bad_target(arg)
        if not is_plain_name(left) or not right:
            raise _bad_target(arg)
        if right.startswith("%"):
            if not is_pane_id(right):
                raise _bad_target(arg)
            return Addr(seat=left, pane=right)
        if is_plain_name(right):
            raise UsageError(
                f"{arg}: sub-agent addresses are not supported; send to {left} and name the "
                "sub-agent in the headline"
            )
        raise _bad_target(arg)
    seat_part, at, pane_part = left.partition("@")
    if at:
        if not is_plain_name(seat_part) or not is_pane_id(pane_part):
            raise _bad_target(arg)
        return Addr(seat=seat_part, pane=pane_part, sub=True)
    if is_pane_id(arg) or arg.isdigit():
        return Addr(pane_target=arg)
    if ":" in arg:
        # session:window.pane: tmux resolves it; refuse only what could never be one.
        if any(c.isspace() for c in arg):
            raise _bad_target(arg)
        return Addr(pane_target=arg)
    if arg.startswith("%") or not is_plain_name(arg):
        raise _bad_target(arg)
    return Addr(seat=arg)


def parse_mailbox(text: str) -> tuple[str, str] | None:
    """`seat` or `seat@%N` as (seat, pane or ""), or None when it is not a mailbox name."""
    seat_part, at, pane_part = text.partition("@")
    if not is_plain_name(seat_part):
        return None
    if at and not is_pane_id(pane_part):
        return None
    return seat_part, pane_part
