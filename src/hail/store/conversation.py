"""Conversations in the state: which messages answer which ask, and how long a chain of replies has
run since a person last prompted [docs/conversations.md "Replies", "Loop guard"].

- `replies/<ask id>/<reply id>` is a link whose target is the mailbox the reply went to, written
  right after the reply is filed, for replies only (from the seat the ask went to, to the seat that
  asked): `sent` and `await --reply` find an ask's replies with one listing.
- A message sent with `--re` carries `chain: <n>`, its place in a chain of replies; a person's
  prompt in the pane of either party (the `prompted` mark a prompt hook leaves in its mailbox:
  `Mailbox.mark_prompted`) starts the count again. The count comes from headers and hook payloads only, never from a pane.

Filesystem only, and cheap: `sent` calls `replies_of`.
"""

from __future__ import annotations

import os

from hail import ids, policy
from hail.seat import parse_mailbox
from hail.store import fs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.message import Message
    from hail.store.store import Store

#: The header that carries a message's place in its chain of replies.
CHAIN_HEADER = "chain"
#: Kinds that a chain past the cap keeps from waking anyone. The control kinds are a person's
#: decisions and are typed in full; they are not how two agents talk each other into a loop.
CAPPED_KINDS = ("ask", "fyi")


def replies_dir(store: Store, ask_id: str) -> str:
    return os.path.join(store.root, "replies", ask_id)


def record_reply(store: Store, ask_id: str, reply_id: str, mailbox: str) -> None:
    """Index a filed reply under the message it answers; the id and mailbox were checked."""
    where = replies_dir(store, ask_id)
    fs.make_dirs(where)
    try:
        os.symlink(mailbox, os.path.join(where, reply_id))
    except FileExistsError:
        pass


def replies_of(store: Store, ask_id: str) -> list[tuple[str, str]]:
    """(reply id, mailbox) of every indexed reply to `ask_id`, oldest first; [] for none."""
    if not ids.is_valid_user_id(ask_id):
        return []
    where = replies_dir(store, ask_id)
    found: list[tuple[int, str, str]] = []
    for name in fs.list_names(where):
        if not ids.is_valid_user_id(name):
            continue
        path = os.path.join(where, name)
        try:
            target = os.readlink(path)
            filed = os.lstat(path).st_mtime_ns  # ids of one second do not sort by time
        except OSError:
            continue
        if parse_mailbox(target) is not None:
            found.append((filed, name, target))
    return [(name, target) for _, name, target in sorted(found)]


def replies_in_seat(store: Store, ask_id: str, seat: str) -> list[tuple[str, str]]:
    """(reply id, mailbox) of the replies to `ask_id` that went to a mailbox of `seat`."""
    return [
        (reply_id, box)
        for reply_id, box in replies_of(store, ask_id)
        if seat_of_mailbox(box) == seat and store.lookup(reply_id) == box
    ]


def sweep_replies(store: Store, cutoff: float) -> None:
    """Remove reply links filed before `cutoff` (gc), and the folders they leave empty."""
    root = os.path.join(store.root, "replies")
    for ask_id in fs.list_names(root):
        where = os.path.join(root, ask_id)
        for name in fs.list_names(where):
            path = os.path.join(where, name)
            try:
                if os.lstat(path).st_mtime < cutoff:
                    os.unlink(path)
            except OSError:
                continue
        try:
            os.rmdir(where)  # only when empty
        except OSError:
            pass


def seat_of_mailbox(mailbox: str) -> str:
    """`seat@%N` → `seat`; a seat's own mailbox is itself. A seat on another machine keeps its
    host: `seat@%N@host` → `seat@host`, never a local seat."""
    seat, _, rest = mailbox.partition("@")
    if rest.startswith("%"):
        rest = rest.partition("@")[2]
    return f"{seat}@{rest}" if rest else seat


# --- a send's place in its conversation ----------------------------------------------------------


class Thread:
    """What `--re` makes of a send: whether it answers the recipient's ask, and its chain."""

    __slots__ = ("chain", "is_reply", "parent")

    def __init__(self, parent: Message | None, is_reply: bool, chain: int) -> None:
        self.parent = parent
        self.is_reply = is_reply
        self.chain = chain

    def capped(self, kind: str) -> bool:
        """Past the cap, the message is filed but wakes nobody."""
        return kind in CAPPED_KINDS and self.chain > policy.REPLY_CHAIN_MAX

    def headers(self) -> dict[str, str]:
        return {CHAIN_HEADER: str(self.chain)} if self.chain else {}


def chain_of(msg: Message) -> int:
    value = msg.get(CHAIN_HEADER)
    return int(value) if value.isascii() and value.isdigit() else 0


def thread_of(store: Store, re_id: str | None, sender: str, recipient: str) -> Thread:
    """The thread a send joins. `sender` and `recipient` are mailboxes (`reply:` and target).

    A reply is a message whose `--re` names an ask that the recipient's seat sent, sent from the
    seat that ask went to (any of its mailboxes: a sub-seat answers for its seat). A `--re` from
    any other seat is a comment on the thread: delivered as its kind says, and no answer. The
    chain counts replies to replies; a person's prompt to either party after the message answered
    was sent starts it again at 1.
    """
    if not re_id:
        return Thread(None, False, 0)
    found = store.find(re_id)
    if found is None:
        return Thread(None, False, 0)
    parent, receipt = found
    asker = parent.get("reply")
    is_reply = (
        parent.kind == "ask"
        and seat_of_mailbox(asker) == seat_of_mailbox(recipient)
        and seat_of_mailbox(sender) == seat_of_mailbox(receipt.mailbox)
    )
    sent_at = ids.parse_iso(parent.get("time")) or 0.0
    if any((store.mailbox(m).prompted_at() or 0.0) >= sent_at for m in (sender, recipient)):
        return Thread(parent, is_reply, 1)
    return Thread(parent, is_reply, chain_of(parent) + 1)


def capped_reason(chain: int) -> str:
    return (
        f"it would be reply {chain} in a row with no person's prompt in between; past "
        f"{policy.REPLY_CHAIN_MAX} hail wakes nobody, so agents cannot answer each other forever. "
        "A person's prompt in either pane starts the count again"
    )
