"""The Stop hook's loop guard: an agent goes on with mail at most `STOP_BLOCKS_MAX` times in a row.

`hail deliver --event Stop` claims unread mail and returns it as `{"decision":"block","reason":…}`,
which both harnesses read as "continue the turn with this". It only blocks for mail it has just
claimed, and a streak of blocks ends the first time a Stop does not block (no mail, or the cap): the
agent then really ends its turn. The streak is one small file per mailbox, `stop-blocks`, holding
the session id (from the hook payload; a Stop that got none in time continues the streak it finds)
and the count; written only when a Stop blocks, removed when one does not. Plain os calls and byte
searches: no json on the hook path [docs/hooks.md "Stop"].
"""

from __future__ import annotations

import os

from hail import policy
from hail.store import fs

FILE = "stop-blocks"
#: The session of a Stop that got no payload in time.
UNKNOWN = "-"


def session_of(payload: bytes) -> str:
    """The payload's `session_id` string, or "" (no payload came in time, or it names none)."""
    at = payload.find(b'"session_id"')
    if at < 0:
        return ""
    rest = payload[at + len(b'"session_id"') :].lstrip(b" \t\r\n")
    if rest[:1] != b":":
        return ""
    rest = rest[1:].lstrip(b" \t\r\n")
    if rest[:1] != b'"':
        return ""
    end = rest.find(b'"', 1)
    value = rest[1:end] if end > 0 else b""
    # A session id is a UUID: anything else is not used as a key.
    text = value.decode("ascii", errors="replace")
    return text if text and len(text) <= 64 and text.replace("-", "").isalnum() else ""


class StopGuard:
    """The streak of Stop blocks of one mailbox."""

    __slots__ = ("count", "path", "session")

    def __init__(self, mailbox_dir: str, payload: bytes) -> None:
        self.path = os.path.join(mailbox_dir, FILE)
        self.session = session_of(payload) or UNKNOWN
        self.count = 0
        saved = (fs.read_text(self.path) or "").split()
        if len(saved) != 2 or not saved[1].isdigit():
            return
        # A Stop that got no payload in time names no session: the streak goes on (the safe side),
        # or a harness slower than the wait would reset the count.
        if UNKNOWN in (saved[0], self.session) or saved[0] == self.session:
            self.count = int(saved[1])
            if self.session == UNKNOWN:
                self.session = saved[0]

    def may_block(self) -> bool:
        return self.count < policy.STOP_BLOCKS_MAX

    def blocked(self) -> None:
        """This Stop made the agent go on: one more in the streak."""
        fs.write_atomic(self.path, f"{self.session} {self.count + 1}\n")

    def ended(self) -> None:
        """This Stop lets the turn end: the next block starts a new streak."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
