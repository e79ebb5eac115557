"""A page of text over `hail watch`'s view: the help, or one message in full."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from hail.watch import keys


class Page(ModalScreen[None]):
    """A page of text over the view (help, or one message in full); Esc, q or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = list(keys.PAGE_BINDINGS)
    DEFAULT_CSS = """
    Page { align: center middle; }
    Page > VerticalScroll { width: 90%; height: 85%; border: round $accent; background: $panel; }
    """

    def __init__(self, heading: str, body: str) -> None:
        super().__init__()
        self.heading = heading
        self.body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = self.heading
            yield Static(Text(self.body))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
