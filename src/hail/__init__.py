"""hail: messages between coding agents that share one machine and one tmux server."""

from __future__ import annotations

import time as _time

#: When this process imported hail, on the monotonic clock (ns): the earliest start of its own a
#: process can read where the system does not say it (the Stop guard's, `hooks/stop.py`).
IMPORTED_NS = _time.monotonic_ns()

#: The one place the version is written: the package metadata (hatch) and Nix (nix/version.nix)
#: read it here, and CHANGELOG.md names it.
__version__ = "0.7.0"
