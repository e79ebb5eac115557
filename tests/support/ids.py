"""Message ids as hail prints them: `MMDDTHHMMSS-xxxx`."""

from __future__ import annotations

import re

#: One message id (no anchors: embed it in a larger pattern).
ID = r"[0-9]{4}T[0-9]{6}-[0-9a-f]{4}"


def id_of(stdout: str) -> str:
    """The id of a send whose stdout is exactly its `id=<id>` line."""
    found = re.fullmatch(rf"id=({ID})\n", stdout)
    assert found, f"stdout is not one id= line: {stdout!r}"
    return found.group(1)
