"""Identity from the working directory, and the address grammar [docs/seats.md
"Seat of a directory"].

A seat is named by the nearest directory carrying `.hail-seat`, `.jj` or `.git`, never by the process
tree, an inherited TMUX_PANE or a harness variable: those named the wrong pane in practice.
Filesystem only; on the hook path, so no `re`, `pathlib` or `dataclasses`.
"""

from __future__ import annotations

import os

from hail.errors import SeatError, UsageError
from hail.reserved import ALL, NAMES, PERSON, VERB_WORDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: The source of the person's seat, as `whoami` shows it.
PERSON_SOURCE = "--as person"

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def is_plain_name(name: str) -> bool:
    """Letters, digits, `.`, `_`, `-`; not `.` or `..`."""
    return bool(name) and set(name) <= _NAME_CHARS and name not in (".", "..")


def is_seat_name(name: str) -> bool:
    """A plain name that is not a hail verb or removed spelling (`hail <name> …` would run the
    verb), nor `person` or `all` (a directory that named either would speak as the person or as
    every seat)."""
    return is_plain_name(name) and name not in VERB_WORDS and name not in NAMES


def is_host_name(text: str) -> bool:
    """What `<seat>@<host>` may name: a plain name not starting with `-` (ssh would read an option)
    or `%` (a pane id); no `@`, since a user name belongs in the ssh config."""
    return is_plain_name(text) and text[0] not in "-%"


def is_pane_id(text: str) -> bool:
    """`%` and digits."""
    return len(text) > 1 and text[0] == "%" and text[1:].isdigit() and text[1:].isascii()


class Seat:
    """A seat: its name, the directory that names it, and how it was found."""

    __slots__ = ("name", "root", "source")

    def __init__(self, name: str, root: str, source: str) -> None:
        self.name = name
        self.root = root
        self.source = source

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Seat) and (self.name, self.root, self.source) == (
            other.name,
            other.root,
            other.source,
        )

    def __hash__(self) -> int:
        return hash((self.name, self.root, self.source))

    def __repr__(self) -> str:
        return f"Seat({self.name!r}, {self.root!r}, {self.source!r})"

    @property
    def bindable(self) -> bool:
        """HAIL_SEAT seats and the person's have no directory of their own and are never bound."""
        return not self.source.startswith(("HAIL_SEAT", PERSON_SOURCE))

    @property
    def is_person(self) -> bool:
        """The person's seat, taken with `--as person` (no directory or variable gives it)."""
        return self.source == PERSON_SOURCE


def person_seat(cwd: str) -> Seat:
    """The person's seat, for a process `--as person` was given to and allowed."""
    return Seat(PERSON, cwd, PERSON_SOURCE)


def _marker(d: str) -> tuple[str, str] | None:
    """The (name, source) a directory's own marker gives, or None.

    A `.hail-seat` another user owns gives the source `.hail-seat of uid <n>`, never trusted.
    """
    seat_file = os.path.join(d, ".hail-seat")
    if os.path.isfile(seat_file):
        source = ".hail-seat"
        try:
            with open(seat_file, "rb") as f:
                owner = os.fstat(f.fileno()).st_uid
                if owner not in (os.geteuid(), 0):
                    source = f".hail-seat of uid {owner}"
                text = f.read(4096).decode("utf-8", errors="replace").strip()
        except OSError:
            text = ""
        return text, source
    if os.path.isdir(os.path.join(d, ".jj")):
        return os.path.basename(d), "jj workspace root"
    if os.path.lexists(os.path.join(d, ".git")):
        return os.path.basename(d), "git root"
    return None


def find_seat(cwd: str, home: str | None, ignored: list[str] | None = None) -> Seat | None:
    """The nearest marked directory from `cwd` upwards, stopping (exclusive) at $HOME.

    A marker another user could have written (see `trust`) is skipped, and why is appended to
    `ignored` when given. Raises SeatError when the marker names an invalid or reserved seat.
    """
    home_real = os.path.realpath(home) if home else None
    # Resolved once: every parent of a resolved path is resolved too.
    d = os.path.realpath(cwd)
    while True:
        if d == home_real:
            return None
        found = _marker(d)
        if found is not None:
            name, source = found
            why = distrust_of(d, source)
            if why is None:
                if name in (PERSON, ALL):
                    raise SeatError(reserved_name(name, d))
                if not is_seat_name(name):
                    from hail.text import clip_value, one_line  # only to show a bad name

                    raise SeatError(
                        f"seat name '{clip_value(one_line(name), 64)}' from {d} is not a plain "
                        f"name; write a plain name [A-Za-z0-9._-] (not a hail verb) to "
                        f"{d}/.hail-seat"
                    )
                return Seat(name, d, source)
            if ignored is not None:
                ignored.append(f"the {source.split(' of ')[0]} marker of {d} is ignored: {why}")
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def reserved_name(name: str, d: str) -> str:
    return (
        f"seat name '{name}' from {d} is reserved: '{PERSON}' is the person's seat and '{ALL}' "
        f"every seat; write another plain name to {d}/.hail-seat"
    )


def seat_at(path: str, home: str | None) -> Seat | None:
    """The seat a directory works in, as a survey judges a pane's: None where none is, or where a
    bad marker or an unreadable directory stands (which never breaks the survey)."""
    if not path:
        return None
    try:
        return find_seat(path, home)
    except (SeatError, OSError):
        return None


def distrust_of(d: str, source: str) -> str | None:
    """Why a marker found in `d` may be another user's, or None when it is yours."""
    if source.startswith(".hail-seat of uid "):
        return f"the file belongs to uid {source.rsplit(' ', 1)[1]}"
    from hail.trust import marker_distrust

    return marker_distrust(d)


def seat_of(cwd: str, home: str | None, env: Mapping[str, str]) -> Seat | None:
    """The directory's seat, else HAIL_SEAT (never consulted when the directory names one)."""
    found = find_seat(cwd, home)
    if found is not None:
        return found
    value = env.get("HAIL_SEAT", "")
    if not value:
        return None
    if value in (PERSON, ALL):
        raise SeatError(
            f"HAIL_SEAT={value} is reserved: only hail --as person speaks as the person, and "
            f"'{ALL}' is every seat; set HAIL_SEAT to another name"
        )
    if not is_seat_name(value):
        raise SeatError(f"HAIL_SEAT={value} is not a plain seat name")
    return Seat(value, cwd, "HAIL_SEAT (no workspace here)")


def no_seat_error(cwd: str) -> SeatError:
    return SeatError(
        f"no seat here: {cwd} is not in a jj workspace or git repo; run hail from your workspace, "
        "or add a .hail-seat file naming it"
    )


# --- addresses ------------------------------------------------------------------------------------


class Addr:
    """A parsed target. Exactly one of the shapes is set:

    - `seat` alone: a seat's mailbox;
    - `seat` + `pane` with `sub=True`: the sub-seat `seat@%N`;
    - `seat` + `pane` with `sub=False`: the pane `%N`, checked to be in `seat` (`seat/%N`);
    - `pane_target` alone: a tmux pane target (`%N`, `session:window.pane`, all digits);
    - `seat` (with `pane`, `sub=True`: a sub-seat) and `host`: a seat on another machine
      (`seat@host`, `seat@%N@host`) [docs/seats.md "Other machines"].
    """

    __slots__ = ("host", "pane", "pane_target", "seat", "sub")

    def __init__(
        self,
        seat: str = "",
        pane: str = "",
        sub: bool = False,
        pane_target: str = "",
        host: str = "",
    ) -> None:
        self.seat = seat
        self.pane = pane
        self.sub = sub
        self.pane_target = pane_target
        self.host = host

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Addr) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Addr(seat={self.seat!r}, pane={self.pane!r}, sub={self.sub!r}, pane_target={self.pane_target!r}, host={self.host!r})"

    def _key(self) -> tuple[str, str, bool, str, str]:
        return (self.seat, self.pane, self.sub, self.pane_target, self.host)

    @property
    def mailbox(self) -> str:
        """The mailbox name for seat and sub-seat forms."""
        return f"{self.seat}@{self.pane}" if self.sub else self.seat


def _bad_target(arg: str) -> UsageError:
    return UsageError(f"'{arg}' is not a seat, sub-seat or pane; hail seats lists them")


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
        # `seat@%N`, `seat@%N@host` or `seat@host`: a pane id starts with `%`, a host never does.
        if pane_part.startswith("%"):
            pane_part, at_host, host = pane_part.partition("@")
        else:
            pane_part, at_host, host = "", "@", pane_part
        if not is_plain_name(seat_part) or (pane_part and not is_pane_id(pane_part)):
            raise _bad_target(arg)
        if at_host and not is_host_name(host):
            raise _bad_target(arg)
        return Addr(seat=seat_part, pane=pane_part, sub=bool(pane_part), host=host)
    if is_pane_id(arg) or (arg.isdigit() and arg.isascii()):
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
