"""Telling the person of mail filed in their seat [docs/seats.md "The person"]: nothing is typed
into any pane. tmux's own message line on every client attached to the server (what tmux shows
its users, as `display-message`), and the desktop's notification where a notifier is usable
(`transport/notify`). Each is tried once after the message is filed; a failure is a note, never
an error: the message is in the person's inbox whatever happens here.
"""

from __future__ import annotations

import subprocess

from hail import policy
from hail.envelope import sanitize
from hail.output import note
from hail.text import clip_value
from hail.transport.tmux import TmuxError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.transport.tmux import Tmux

#: Where the person reads their mail, as the send says it.
WHERE = "hail watch, or hail --as person inbox"


def tell(ctx: Ctx, tmux: Tmux | None, title: str, headline: str) -> int:
    """Tell the person `title: headline` on their tmux clients and desktop; exit 0 with a note
    saying where they will see it and what told them."""
    title, headline = clip_value(sanitize(title), 80), clip_value(sanitize(headline), 200)
    told = [t for t in (_on_tmux(tmux, f"{title}: {headline} ({WHERE})"),) if t]
    desktop = _on_desktop(ctx, title, headline)
    if desktop:
        told.append(desktop)
    how = (
        " and ".join(told) if told else "nothing could tell them now (no tmux client, no notifier)"
    )
    note(f"filed for the person: they see it in {WHERE}; told: {how}")
    return 0


def _on_tmux(tmux: Tmux | None, line: str) -> str:
    """The line on every attached client's message line; what told them ("" for nobody)."""
    if tmux is None:
        return ""
    try:
        clients = tmux.clients()
        for client in clients:
            tmux.show_message(client, line, policy.PERSON_MESSAGE_MILLIS)
    except TmuxError as e:
        note(f"the person's tmux clients were not told: {e}")
        return ""
    if not clients:
        return ""
    return f"tmux's message line on {len(clients)} attached client{'s' * (len(clients) > 1)}"


def _on_desktop(ctx: Ctx, title: str, text: str) -> str:
    """A desktop notification, when a notifier is usable here; its name ("" for none)."""
    from hail.transport.notify import registry

    found = registry.usable(ctx.env)
    if found is None:
        return ""
    notifier, program = found
    try:
        done = subprocess.run(
            notifier.argv(program, title, text),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(ctx.env),
            timeout=policy.NOTIFY_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        note(f"{notifier.name} did not tell the person: {e}")
        return ""
    if done.returncode != 0:
        note(f"{notifier.name} did not tell the person (exit {done.returncode})")
        return ""
    return notifier.name
