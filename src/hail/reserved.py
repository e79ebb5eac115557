"""The two targets no seat can be named [docs/seats.md "The person"]: `person`, the person's seat
(a mailbox no directory names, read and written only with `hail --as person`, never typed into),
and `all`, every seat at once (a broadcast, docs/commands.md "Broadcast"). Pure, with no imports:
the hook path's frames ask whether a message is the person's without loading the verb table.
"""

from __future__ import annotations

PERSON = "person"
ALL = "all"
NAMES = (PERSON, ALL)


def is_persons(address: str) -> bool:
    """Whether a `from:` or `reply:` value names the person: here (`person`) or on another machine
    (`person@<host>`)."""
    return address == PERSON or address.startswith(PERSON + "@")
