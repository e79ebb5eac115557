"""osascript: macOS's Notification Center, through AppleScript's `display notification`. The texts
are passed as arguments of the script (`on run argv`), never written into its source, so no
headline can end the string and run AppleScript of its own."""

from __future__ import annotations

from hail.transport.notify.base import Notifier, on_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

_SCRIPT = "on run argv\ndisplay notification (item 2 of argv) with title (item 1 of argv)\nend run"


class Osascript(Notifier):
    name = "osascript"

    def usable(self, env: Mapping[str, str]) -> str | None:
        return on_path("osascript", env)

    def argv(self, program: str, title: str, text: str) -> list[str]:
        return [program, "-e", _SCRIPT, title, text]


NOTIFIER = Osascript()
