"""Codex's queue: `codex queue --thread <id> --message <envelope>` for the thread of the TUI in a
pane [docs/transport.md "Routes"].

The queued text reaches the TUI as a prompt of its own (UserPromptSubmit carries it verbatim), so
the envelope is queued exactly as it would be typed and the prompt hook frames the body under it.
It is run with the TUI's own binary and environment (its HOME and CODEX_HOME): the queue lives in
`$CODEX_HOME/queue_1.sqlite`.

Only for a thread whose TUI is alive in the pane: with Codex's shared daemon, a message queued to
a thread whose TUI has exited is run by the daemon with nobody watching. Without the daemon, the
hook that recorded the thread was the TUI's own child, so its record names that TUI; under the
daemon no hook names its TUI, so the thread counts as the pane's when the pane's TUI started
before the thread was created (its id is a UUIDv7, which carries that time).
"""

from __future__ import annotations

import os
import subprocess

from hail import policy
from hail.store import presence
from hail.transport import agent_process

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.store.presence import Thread
    from hail.transport.panes import Pane

#: How much later than the TUI's start (a /proc time, to the clock tick) a thread it created may
#: say it was created: the TUI creates its thread as it starts.
START_SLACK_SECONDS = 1.0


def live_thread(ctx: Ctx, pane: Pane, mailbox: str) -> tuple[Thread, int] | None:
    """The mailbox's newest recorded thread and the pid of its TUI, when that TUI runs in the pane."""
    tui = agent_process.agent_pid(pane.pid, "codex")
    if tui is None:
        return None
    found = presence.threads(ctx.store, mailbox)
    if not found:
        return None
    thread = found[0]  # a seat holds one Codex TUI: older threads of the mailbox are dropped
    if not thread.daemon:
        if thread.tui == tui and presence.is_running(thread.tui, thread.tui_start):
            return thread, tui
        return None
    created = presence.thread_created(thread.id)
    started = agent_process.started_at(tui)
    if created is None or started is None or started > created + START_SLACK_SECONDS:
        return None  # a thread of an earlier TUI, or one this TUI resumed: not provably its own
    return thread, tui


def queue(thread: Thread, tui: int, text: str) -> str:
    """Queue `text` for the thread with the TUI's binary and environment; "" once queued, else
    why not (the caller then types instead)."""
    try:
        exe = os.readlink(f"/proc/{tui}/exe")
        cwd = os.readlink(f"/proc/{tui}/cwd")
    except OSError as e:
        return f"cannot read Codex's process {tui}: {e.strerror or e}"
    env = agent_process.environment(tui)
    if env is None:
        return f"cannot read the environment of Codex's process {tui}"
    try:
        proc = subprocess.run(
            [exe, "queue", "--thread", thread.id, "--message", text],
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=policy.CODEX_QUEUE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"codex queue failed: {e}"
    if proc.returncode != 0:
        said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        first = next((line for line in said if line.startswith("Error")), said[0] if said else "")
        return f"codex queue exited {proc.returncode}: {first[:200]}"
    return ""
