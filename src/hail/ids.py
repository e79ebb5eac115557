"""Message ids `MMDDTHHMMSS-xxxx` [SPEC §2]: a UTC timestamp and 16 random bits.

Uniqueness is not this module's job: the store reserves each id with an exclusive symlink.
"""

from __future__ import annotations

import os
import re
import time

ID_RE = re.compile(r"^[0-9]{4}T[0-9]{6}-[0-9a-f]{4}$")


def stamp(now: float) -> str:
    """The timestamp part of an id sent at `now` (Unix seconds)."""
    return time.strftime("%m%dT%H%M%S", time.gmtime(now))


def draw(stamp_text: str) -> str:
    """A fresh id for `stamp_text` with a random suffix."""
    return f"{stamp_text}-{os.urandom(2).hex()}"


def is_valid_user_id(text: str) -> bool:
    """Ids accepted from users: any name that cannot leave the ids directory (older shapes included)."""
    return bool(text) and text not in (".", "..") and "/" not in text and "\0" not in text


def iso(t: float) -> str:
    """UTC, second precision: `YYYY-MM-DDTHH:MM:SSZ` [§0.3]."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def parse_iso(text: str) -> float | None:
    """The Unix time of an `iso()` string, or None when it is not one."""
    import calendar

    try:
        return float(calendar.timegm(time.strptime(text.strip(), "%Y-%m-%dT%H:%M:%SZ")))
    except ValueError:
        return None
