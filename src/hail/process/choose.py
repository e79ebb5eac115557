"""Which backend answers process questions: `/proc` where this system has a readable one, else
`ps` and `lsof` [docs/transport.md "Processes"].

Chosen by what the system can do, never by its name, so the portable backend runs (and is tested)
on Linux too: `HAIL_PROCESS_BACKEND=portable` (or `proc`) forces one.
"""

from __future__ import annotations

from hail.process import procfs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hail.process.base import Processes

BACKEND_ENV = "HAIL_PROCESS_BACKEND"
PORTABLE = "portable"
PROC = "proc"


def backend(env: Mapping[str, str]) -> Processes:
    """The backend for a process run with `env`: the forced one, else `/proc` when readable."""
    forced = env.get(BACKEND_ENV, "")
    if forced == PROC or (forced != PORTABLE and procfs.readable()):
        return procfs.ProcFs()
    from hail.process.ps import Ps

    return Ps()
