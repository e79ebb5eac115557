"""notify-send (libnotify): the freedesktop notification a Linux or BSD desktop shows, usable only
where a desktop session is (a display, or a session bus to reach its notification daemon)."""

from __future__ import annotations

from hail.transport.notify.base import Notifier, on_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


class NotifySend(Notifier):
    name = "notify-send"

    def usable(self, env: Mapping[str, str]) -> str | None:
        session = env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")
        if not session and not env.get("DBUS_SESSION_BUS_ADDRESS"):
            return None
        return on_path("notify-send", env)

    def argv(self, program: str, title: str, text: str) -> list[str]:
        # `--` ends the options: a headline that starts with `-` is text.
        return [program, "--app-name=hail", "--", title, text]


NOTIFIER = NotifySend()
