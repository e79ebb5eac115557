"""The state root and what spans mailboxes: the id index, receipts, bindings and the archive lookup.

Layout and formats: docs/files.md "Layout". Only verbs that write call `ensure()`; readers never
create the root.
"""

from __future__ import annotations

import os

from hail import policy
from hail.errors import SeatError, StateError
from hail.seat import Seat, parse_mailbox
from hail.store import fs
from hail.store.maildir import Mailbox

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Literal

    from hail.message import Message
    from hail.store.maildir import How

    #: What `hail sent` answers: claimed (how), still unread in the inbox, or no such message.
    Status = How | Literal["delivered", "unknown"]


def state_root(env: Mapping[str, str]) -> str:
    """`$XDG_STATE_HOME/hail`, else `~/.local/state/hail`, on Linux and macOS alike [docs/files.md
    "State root"].

    The same answer as platformdirs' XDG (Unix) implementation, computed without importing it,
    because this runs on every hook call (DESIGN.md "XDG paths"; a unit test pins the equivalence).
    """
    return _xdg(env, "XDG_STATE_HOME", (".local", "state"))


def config_root(env: Mapping[str, str]) -> str:
    """`$XDG_CONFIG_HOME/hail`, else `~/.config/hail` (its `hosts` file names far hails), by the
    same rule and for the same reason as `state_root`."""
    return _xdg(env, "XDG_CONFIG_HOME", (".config",))


def _xdg(env: Mapping[str, str], variable: str, default: tuple[str, ...]) -> str:
    """platformdirs' Unix rule: the variable unless blank, else its default under HOME."""
    base = env.get(variable, "")
    if not base.strip():
        home = env.get("HOME") or os.path.expanduser("~")
        base = os.path.join(home, *default)
    return os.path.join(base, "hail")


class Receipt:
    """What `hail sent` reports: `how` is injected, read, inline, delivered or unknown."""

    __slots__ = ("how", "mailbox", "path", "time")

    def __init__(
        self, how: Status, time: float | None = None, path: str | None = None, mailbox: str = ""
    ) -> None:
        self.how = how
        self.time = time
        self.path = path
        self.mailbox = mailbox

    def __repr__(self) -> str:
        return f"Receipt({self.how!r}, {self.time!r}, {self.path!r}, {self.mailbox!r})"

    @property
    def received(self) -> bool:
        return self.how not in ("delivered", "unknown")

    def line(self) -> str:
        from hail import ids  # the id rules, off the hook path, which never reads a receipt

        return f"{self.how} {ids.iso(self.time)}" if self.received and self.time else self.how


class Store:
    """The state root. Cheap to build: nothing is read or created until asked."""

    def __init__(self, root: str) -> None:
        j = os.path.join
        self.root = root
        self.seats = j(root, "seats")
        self.ids = j(root, "ids")
        self.holds = j(root, "holds")
        self.lapsed = j(root, "holds", "lapsed")
        self.archive = j(root, "archive")
        self.archive_index = j(root, "archive", "index")
        self.read_marks = j(root, "read")
        self.hook_log = j(root, "hook-errors.log")

    def ensure(self) -> None:
        if not os.path.isdir(self.root):
            fs.make_dirs(self.root)

    def distrust(self, mailboxes: list[str]) -> str | None:
        """Why this state may be another user's to write (the root, its top directories and these
        mailboxes), or None. Another user who can write here can plant or read mail."""
        from hail.trust import state_distrust

        paths = [self.root, self.seats, self.holds]
        for name in mailboxes:
            box = self.mailbox(name)
            paths += [box.path, box.new, box.cur, box.tmp]
        for path in paths:
            why = state_distrust(path)
            if why is not None:
                return why
        return None

    def check_trusted(self, mailboxes: list[str]) -> None:
        """Raise when `distrust` finds a reason: nothing is read or written there."""
        why = self.distrust(mailboxes)
        if why is not None:
            raise StateError(
                f"{why}: hail reads and writes no mail there, since another user could plant or "
                f"read it. If it is yours, run chown -R {os.geteuid()} {self.root} && chmod -R "
                f"go-w {self.root}; else set XDG_STATE_HOME to a directory of your own"
            )

    def mailbox(self, name: str) -> Mailbox:
        return Mailbox(os.path.join(self.seats, name))

    def mailbox_names(self) -> list[str]:
        """Every mailbox directory with a valid name (a symlink or a file in `seats/` is none:
        `hail doctor` names it)."""
        return sorted(n for n in fs.list_dirs(self.seats) if parse_mailbox(n) is not None)

    # --- bindings ---------------------------------------------------------------------------------

    def root_file(self, seat: str) -> str:
        return os.path.join(self.seats, seat, "root")

    def bound_root(self, seat: str) -> str | None:
        # A root is a path: bytes that are not UTF-8 must compare equal to the directory's name.
        text = fs.read_text(self.root_file(seat), errors="surrogateescape")
        return None if text is None else text.rstrip("\n")

    def check_binding(self, seat: Seat) -> None:
        """Raise when another root already holds this name; writes nothing.

        A HAIL_SEAT seat is its working directory: it may name a bound seat only inside that
        seat's root, or any process could read another workspace's mail [docs/seats.md "Binding"].
        """
        bound = self.bound_root(seat.name)
        if bound is None:
            return
        if not seat.bindable:
            here = os.path.realpath(seat.root)
            if here != bound and not here.startswith(bound.rstrip("/") + "/"):
                raise SeatError(
                    f"HAIL_SEAT={seat.name} names seat {seat.name}, which is bound to {bound}, and "
                    f"{here} is not in it: run hail from {bound}, or set HAIL_SEAT to a name no "
                    "directory holds"
                )
        elif bound != seat.root:
            raise SeatError(
                f"seat {seat.name} is bound to {bound}; add .hail-seat with another name in {seat.root}"
            )

    def bind(self, seat: Seat) -> None:
        """Record the seat's root on first use; refuse a second root under the same name. A
        HAIL_SEAT seat is only checked: it writes nothing."""
        if not seat.bindable:
            self.check_binding(seat)
            return
        bound = self.bound_root(seat.name)
        if bound is None:
            fs.make_dirs(os.path.join(self.seats, seat.name))
            fs.write_atomic(self.root_file(seat.name), f"{seat.root}\n")
        elif bound != seat.root:
            self.check_binding(seat)

    # --- ids --------------------------------------------------------------------------------------

    def id_path(self, msg_id: str) -> str:
        return os.path.join(self.ids, msg_id)

    def reserve_id(self, mailbox: str, now: float) -> str:
        """An id no other message has: its `ids/<id>` link is created exclusively."""
        from hail import ids

        fs.make_dirs(self.ids)
        stamp = ids.stamp(now)
        for _ in range(policy.ID_ATTEMPTS):
            msg_id = ids.draw(stamp)
            try:
                os.symlink(mailbox, self.id_path(msg_id))
            except FileExistsError:
                continue
            return msg_id
        raise StateError(f"could not reserve a message id in {self.ids}")

    def lookup(self, msg_id: str) -> str | None:
        """The mailbox the id was sent to (one readlink), or None."""
        try:
            target = os.readlink(self.id_path(msg_id))
        except OSError:
            return None
        return target if parse_mailbox(target) is not None else None

    # --- receipts ---------------------------------------------------------------------------------

    def status(self, msg_id: str, *, archive: bool = True) -> Receipt:
        """The receipt of an id: index, then at most four stats; the archive only on a miss."""
        from hail import ids

        if not ids.is_valid_user_id(msg_id):
            return Receipt("unknown")
        mailbox = self.lookup(msg_id)
        if mailbox is not None:
            found = receipt_in(self.mailbox(mailbox), msg_id)
            if found is not None:
                return found
        if archive:
            archived = self.archived_mailbox(msg_id)
            if archived is not None:
                found = receipt_in(archived, msg_id)
                if found is not None:
                    return found
        return Receipt("unknown")

    def archived_mailbox(self, msg_id: str) -> Mailbox | None:
        """The archive directory holding an id, from `archive/index` (last entry wins)."""
        text = fs.read_text(self.archive_index)
        if not text:
            return None
        found: Mailbox | None = None
        prefix = msg_id + " "
        for line in text.split("\n"):
            if line.startswith(prefix):
                parts = line.split(" ")
                if len(parts) == 3 and parse_mailbox(parts[2]) is not None and _is_month(parts[1]):
                    found = Mailbox(os.path.join(self.archive, parts[1], parts[2]))
        return found

    def find(self, msg_id: str) -> tuple[Message, Receipt] | None:
        """A message by id, wherever it is (mailbox, then archive), with its receipt."""
        receipt = self.status(msg_id)
        if receipt.path is None:
            from hail.store import remote

            sent = remote.sent(self.root, msg_id)  # sent to another machine: its copy as sent
            return None if sent is None else (sent, Receipt("delivered", mailbox=sent.get("to")))
        text = fs.read_text(receipt.path)
        if text is None:
            return None
        from hail.message import parse  # not on the hooks' path, which never finds

        return parse(text), receipt


def _is_month(text: str) -> bool:
    return len(text) == 7 and text[4] == "-" and text[:4].isdigit() and text[5:].isdigit()


def receipt_in(box: Mailbox, msg_id: str) -> Receipt | None:
    """The id's receipt in one mailbox: how it was claimed, `delivered` while it lies unread in
    `new/`, or None when the mailbox does not hold it. At most four stats."""
    claimed = box.receipt_of(msg_id)
    if claimed is not None:
        how, t, path = claimed
        return Receipt(how, t, path, box.name)
    new = os.path.join(box.new, f"{msg_id}.md")
    if os.path.exists(new):
        return Receipt("delivered", None, new, box.name)
    return None
