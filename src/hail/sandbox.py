"""Telling a sandbox from a broken install: a state hail may not write, a tmux socket it may not
connect to. Codex runs the model's commands in such a sandbox; hail's rule (`hail setup`) lets a
`hail` command the model runs on its own run outside it.

Only failure paths call this module, so nothing here costs a working send or hook anything.
"""

from __future__ import annotations

import errno

#: How a Codex agent gets `hail` out of the sandbox: the rule, and a command Codex can match.
CODEX_FIX = (
    "in Codex, install hail's rule (hail setup) and run hail as a command of its own, not in a"
    " pipeline, an && chain, a heredoc or bash -lc (a body can follow the headline in the same"
    " quoted argument, on the lines after it)"
)

_DENIED = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


def denied_write(exc: BaseException) -> str | None:
    """The message for a write the system refused (a read-only or forbidden path), else None."""
    if not isinstance(exc, OSError) or exc.errno not in _DENIED:
        return None
    where = exc.filename if exc.filename is not None else "hail's state"
    return (
        f"cannot write {where} ({exc.strerror}): this command may run in a sandbox that keeps it"
        f" from hail's state; {CODEX_FIX}"
    )


def socket_refused(path: str) -> str | None:
    """Why this process cannot talk to the tmux socket at `path` although it exists, else None.

    A sandbox forbids the connection (EPERM or EACCES); a socket nobody listens on refuses it
    (ECONNREFUSED), which is a missing server, not a sandbox.
    """
    import socket

    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(1)
            s.connect(path)
    except PermissionError as e:
        return (
            f"tmux socket {path} exists but this process may not connect to it ({e.strerror}):"
            f" a sandbox? {CODEX_FIX}"
        )
    except OSError:
        return None
    return None
