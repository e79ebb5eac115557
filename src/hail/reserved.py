"""The two targets no seat can be named [docs/seats.md "The person"]: `person`, the person's seat
(a mailbox no directory names, read and written only with `hail --as person`, never typed into),
and `all`, every seat at once (a broadcast, docs/commands.md "Broadcast"). Pure, with no imports:
the hook path's frames ask whether a message is the person's, and its seat check whether a name is
a verb's, without loading the verb table.
"""

from __future__ import annotations

PERSON = "person"
ALL = "all"
NAMES = (PERSON, ALL)
#: hail's verbs and the removed spellings it still answers (`argv.VERB`, `argv.REMOVED`): `hail
#: <name> …` would run the verb, so none names a seat. Written out here, not read from the verb
#: table: a seat named after its git root is checked on every hook call, which never needs the
#: table (tests/unit/test_person.py holds the two equal).
VERB_WORDS = frozenset(
    (
        *("await", "brief", "deliver", "demo", "doctor", "gc", "help", "inbox", "keys"),
        *("listen", "nudge", "read", "remote-peer", "seats", "send", "sent", "setup", "show"),
        *("type", "version", "watch", "whoami"),
        *("hello", "id", "list", "message", "migrate", "msg", "name", "note", "resolve", "who"),
    )
)


def is_persons(address: str) -> bool:
    """Whether a `from:` or `reply:` value names the person: here (`person`) or on another machine
    (`person@<host>`)."""
    return address == PERSON or address.startswith(PERSON + "@")
