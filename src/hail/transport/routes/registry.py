"""The wake routes, written once, and each route by name [docs/transport.md "Routes"].

`NAMES` is the one list of routes. `get` imports only the module asked for
(`hail.transport.routes.<name>`, holding its `ROUTE`), so a send loads the route of its recipient's
harness and no other; `of_agent` is the route a pane's agent takes (typing for an agent hail has
no record of).
"""

from __future__ import annotations

from hail.harnesses import registry as harnesses

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.transport.routes.base import Route

#: Every route: each is a module of this package holding its `ROUTE`. The native ones come first,
#: in the order a send asks hail's records for them; `composer` (typing) is the fallback.
NAMES = ("waiter", "queue", "plugin", "door", "composer")
#: The route of an agent hail knows only by its process (HAIL_AGENT_COMMANDS), and the fallback.
TYPING = "composer"


def get(name: str) -> Route:
    """The route `name`; KeyError for a name hail does not know."""
    if name not in NAMES:
        raise KeyError(name)
    module = __import__(f"hail.transport.routes.{name}", fromlist=["ROUTE"])
    found: Route = module.ROUTE
    return found


def of_agent(agent: str | None) -> Route:
    """The route a send takes to a pane's agent: its harness's, else typing."""
    if agent in harnesses.NAMES:
        return get(harnesses.get(agent).route)
    return get(TYPING)


def native() -> tuple[Route, ...]:
    """The routes that reach a session without typing, in `NAMES`' order."""
    return tuple(r for r in (get(n) for n in NAMES) if r.native)
