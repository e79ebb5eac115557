"""The plugin (opencode) [docs/transport.md "Routes", docs/hooks.md "opencode"]: hail's plugin
inside opencode watches the mailbox and prompts its own session once it is idle, so opencode is
never typed into. A send leaves the mailbox's wake mark, which the plugin watches for; it does so
only once a hook of a plugin that watches ran lately.

The pane's opencode always takes this route; hail's records (`store/presence/plugin.py`) only let
a send find its pane with no tmux call.
"""

from __future__ import annotations

from hail.store.presence import plugin as records
from hail.transport.routes.base import NotWoken, Route, Session

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.store.presence.plugin import Plugin
    from hail.transport.panes import Pane
    from hail.transport.routes.base import Records, Wake


class PluginSession(Session):
    """An opencode whose plugin wakes its own session: from a surveyed pane, or its record."""

    __slots__ = ("agent", "plugin")

    def __init__(self, pane: Pane | None, agent: str, plugin: Plugin | None = None) -> None:
        super().__init__(
            ROUTE,
            pane,
            plugin.pane if plugin is not None else "",
            plugin.server if plugin is not None else "",
        )
        self.agent = agent
        self.plugin = plugin

    def mailboxes(self) -> list[str]:
        return [self.plugin.mailbox] if self.plugin is not None else []

    def take(self, wake: Wake) -> str:
        """Leave the mark the plugin watches for, once a hook of a plugin that watches ran lately.
        A sub-seat made by this very send has had no hook yet: its seat's plugin, which watches
        every mailbox its pane reads, counts."""
        ctx, to, now = wake.ctx, wake.to, wake.ctx.now()
        box, seat_box = ctx.store.mailbox(to.mailbox), ctx.store.mailbox(to.seat)
        if not (box.plugin_watches(now) or seat_box.plugin_watches(now)):
            hooked = box.hooks_live(now) or seat_box.hooks_live(now)
            raise NotWoken("typed", not_watching(self.agent, self.pane_id, hooked=hooked))
        # The plugin watches for this mark, not for new mail: a quiet fyi, a capped or --no-wake
        # send files mail without it, and so wakes nobody.
        try:
            box.leave_wake(wake.msg_id)
        except OSError as e:
            raise NotWoken(
                "woken", f"could not leave the wake mark {box.wake}: {e.strerror or e}"
            ) from None
        return ""

    def line(self, mailbox: str) -> str:
        return f"{ROUTE.took}: {self.agent} in {self.pane_id} takes it when its session is idle"


class PluginRoute(Route):
    name = "plugin"
    shown = "plugin"
    took = "woken by its plugin"
    wakes_itself = True

    def find(self, ctx: Ctx, pane: Pane, mailbox: str) -> Session | None:
        return PluginSession(pane, pane.agent or "")

    def sessions(self, found: Records, mailbox: str | None) -> list[Session] | None:
        """opencode processes whose plugin ran hail's hooks for `mailbox`, still running."""
        from hail.harnesses import registry

        agent = next((h.name for h in registry.every() if h.route == self.name), "")
        return [
            PluginSession(None, agent, p)
            for p in records.plugins(found.store, mailbox)
            if p.runs(found.procs)
        ]


def not_watching(agent: str, pane: str, *, hooked: bool = False) -> str:
    if hooked:
        return (
            f"{agent} in {pane} wakes itself on new mail, but hail's plugin there does not"
            " watch this mailbox (an older plugin, or its watch failed): run hail setup, then "
            "restart it"
        )
    return (
        f"{agent} in {pane} wakes itself on new mail, but hail's plugin has not run for this"
        " seat in 7 days: run hail setup, then restart it"
    )


ROUTE = PluginRoute()
