"""Message ids `MMDDTHHMMSS-xxxx` [docs/files.md "Message ids"]: a UTC timestamp and 16 random bits,
and ISO times.

Uniqueness is not this module's job: the store reserves each id with an exclusive symlink.
Hook path: no `re`, `calendar` or `datetime` (each costs a large share of an interpreter start).
"""

from __future__ import annotations

import os
import time

_HEX = frozenset("0123456789abcdef")
#: What ids of older versions were made of; any id hail wrote is one short run of these.
_OLD_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
#: Longer than any id hail ever wrote; an id is never a body.
ID_MAX_CHARS = 64


def stamp(now: float) -> str:
    """The timestamp part of an id sent at `now` (Unix seconds)."""
    return time.strftime("%m%dT%H%M%S", time.gmtime(now))


def draw(stamp_text: str) -> str:
    """A fresh id for `stamp_text` with a random suffix."""
    return f"{stamp_text}-{os.urandom(2).hex()}"


def is_new_style(text: str) -> bool:
    """`^[0-9]{4}T[0-9]{6}-[0-9a-f]{4}$`."""
    return (
        len(text) == 16
        and text[:4].isdigit()
        and text[:4].isascii()
        and text[4] == "T"
        and text[5:11].isdigit()
        and text[5:11].isascii()
        and text[11] == "-"
        and set(text[12:]) <= _HEX
    )


def is_valid_user_id(text: str) -> bool:
    """Ids accepted from users: any name that cannot leave the ids directory (older shapes included)."""
    return bool(text) and text not in (".", "..") and "/" not in text and "\0" not in text


def is_message_id(text: str) -> bool:
    """An id hail wrote: this version's shape, or an older one's (letters, digits, `._-`, ≤ 64).

    Stricter than `is_valid_user_id`: this value is written into headers and records and typed
    into panes, so it can never hold a space, a control character or a line break.
    """
    if is_new_style(text):
        return True
    return 0 < len(text) <= ID_MAX_CHARS and set(text) <= _OLD_ID_CHARS and text not in (".", "..")


def iso(t: float) -> str:
    """UTC, second precision: `YYYY-MM-DDTHH:MM:SSZ` [docs/commands.md "Output conventions"]."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def parse_iso(text: str) -> float | None:
    """The Unix time of an `iso()` string (surrounding whitespace ignored), or None when it is not
    one: the fields must be ASCII digits of a real calendar second (no `2026-02-30`, no leap
    second, no year 0), as `datetime` would have them (a unit test compares the two)."""
    s = text.strip()
    if len(s) != 20 or s[4] != "-" or s[7] != "-" or s[10] != "T" or s[13] != ":" or s[16] != ":":
        return None
    if s[19] != "Z":
        return None
    digits = s[0:4] + s[5:7] + s[8:10] + s[11:13] + s[14:16] + s[17:19]
    if not (digits.isdigit() and digits.isascii()):  # int() would take `+1`, ` 1` or `١`
        return None
    y, mo, d = int(s[0:4]), int(s[5:7]), int(s[8:10])
    h, mi, se = int(s[11:13]), int(s[14:16]), int(s[17:19])
    if not (y >= 1 and 1 <= mo <= 12 and 1 <= d <= _days_in_month(y, mo)):
        return None
    if not (h < 24 and mi < 60 and se < 60):
        return None
    return float(_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se)


def _days_in_month(y: int, m: int) -> int:
    if m == 2:
        return 29 if y % 4 == 0 and (y % 100 != 0 or y % 400 == 0) else 28
    return 30 if m in (4, 6, 9, 11) else 31


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468
