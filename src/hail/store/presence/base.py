"""Presence: the agent sessions hail can wake without typing, as hail's own hooks saw them
[docs/transport.md "Routes"]. This module holds what every route's records share; each native
route's record is a module of this package named after the route (`waiter`, `queue`, `plugin`),
and `registry` finds the one a hook writes.

Records live under `presence/` as `key: value` lines (docs/files.md "Records"). Each names the
pane its session runs in and that pane's tmux server (`server:`, the socket a hail run there
talks to), so a send can wake it with no tmux call, and refuses a record of another server
(`transport/routes/records.py`).

A process is named by its pid and its start identity (`process/base.py`), so a reused pid never
passes for the process a record names. Plain os calls and string paths, and the record format
loaded only to read or write a record: the waiter and the prompt hook load this.
"""

from __future__ import annotations

import os

from hail.store import fs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from hail.process.base import Processes
    from hail.store.store import Store


class Hook:
    """The hook run a record is written for: its state, the processes it can ask about (asked for
    only when a record needs them: choosing the backend costs an import a record that is already
    current never needs), and its environment (a hook's `Ctx` gives all three)."""

    __slots__ = ("_found", "_procs", "env", "store")

    def __init__(
        self, store: Store, procs: Callable[[], Processes], env: Mapping[str, str]
    ) -> None:
        self.store = store
        self._procs = procs
        self._found: Processes | None = None
        self.env = env

    @property
    def procs(self) -> Processes:
        if self._found is None:
            self._found = self._procs()
        return self._found


def directory(store: Store) -> str:
    return os.path.join(store.root, "presence")


def tmux_server(env: Mapping[str, str]) -> str:
    """The socket of the tmux server this process's pane is in, as a hail run here would talk to it
    (HAIL_SOCKET, else $TMUX's): "" outside tmux, or when no pane is known."""
    if not env.get("TMUX_PANE"):
        return ""
    return env.get("HAIL_SOCKET", "") or env.get("TMUX", "").split(",", 1)[0]


def socket_id(path: str) -> tuple[int, int] | None:
    """A tmux server's socket by device and inode (one server, however its path is spelled);
    None when `path` is no socket."""
    import stat

    try:
        st = os.stat(path) if path else None
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if st is not None and stat.S_ISSOCK(st.st_mode) else None


def number(text: str) -> int:
    """A record's pid field; 0 for anything that is not plain digits."""
    return int(text) if text.isascii() and text.isdigit() else 0


def moment(text: str) -> float:
    """A record's time field; 0.0 when unreadable."""
    try:
        return float(text)
    except ValueError:
        return 0.0


def fields(path: str) -> dict[str, str] | None:
    """A record's fields, or None when there is no record at `path`."""
    text = fs.read_text(path)
    if not text:
        return None
    return fs.parse_record(text)


def render(pairs: list[tuple[str, str]]) -> str:
    from hail.store.records import render_record

    return render_record(pairs)


def names(store: Store, prefix: str) -> list[str]:
    """The paths of the records whose names start with `prefix`."""
    base = directory(store)
    return [os.path.join(base, n) for n in fs.list_names(base) if n.startswith(prefix)]


def write(store: Store, name: str, text: str) -> None:
    fs.make_dirs(directory(store))
    fs.write_atomic(os.path.join(directory(store), name), text)
