"""What the state keeps of other machines [docs/files.md "Other machines"]:

- `remote/<id>.md`: a message this machine sent to another one, as it was sent (headers, with
  `to: <mailbox>@<host>`, and the body), so `sent`, `show`, `await --reply` and the wait records
  know it; its `ids/<id>` link names `<mailbox>@<host>`, which no local mailbox can be.
- `held/<host>/<id>`: a reply to an ask from `<host>` that this machine could not push there,
  kept as the request that would have carried it until that machine fetches it.
- `remote/unreachable/<host>`: when `inbox` last failed to reach `<host>` (its mtime), so the next
  `inbox` within REMOTE_RETRY_SECONDS does not wait out another connect timeout.
- `remote/seats/<host>`: the seat rows `hail seats @<host>` last got from `<host>` (JSON, checked
  and made clean as they were read), for `hail watch` to show; its mtime is when.

Filesystem only.
"""

from __future__ import annotations

import os

from hail import ids, policy
from hail.errors import HailError
from hail.message import Message, parse
from hail.store import fs
from hail.text import clip_value, printable_line


class AlreadyFiled(HailError):
    """The id a far sender chose is already filed here: its first copy landed."""


def sent_dir(root: str) -> str:
    return os.path.join(root, "remote")


def sent_path(root: str, msg_id: str) -> str:
    return os.path.join(sent_dir(root), f"{msg_id}.md")


def record_sent(root: str, msg_id: str, text: str) -> None:
    fs.make_dirs(sent_dir(root))
    fs.write_atomic(sent_path(root, msg_id), text, sync=True)


def forget_sent(root: str, msg_id: str) -> None:
    """A send that never reached the far side: its record and its id go."""
    fs.remove_quietly(sent_path(root, msg_id))
    fs.remove_quietly(os.path.join(root, "ids", msg_id))


def sent(root: str, msg_id: str) -> Message | None:
    """The message sent to another machine under this id, or None."""
    if not ids.is_valid_user_id(msg_id):
        return None
    text = fs.read_text(sent_path(root, msg_id))
    return parse(text) if text is not None else None


def receipt_line(text: str) -> str:
    """A far machine's receipt as every other peer text is kept and shown: one line with no
    control or format character, clipped to FRAME_VALUE_MAX."""
    return clip_value(printable_line(text), policy.FRAME_VALUE_MAX)


def note_receipt(root: str, msg_id: str, line: str) -> None:
    """What the far machine last answered for `hail sent <id>`, for `hail watch` to show."""
    if os.path.exists(sent_path(root, msg_id)):
        fs.write_atomic(
            os.path.join(sent_dir(root), f"{msg_id}.receipt"), f"{receipt_line(line)}\n"
        )


def last_receipt(root: str, msg_id: str) -> str:
    """The far machine's last answer for the id, as `note_receipt` kept it (made clean again: the
    file may be older than that rule); "" when never asked."""
    text = fs.read_text(os.path.join(sent_dir(root), f"{msg_id}.receipt"))
    return receipt_line(text) if text else ""


def sent_ids(root: str) -> list[str]:
    """Ids of the messages sent from here to other machines, newest first."""
    names = fs.list_names(sent_dir(root))
    return sorted((n[:-3] for n in names if n.endswith(".md")), reverse=True)


def sweep_sent(root: str, cutoff: float) -> int:
    """Remove the copies of messages sent to other machines before `cutoff` (gc), with their last
    receipts and ids; the count removed."""
    removed = 0
    where = sent_dir(root)
    for name in fs.list_names(where):
        t = fs.mtime(os.path.join(where, name))
        if not name.endswith(".md") or t is None or t >= cutoff:
            continue
        forget_sent(root, name[:-3])
        fs.remove_quietly(os.path.join(where, f"{name[:-3]}.receipt"))
        removed += 1
    return removed


def split_address(address: str) -> tuple[str, str]:
    """`<mailbox>@<host>` as (mailbox, host); a local mailbox gives (mailbox, "")."""
    head, at, host = address.rpartition("@")
    if not at or host.startswith("%"):
        return address, ""
    return head, host


# --- replies kept for a machine that cannot be reached -------------------------------------------


def held_dir(root: str, host: str) -> str:
    return os.path.join(root, "held", host)


def hold(root: str, host: str, msg_id: str, request: str) -> None:
    fs.make_dirs(held_dir(root, host))
    fs.write_atomic(os.path.join(held_dir(root, host), msg_id), request, sync=True)


def held(root: str, host: str) -> list[tuple[str, str]]:
    """(id, request) of every reply kept for `host`, oldest id first."""
    where = held_dir(root, host)
    out = []
    for name in sorted(fs.list_names(where)):
        text = fs.read_text(os.path.join(where, name)) if ids.is_message_id(name) else None
        if text is not None:
            out.append((name, text))
    return out


def is_held(root: str, host: str, msg_id: str) -> bool:
    return os.path.exists(os.path.join(held_dir(root, host), msg_id))


def release(root: str, host: str, msg_ids: list[str]) -> None:
    """Forget what `host` fetched and filed."""
    for msg_id in msg_ids:
        if ids.is_message_id(msg_id):
            fs.remove_quietly(os.path.join(held_dir(root, host), msg_id))


def reserve_given(root: str, mailbox: str, msg_id: str) -> str:
    """Reserve an id a sender on another machine chose; AlreadyFiled when this state holds it."""
    fs.make_dirs(os.path.join(root, "ids"))
    try:
        os.symlink(mailbox, os.path.join(root, "ids", msg_id))
    except FileExistsError:
        raise AlreadyFiled(f"{msg_id} is already filed here") from None
    return msg_id


def _unreachable_path(root: str, host: str) -> str | None:
    if not host or "/" in host or host.startswith("."):
        return None
    return os.path.join(sent_dir(root), "unreachable", host)


def note_unreachable(root: str, host: str, reached: bool) -> None:
    """Keep (or clear, once reached) the time `host` was last out of reach."""
    path = _unreachable_path(root, host)
    if path is None:
        return
    if reached:
        fs.remove_quietly(path)
        return
    fs.make_dirs(os.path.dirname(path))
    fs.write_atomic(path, "")


def unreachable_since(root: str, host: str) -> float | None:
    """When `host` was last found out of reach, or None."""
    path = _unreachable_path(root, host)
    return fs.mtime(path) if path is not None else None


# --- another machine's seats, as `seats @<host>` last saw them ----------------------------------


def _seats_path(root: str, host: str) -> str | None:
    if not host or "/" in host or host.startswith("."):
        return None
    return os.path.join(sent_dir(root), "seats", host)


def note_seats(root: str, host: str, rows: str) -> None:
    """Keep the seat rows `host` answered (checked JSON text), for `hail watch`."""
    path = _seats_path(root, host)
    if path is not None:
        fs.make_dirs(os.path.dirname(path))
        fs.write_atomic(path, rows)


def far_seats(root: str) -> list[tuple[str, float, str]]:
    """(host, when, rows as JSON text) of every machine whose seats were kept, by host."""
    where = os.path.join(sent_dir(root), "seats")
    out = []
    for host in sorted(fs.list_names(where)):
        path = _seats_path(root, host)
        when = fs.mtime(path) if path is not None else None
        text = fs.read_text(path) if path is not None else None
        if when is not None and text is not None:
            out.append((host, when, text))
    return out
