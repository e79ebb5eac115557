"""The desktop notifiers, in the order they are tried, and the first one usable here. Each is
chosen by what the system has (its program, a desktop session), never by the system's name."""

from __future__ import annotations

from hail.transport.notify import notify_send, osascript

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hail.transport.notify.base import Notifier

NOTIFIERS: tuple[Notifier, ...] = (notify_send.NOTIFIER, osascript.NOTIFIER)


def usable(env: Mapping[str, str]) -> tuple[Notifier, str] | None:
    """The first notifier that can show a notification here, with its program's path."""
    for notifier in NOTIFIERS:
        program = notifier.usable(env)
        if program is not None:
            return notifier, program
    return None
