"""How a send would reach an agent now, as `hail seats`, `hail watch` and `hail doctor` show it
[docs/transport.md "Routes"]: its native route's word between turns (`wake`, `queue`, `plugin`),
`hooks` while a turn runs (its PostToolUse and Stop hooks carry the mail), else `type` (into an
idle, empty composer).
"""

from __future__ import annotations

from hail.transport.routes import registry
from hail.transport.routes.base import HOOKS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.transport.panes import Pane


class Status:
    """The route's word (`word`), what `hail seats` shows (`shown`: the word, or a session's more
    exact one, such as `queue-10s`), and whether it reaches the agent without typing."""

    __slots__ = ("native", "shown", "word")

    def __init__(self, word: str, shown: str = "", *, native: bool = True) -> None:
        self.word = word
        self.shown = shown or word
        self.native = native

    def __repr__(self) -> str:
        return f"Status({self.word!r}, {self.shown!r})"


def status(ctx: Ctx, pane: Pane, mailbox: str) -> Status:
    """How a send to `mailbox` would wake the agent in `pane` now."""
    route = registry.of_agent(pane.agent)
    found = route.find(ctx, pane, mailbox) if route.native else None
    if found is None:
        typing = registry.get(registry.TYPING)
        return Status(typing.shown, native=False)
    if not route.wakes_itself and not found.between_turns(ctx, mailbox):
        return Status(HOOKS)
    return Status(route.shown, found.shown(ctx))
