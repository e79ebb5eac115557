"""`hail watch` in a terminal: the full-screen, live view, drawn with Textual, and the person's
actions from it [docs/watch.md "Keys", docs/watch.md "Acting"].

Only the watch verb imports this module, and with it Textual: no hook, send or other verb pays for
it. The rows come from `watch/model.py`, so the screen, `--once` and `--json` say the same.
Every cell is a `rich.text.Text`, never markup, so a peer's headline cannot style or link the
screen. The state is looked at from a worker thread, one look at a time; the screen is redrawn
when a look found something new, and once a second for the ages, changing only the cells that
differ.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import DataTable, Static

from hail import seat_rows
from hail.context import Ctx
from hail.errors import HailError, StateError
from hail.output import shown
from hail.reserved import PERSON
from hail.seat_rows import SeatRow
from hail.watch import actions, dialogs, keys, model, render
from hail.watch.actions import Draft
from hail.watch.follow import Watch, check_state
from hail.watch.page import Page
from hail.watch.panes import jump
from hail.watch.state import HoldState


def text(cell: str, style: str = "") -> Text:
    return Text(cell, style=style, no_wrap=True, overflow="ellipsis")


#: A gauge's colour near its compaction point, and once its agent is about to compact
#: [docs/watch.md "The gauge"].
GAUGE_STYLES = {seat_rows.NEAR: "yellow", seat_rows.COMPACTING: "bold red"}


class WatchApp(App[None]):
    TITLE = "hail watch"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #title { height: 1; background: $primary-background; color: $text; }
    #seats { height: auto; max-height: 45%; border: round $secondary; }
    #messages { height: 1fr; border: round $secondary; }
    #seats:focus, #messages:focus { border: round $accent; }
    #bottom { height: auto; max-height: 40%; }
    #talk, #trouble { width: 1fr; height: auto; max-height: 100%; border: round $secondary; }
    #status { height: 1; background: $primary-background; color: $text; }
    """
    BINDINGS: ClassVar[list[BindingType]] = list(keys.BINDINGS)

    def __init__(self, ctx: Ctx, only: str) -> None:
        super().__init__()
        self.ctx = ctx
        self.only = only
        self.looker = Watch(ctx)
        self.snap: model.Snapshot | None = None
        self.notice = ""
        self._drawn = 0.0
        self._cells: dict[str, dict[str, list[str]]] = {"seats": {}, "messages": {}}
        self._texts: dict[str, str] = {}
        self._styles: dict[str, str] = {}  # each seat row's CONTEXT colour, as drawn

    # --- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield DataTable(id="seats", cursor_type="row", zebra_stripes=False)
        yield DataTable(id="messages", cursor_type="row", zebra_stripes=False)
        with Horizontal(id="bottom"):
            yield Static(id="talk")
            yield Static(id="trouble")
        yield Static(id="status")

    def on_mount(self) -> None:
        self.query_one("#seats", DataTable).add_columns(*render.SEAT_COLUMNS)
        self.query_one("#messages", DataTable).add_columns(*render.MESSAGE_COLUMNS)
        self.query_one("#talk", Static).border_title = "Conversations and holds"
        self.query_one("#seats", DataTable).focus()
        self.run_worker(self._follow(), exclusive=True)

    async def _follow(self) -> None:
        """Look, draw what is new, wait the watch's interval; until the app ends. A look that
        fails (a directory made unreadable meanwhile) is said on the status line and tried again."""
        changed = True  # the first look ran before the app started
        while True:
            now = time.time()
            if changed or self.snap is None or now - self._drawn >= 1.0:
                self.draw(self.looker.snapshot(now, self.only))
            await asyncio.sleep(self.looker.interval)
            try:
                changed = await asyncio.to_thread(self.looker.tick, time.time())
            except (OSError, HailError) as err:
                self.say(f"cannot read the state: {err}")
                changed = False

    # --- drawing --------------------------------------------------------------------------------

    def draw(self, snap: model.Snapshot) -> None:
        self.snap = snap
        self._drawn = snap.now
        self._set("#title", title(snap))
        seats = self.query_one("#seats", DataTable)
        far = render.far_rows(snap)  # as `hail seats @<host>` last saw them
        self._heading(seats, f"Seats ({len(snap.seats)})" + (f" and {len(far)} far" if far else ""))
        rows = (*snap.seats, *far)
        self._fill(
            seats,
            "seats",
            {r.mailbox: render.seat_cells(r, snap.now) for r in rows},
            {r.mailbox: GAUGE_STYLES.get(render.level(r), "") for r in rows},
        )
        messages = self.query_one("#messages", DataTable)
        self._heading(
            messages,
            f"Messages ({len(snap.messages)} of {snap.state.total}, newest first, times UTC)",
        )
        self._fill(messages, "messages", {m.id: render.message_cells(m) for m in snap.messages})
        self._set("#talk", "\n".join(render.talk_lines(snap)))
        self._heading(self.query_one("#trouble", Static), f"Trouble ({len(snap.trouble)})")
        self._set("#trouble", "\n".join(render.trouble_lines(snap)))
        self._status()

    def _fill(
        self,
        table: DataTable[Text],
        name: str,
        rows: dict[str, list[str]],
        styles: dict[str, str] | None = None,
    ) -> None:
        """Update only the cells that changed; rebuild when rows came, went or moved. `styles`
        colours each row's CONTEXT cell (the seats'), drawn again when its colour changed."""
        old, styles = self._cells[name], styles or {}
        drawn = self._styles if styles else {}

        def cell(key: str, i: int, value: str) -> Text:
            return text(value, styles.get(key, "") if i == render.CONTEXT_COLUMN and styles else "")

        if list(old) != list(rows):
            keep = self._key_at(table)
            table.clear()
            for key, cells in rows.items():
                table.add_row(*(cell(key, i, c) for i, c in enumerate(cells)), key=key)
            if keep in rows:
                table.move_cursor(row=list(rows).index(keep), animate=False)
        else:
            columns = list(table.columns)
            for key, cells in rows.items():
                restyle = drawn.get(key, "") != styles.get(key, "")
                for i, (was, now) in enumerate(zip(old[key], cells, strict=True)):
                    if was != now or (restyle and i == render.CONTEXT_COLUMN):
                        table.update_cell(key, columns[i], cell(key, i, now), update_width=True)
        self._cells[name] = rows
        if styles:
            self._styles = styles

    def _heading(self, widget: Widget, heading: str) -> None:
        """Set a border title only when it changes: setting one redraws the widget."""
        key = f"title of {widget.id}"
        if self._texts.get(key) != heading:
            self._texts[key] = heading
            widget.border_title = Text(heading)

    def _set(self, selector: str, value: str) -> None:
        old = self._texts.get(selector)
        if old != value:
            self._texts[selector] = value
            # The same number of lines needs no new layout: only the text is drawn again.
            same = old is not None and old.count("\n") == value.count("\n")
            self.query_one(selector, Static).update(
                Text(value, no_wrap=True, overflow="ellipsis"), layout=not same
            )

    def _status(self) -> None:
        only = f"only {self.only} (a shows all) · " if self.only else ""
        # What the last action said comes first: the key list is clipped at the screen's edge.
        notice = f"{self.notice} · " if self.notice else ""
        self._set("#status", f"{only}{notice}{keys.KEYS}")

    def say(self, notice: str) -> None:
        self.notice = notice
        self._status()

    @staticmethod
    def _key_at(table: DataTable[Text]) -> str | None:
        if not table.row_count:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return row_key.value

    # --- keys -----------------------------------------------------------------------------------

    def _seat(self) -> SeatRow | None:
        key = self._key_at(self.query_one("#seats", DataTable))
        if self.snap is None or key is None:
            return None
        rows = (*self.snap.seats, *render.far_rows(self.snap))
        return next((r for r in rows if r.mailbox == key), None)

    async def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "seats":
            await self.action_jump()
        else:
            self.action_open()

    async def action_jump(self) -> None:
        row = self._seat()
        if row is None:
            return
        if not row.jump:
            self.say(f"no pane works in {row.mailbox}")
            return
        self.say(await asyncio.to_thread(jump, self.ctx.env, row.jump))

    async def action_select(self) -> None:
        """Enter where no table has the focus (a focused table selects its own row)."""
        if self.focused is self.query_one("#seats", DataTable):
            await self.action_jump()
        elif self.focused is self.query_one("#messages", DataTable):
            self.action_open()

    def action_open(self) -> None:
        key = self._key_at(self.query_one("#messages", DataTable))
        if key is None:
            return
        found = self.ctx.store.find(key)
        if found is None:
            self.say(f"{key} is no longer there (archived by hail gc?)")
            return
        message, receipt = found
        head = [f"{k}: {v}" for k, v in message.headers.items()]
        head.append(f"receipt: {receipt.line()}")
        body = "" if not message.has_body else "\n\n" + message.body
        self.push_screen(Page(f"message {key}", shown("\n".join(head) + body)))

    def action_help(self) -> None:
        self.push_screen(Page("help", keys.HELP))

    def action_only(self) -> None:
        row = self._seat()
        if row is not None:
            self._refilter(row.seat)

    def action_all(self) -> None:
        if self.only:
            self._refilter("")

    def _refilter(self, seat: str) -> None:
        self.only = seat
        self.notice = ""
        self.draw(self.looker.snapshot(time.time(), seat))

    # --- acting as the person [docs/watch.md "Acting"] ------------------------------------------

    def _act(self, what: str, work: Callable[[], str]) -> None:
        """Run one action in a thread of its own, its line on the status line when it ends; the
        view goes on drawing meanwhile."""
        self.say(f"{what} …")

        async def run() -> None:
            self.say(await asyncio.to_thread(work))

        self.run_worker(run(), group="act")

    # The forms (Textual's inputs and text area) load at the first action, not at every start.

    def _then_confirm(self, question: str, work: Callable[[], None]) -> None:
        from hail.watch.forms import Confirm

        def answered(yes: bool | None) -> None:
            if yes:
                work()
            else:
                self.say("nothing done")

        self.push_screen(Confirm(question), answered)

    def _send(self, draft: Draft | None) -> None:
        if draft is None:
            return
        env = self.ctx.env

        def go() -> None:
            self._act(f"sending {draft.summary()}", lambda: actions.send(env, draft))

        if draft.needs_confirming():
            self._then_confirm(f"send {draft.summary()}?", go)
        else:
            go()

    def action_write(self) -> None:
        from hail.watch.forms import WriteForm

        row = self._seat()
        to = row.mailbox if row is not None else ""
        self.push_screen(WriteForm(Draft(to, "fyi", "")), self._send)

    def action_reply(self) -> None:
        from hail.watch.forms import WriteForm

        key = self._key_at(self.query_one("#messages", DataTable))
        found = next((m for m in self.snap.messages if m.id == key), None) if self.snap else None
        if found is None:
            self.say("no message is highlighted to reply to")
            return
        to = found.reply or found.sender.split("/", 1)[0]
        self.push_screen(WriteForm(Draft(to, "fyi", "", re=found.id)), self._send)

    def action_holds(self) -> None:
        from hail.watch.forms import HoldsPick

        holds = self.snap.holds if self.snap is not None else ()
        if not holds:
            self.say("no hold is in effect")
            return
        self.push_screen(HoldsPick(holds), self._release)

    def _release(self, hold: object) -> None:
        if isinstance(hold, HoldState):
            draft = actions.release_draft(hold.id, hold.to, hold.headline)
            question = f"release hold {hold.id} ({hold.issuer} → {hold.to})?"
            self._then_confirm(question, lambda: self._send(draft))

    def action_nudge(self) -> None:
        row = self._seat()
        if row is None or self.snap is None or row not in self.snap.seats:
            self.say("nudge wakes a seat of this machine: highlight one")
            return
        if row.seat == PERSON:
            self.say("the person's mail is never typed: i reads it")
            return
        if not row.unread:
            self.say(f"{row.mailbox} has no unread mail: nothing to nudge")
            return
        env, mailbox = self.ctx.env, row.mailbox
        self._act(f"nudging {mailbox}", lambda: actions.nudge(env, mailbox))

    def action_inbox(self) -> None:
        env = self.ctx.env

        async def run() -> None:
            self.say("reading the person's inbox …")
            done = await asyncio.to_thread(actions.inbox, env)
            self.say(done.line("the person's inbox"))
            if done.code == 0:
                self.push_screen(Page("the person's inbox", shown(done.out)))

        self.run_worker(run(), group="act")

    def action_dialogs(self) -> None:
        from hail.watch.forms import DialogsPick

        panes = self.snap.tmux.panes if self.snap is not None and self.snap.tmux else ()
        env = self.ctx.env

        async def run() -> None:
            found, why = await asyncio.to_thread(dialogs.waiting, env, panes)
            if not found:
                self.say(why or "no agent waits on a permission dialog")
                return
            self.push_screen(DialogsPick(found), self._answer)

        self.run_worker(run(), group="act")

    def _answer(self, picked: object) -> None:
        if not isinstance(picked, tuple):
            return
        waiting, key = picked
        word = dialogs.KEY_WORDS.get(key, key)
        env = self.ctx.env
        self._then_confirm(
            f"send {word} to {waiting.heading()}, only if its dialog is still as shown?",
            lambda: self._act(
                f"answering {waiting.pane}", lambda: dialogs.answer(env, waiting, key)
            ),
        )


def title(snap: model.Snapshot) -> str:
    """The view's title line: `--once`'s, and the person's unread mail."""
    box = next((b for b in snap.state.mailboxes if b.name == PERSON), None)
    unread = len(box.unread) if box is not None else 0
    return f"{render.title(snap)} — person: {unread} unread (i)"


def run(ctx: Ctx, only: str | None) -> int:
    """The view, until `q`; refused without a terminal (then `--once` prints a frame)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise StateError(
            "hail watch draws on a terminal; hail watch --once prints one frame, --json the state"
        )
    check_state(ctx)
    app = WatchApp(ctx, only or "")
    # The first look runs before the screen is taken: the first frame is whole, and tmux's adapter
    # is loaded while the process's own stdout is still in place (the view replaces it).
    app.looker.tick(time.time())
    app.run()
    return 0
