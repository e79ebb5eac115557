"""The queue (Codex) [docs/transport.md "Routes", "Codex's daemon"]: the envelope queued on the
Codex thread of the pane's TUI, asked of Codex's daemon on its own socket, or without the daemon
by `codex queue` run with least privilege (`transport/codex_queue.py`). The TUI takes it as its
next prompt, and its UserPromptSubmit hook frames the body; nothing is typed.

The route is live when hail's prompt hook recorded the thread (`store/presence/queue.py`) and its
TUI runs in the pane. Without the daemon Codex reads its queue only every 10 s, so into an idle,
empty composer the envelope is typed instead, and the queue takes it only over anything else.
"""

from __future__ import annotations

from hail.store.presence import queue as records
from hail.transport.routes.base import NotWoken, Route, Session

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.store.presence.queue import Thread
    from hail.transport.panes import Pane
    from hail.transport.routes.base import Records, Wake


class QueueSession(Session):
    """A Codex thread whose TUI runs in a pane: the thread's record and the TUI's pid."""

    __slots__ = ("thread", "tui")

    def __init__(self, pane: Pane | None, thread: Thread, tui: int) -> None:
        super().__init__(ROUTE, pane, thread.pane, thread.server)
        self.thread = thread
        self.tui = tui

    def mailboxes(self) -> list[str]:
        return [self.thread.mailbox]

    def types_when_idle(self) -> bool:
        return not self.thread.daemon

    def learn(self, ctx: Ctx) -> None:
        """A send that found a thread under the daemon in its pane writes the pane, its server and
        the TUI into the thread's record: the next send needs no survey."""
        from hail.transport.routes.records import server_socket

        if self.thread.daemon and self.thread.tui != self.tui:
            records.learn_thread(
                ctx.store, ctx.procs(), self.thread, self.pane_id, server_socket(ctx.env), self.tui
            )

    def take(self, wake: Wake) -> str:
        """Queue the envelope on the thread; "" once queued. A control kind is complete in its
        envelope: filed `inline` before the queue takes it, as when it is typed, and given back
        unread if the queue refused it. Once the queue was asked and gave no answer, nothing may
        be typed: it may be queued, and typing would bring it twice."""
        from hail.transport.codex_daemon import Unanswered
        from hail.transport.codex_queue import queue

        inline = wake.inline()
        if inline is not None:
            inline.file()
        try:
            failure = queue(wake.ctx, self.thread, self.tui, wake.line, f"hail-{wake.msg_id}")
        except Unanswered as e:
            raise NotWoken("queued", f"{e}: it may be queued all the same") from None
        if failure and inline is not None:
            inline.undo()  # the hooks bring it, should the queue not have taken it
        return failure

    def line(self, mailbox: str) -> str:
        said = f"{ROUTE.took}: Codex in {self.pane_id} takes it as its next prompt; nothing typed"
        if not self.thread.daemon:
            return said + " (without its daemon Codex reads its queue every 10 s)"
        return said

    def shown(self, ctx: Ctx) -> str:
        """`queue-10s` for a Codex without its daemon, which reads its queue every 10 s."""
        return ROUTE.shown if self.thread.daemon else f"{ROUTE.shown}-10s"


class QueueRoute(Route):
    name = "queue"
    shown = "queue"
    took = "queued"

    def find(self, ctx: Ctx, pane: Pane, mailbox: str) -> Session | None:
        from hail.transport.codex_queue import live_thread

        found = live_thread(ctx, pane, mailbox)
        return QueueSession(pane, *found) if found is not None else None

    def sessions(self, found: Records, mailbox: str | None) -> list[Session] | None:
        """The newest thread of `mailbox` whose TUI runs (older threads of a mailbox are dropped);
        None when that thread's TUI is not known (under the daemon, until a send found it in a
        pane) and cannot be found without tmux either (then written in)."""
        threads = records.threads(found.store)
        if mailbox is None:
            return [QueueSession(None, t, t.tui) for t in threads if t.runs(found.procs)]
        thread = next((t for t in threads if t.mailbox == mailbox), None)
        if thread is None:
            return []
        if not thread.tui and not _find_tui(found, thread):
            return None
        return [QueueSession(None, thread, thread.tui)] if thread.runs(found.procs) else []

    def notes(self, ctx: Ctx, pane: Pane, started: float) -> list[str]:
        """A Codex whose thread hail does not know, or that runs without its daemon."""
        from hail.transport.codex_queue import live_thread

        where = f"{pane.agent} in {pane.id} (seat {pane.seat})"
        found = live_thread(ctx, pane, pane.seat or "")
        if found is None:
            return [
                f"{where}: its thread is unknown to hail (no prompt since hail's hooks run), so"
                " sends type into it; once it has had a prompt, they queue on its thread"
            ]
        if found[0].daemon:
            return []
        return [
            f"{where} runs without its daemon, which reads its queue every 10 s: sends type into"
            " its empty composer (about 1 s), and over a draft queue with up to 10 s to wait. Run"
            " codex without --no-daemon where it can start its daemon"
        ]


def _find_tui(found: Records, thread: Thread) -> bool:
    """Find a thread's TUI under the daemon by the process table, and write it into the thread's
    record as a send that surveyed it would."""
    from hail.transport.codex_queue import tui_by_processes

    tui = tui_by_processes(found.procs, thread, found.home, found.store.bound_root(thread.mailbox))
    if tui is None:
        return False
    pid, pane, socket = tui
    records.learn_thread(found.store, found.procs, thread, pane, socket, pid)
    return bool(thread.tui)  # nothing is learnt when the record went meanwhile


ROUTE = QueueRoute()
