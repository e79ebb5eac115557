"""What the state keeps of other machines [docs/files.md "Other machines"]:

- `remote/<id>.md`: a message this machine sent to another one, as it was sent (headers, with
  `to: <mailbox>@<host>`, and the body), so `sent`, `show`, `await --reply` and the wait records
  know it; its `ids/<id>` link names `<mailbox>@<host>`, which no local mailbox can be.
- `held/<host>/<id>`: a reply to an ask from `<host>` that this machine could not push there,
  kept as the request that would have carried it until that machine fetches it.

Filesystem only.
"""

from __future__ import annotations

import os

from hail import ids
from hail.store import fs
from hail.store.message import Message, parse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.store.store import Store


def sent_dir(store: Store) -> str:
    return os.path.join(store.root, "remote")


def sent_path(store: Store, msg_id: str) -> str:
    return os.path.join(sent_dir(store), f"{msg_id}.md")


def record_sent(store: Store, msg_id: str, text: str) -> None:
    fs.make_dirs(sent_dir(store))
    fs.write_atomic(sent_path(store, msg_id), text, sync=True)


def forget_sent(store: Store, msg_id: str) -> None:
    """A send that never reached the far side: its record and its id go."""
    fs.remove_quietly(sent_path(store, msg_id))
    fs.remove_quietly(store.id_path(msg_id))


def sent(store: Store, msg_id: str) -> Message | None:
    """The message sent to another machine under this id, or None."""
    if not ids.is_valid_user_id(msg_id):
        return None
    text = fs.read_text(sent_path(store, msg_id))
    return parse(text) if text is not None else None


def split_address(address: str) -> tuple[str, str]:
    """`<mailbox>@<host>` as (mailbox, host); a local mailbox gives (mailbox, "")."""
    head, at, host = address.rpartition("@")
    if not at or host.startswith("%"):
        return address, ""
    return head, host


def open_asks(store: Store, now: float, within: float) -> dict[str, list[str]]:
    """Asks sent to other machines within `within` seconds that have no reply here yet, by host."""
    from hail.store.conversation import replies_of

    out: dict[str, list[str]] = {}
    where = sent_dir(store)
    for name in fs.list_names(where):
        msg_id = name[:-3] if name.endswith(".md") else ""
        t = fs.mtime(os.path.join(where, name))
        if not msg_id or t is None or now - t > within or replies_of(store, msg_id):
            continue
        msg = sent(store, msg_id)
        if msg is not None and msg.kind == "ask":
            host = split_address(msg.get("to"))[1]
            if host:
                out.setdefault(host, []).append(msg_id)
    return out


# --- replies kept for a machine that cannot be reached -------------------------------------------


def held_dir(store: Store, host: str) -> str:
    return os.path.join(store.root, "held", host)


def hold(store: Store, host: str, msg_id: str, request: str) -> None:
    fs.make_dirs(held_dir(store, host))
    fs.write_atomic(os.path.join(held_dir(store, host), msg_id), request, sync=True)


def held(store: Store, host: str) -> list[tuple[str, str]]:
    """(id, request) of every reply kept for `host`, oldest id first."""
    where = held_dir(store, host)
    out = []
    for name in sorted(fs.list_names(where)):
        text = fs.read_text(os.path.join(where, name)) if ids.is_message_id(name) else None
        if text is not None:
            out.append((name, text))
    return out


def is_held(store: Store, host: str, msg_id: str) -> bool:
    return os.path.exists(os.path.join(held_dir(store, host), msg_id))


def release(store: Store, host: str, msg_ids: list[str]) -> None:
    """Forget what `host` fetched and filed."""
    for msg_id in msg_ids:
        if ids.is_message_id(msg_id):
            fs.remove_quietly(os.path.join(held_dir(store, host), msg_id))


def reserve_given(store: Store, mailbox: str, msg_id: str) -> bool:
    """Reserve an id a sender on another machine chose; False when this state already holds it."""
    fs.make_dirs(store.ids)
    try:
        os.symlink(mailbox, store.id_path(msg_id))
    except FileExistsError:
        return False
    return True
