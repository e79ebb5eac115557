"""The person's forms over `hail watch`'s view [docs/watch.md "Acting"]: a message to write, a yes
or no before a broadcast, a hold or a dialog's answer, and the lists a hold or a dialog is picked
from. Each returns what the person chose; the view runs it (`watch/actions.py`,
`watch/dialogs.py`). Every key here is a binding of `watch/keys.py`, named in the help page.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Select, Static, TextArea
from textual.widgets.option_list import Option

from hail import policy
from hail.watch import keys
from hail.watch.actions import Draft
from hail.watch.dialogs import KEY_WORDS, Waiting

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.watch.state import HoldState

_BOX = "width: 90%; height: auto; max-height: 90%; border: round $accent; background: $panel;"


class Confirm(ModalScreen[bool]):
    """A question the person answers with y (yes) or n / Esc (no)."""

    BINDINGS: ClassVar[list[BindingType]] = list(keys.CONFIRM_BINDINGS)
    DEFAULT_CSS = f"Confirm {{ align: center middle; }} Confirm > Vertical {{ {_BOX} }}"

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "confirm"
            yield Static(Text(self.question))
            yield Static(Text("y sends it · n or Esc does not"))

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)


class WriteForm(ModalScreen[Draft | None]):
    """A message from the person: to, kind, --re, headline, body; Ctrl+S sends, Esc drops it."""

    BINDINGS: ClassVar[list[BindingType]] = list(keys.FORM_BINDINGS)
    DEFAULT_CSS = f"""
    WriteForm {{ align: center middle; }}
    WriteForm > Vertical {{ {_BOX} }}
    WriteForm TextArea {{ height: 8; }}
    WriteForm #problem {{ color: $error; }}
    """

    def __init__(self, draft: Draft) -> None:
        super().__init__()
        self.draft = draft

    def compose(self) -> ComposeResult:
        d = self.draft
        with Vertical() as box:
            box.border_title = "write as the person (Ctrl+S sends, Esc drops it)"
            yield Label("to (a seat, seat@%N, or all)")
            yield Input(d.to, id="to")
            yield Label("kind")
            yield Select([(k, k) for k in policy.KINDS], value=d.kind, allow_blank=False, id="kind")
            yield Label("--re (the id this answers; a release names its hold)")
            yield Input(d.re, id="re")
            yield Label("--for (a hold: 30m, 8h, 3d; 8h when empty)")
            yield Input(d.span, id="span")
            yield Label("headline")
            yield Input(d.headline, id="headline")
            yield Label("body (ask and fyi only)")
            yield TextArea(d.body, id="body")
            yield Static(id="problem")

    def on_mount(self) -> None:
        self.query_one("#to" if not self.draft.to else "#headline", Input).focus()

    def written(self) -> Draft:
        kind = self.query_one("#kind", Select).value
        return Draft(
            to=self.query_one("#to", Input).value.strip(),
            kind=str(kind),
            headline=self.query_one("#headline", Input).value,
            body=self.query_one("#body", TextArea).text,
            re=self.query_one("#re", Input).value.strip(),
            span=self.query_one("#span", Input).value.strip(),
        )

    def action_send(self) -> None:
        draft = self.written()
        problem = _problem(draft)
        if problem:
            self.query_one("#problem", Static).update(Text(problem))
            return
        self.dismiss(draft)

    def action_drop(self) -> None:
        self.dismiss(None)


def _problem(draft: Draft) -> str:
    """What stops the form from sending, said before hail is run ("" for nothing)."""
    if not draft.to:
        return "to: name a seat, seat@%N, or all"
    if not draft.headline.strip():
        return "headline: a message needs one"
    if draft.kind == "release" and not draft.re:
        return "--re: a release names the hold it lifts"
    if draft.kind in policy.CONTROL_KINDS and draft.body.strip():
        return f"body: a {draft.kind} has none; it is complete in its headline"
    return ""


class Pick(ModalScreen[object]):
    """A list to pick one item from (↑ ↓ move); the keys of `bindings` act on the highlighted one,
    Esc closes. Dismissed with (item, action) for an action, None when closed."""

    DEFAULT_CSS = f"""
    Pick {{ align: center middle; }}
    Pick > Vertical {{ {_BOX} height: 90%; }}
    Pick OptionList {{ height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }}
    """

    def __init__(self, heading: str, items: list[tuple[object, Text]], hint: str) -> None:
        super().__init__()
        self.heading = heading
        self.items = items
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.heading
            yield OptionList(*(Option(text) for _, text in self.items), id="items")
            yield Static(Text(self.hint))

    def highlighted(self) -> object | None:
        at = self.query_one("#items", OptionList).highlighted
        return self.items[at][0] if at is not None and at < len(self.items) else None

    def action_close(self) -> None:
        self.dismiss(None)


class HoldsPick(Pick):
    """The holds in effect; x releases the highlighted one (after a yes)."""

    BINDINGS: ClassVar[list[BindingType]] = list(keys.HOLDS_BINDINGS)

    def __init__(self, holds: tuple[HoldState, ...]) -> None:
        items: list[tuple[object, Text]] = [
            (
                h,
                Text(
                    f"{h.id} {h.issuer} → {h.to}{f' [{h.scope}]' if h.scope else ''}: {h.headline}"
                ),
            )
            for h in holds
        ]
        super().__init__("holds in effect", items, "x releases the highlighted hold · Esc closes")

    def action_release(self) -> None:
        hold = self.highlighted()
        if hold is not None:
            self.dismiss(hold)


class DialogsPick(Pick):
    """The agents waiting on a permission dialog, each with its text as the screen shows it; a key
    the highlighted dialog offers answers it (after a yes)."""

    BINDINGS: ClassVar[list[BindingType]] = list(keys.DIALOG_BINDINGS)

    def __init__(self, found: list[Waiting]) -> None:
        items: list[tuple[object, Text]] = [(w, _dialog_text(w)) for w in found]
        hint = "1-9 pick that option · s sends Enter · x sends Esc · Esc closes; each asks first"
        super().__init__("agents waiting on a dialog", items, hint)

    def action_answer(self, key: str) -> None:
        found = self.highlighted()
        if not isinstance(found, Waiting):
            return
        if key not in found.dialog.keys:
            self.notify(f"{found.pane}'s dialog offers no {KEY_WORDS.get(key, key)}")
            return
        self.dismiss((found, key))


def _dialog_text(w: Waiting) -> Text:
    offers = " ".join(KEY_WORDS.get(k, k) for k in w.dialog.keys)
    # One screen line a line: a rule as wide as the agent's pane is cut, never wrapped.
    text = "\n".join([f"{w.heading()} — offers {offers}", *w.dialog.text, ""])
    return Text(text, no_wrap=True, overflow="ellipsis")
