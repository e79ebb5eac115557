"""A desktop's notifier, as hail tells the person of new mail [docs/seats.md "The person"]: one
module per notifier (`notify_send`, `osascript`), each saying whether it can be used here and the
command line that shows a notification; `registry` picks the first usable one."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


class Notifier:
    """One desktop notifier: its name (as the send reports it) and its command."""

    #: The program's name, as `hail: told the person …` names it.
    name = ""

    def usable(self, env: Mapping[str, str]) -> str | None:
        """The program's path when it can show a notification here, else None."""
        raise NotImplementedError

    def argv(self, program: str, title: str, text: str) -> list[str]:
        """The command line that shows `text` under `title` (both one clean line)."""
        raise NotImplementedError


def on_path(program: str, env: Mapping[str, str]) -> str | None:
    """Where `program` is on `env`'s PATH, or None."""
    import shutil

    return shutil.which(program, path=env.get("PATH"))
