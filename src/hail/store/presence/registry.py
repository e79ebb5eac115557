"""The records hail's hooks write for a route, found by the route's name [docs/transport.md
"Routes"]: the prompt hook of a harness whose route is named here records its session in that
route's module of this package (`note`), so a send can wake it with no tmux call. A route missing
here records nothing from `hail deliver` (the waiter writes its own record; typing needs none).

Only the module of the route asked for is imported: a hook loads its own route's record and
nothing else.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hail.store.presence.base import Hook

    Note = Callable[[Hook, str, str, bytes], None]

#: The routes whose sessions hail's prompt hook records, each a module of this package.
RECORDED_BY_HOOKS = ("queue", "plugin", "door")


def note_of(route: str) -> Note | None:
    """The route's record-keeping for `hail deliver`, or None when its hooks record nothing."""
    if route not in RECORDED_BY_HOOKS:
        return None
    module = __import__(f"hail.store.presence.{route}", fromlist=["note"])
    note: Note = module.note
    return note
