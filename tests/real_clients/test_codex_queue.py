"""Codex's queue after its TUI exited, on the pinned Codex (docs/transport.md "What the queue
runs"): `codex queue` itself takes a message for a thread whose TUI is gone, so hail must not
queue there. The pane stays (remain-on-exit) with its dead TUI, as a closed Codex leaves it."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from tests.support.procs import alive, wait_until

from .fake_http import request_text
from .test_native_wake import start, thread_record
from .world import World

PROBE = "PROBE-AFTER-EXIT please answer nothing"


def test_a_thread_whose_tui_exited_is_never_queued(world: World, kind: str) -> None:
    if kind == "claude":
        return  # Codex's route only; the kind fixture runs each Codex mode
    agent = start(world, kind)
    record = thread_record(world)
    assert record is not None
    tui = int(world.tmux.cmd("display-message", "-p", "-t", agent.pane, "#{pane_pid}").strip())
    os.kill(tui, signal.SIGTERM)
    assert wait_until(lambda: not alive(tui), 10), "the TUI ended"

    # What Codex itself does with such a thread.
    raw = subprocess.run(
        [
            str(world.client_bin / "codex"),
            "queue",
            "--thread",
            record["thread"],
            "--message",
            PROBE,
        ],
        env=dict(world.env),
        cwd=world.seat["worker"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    fake = world.fake_for(agent)
    time.sleep(12)  # past Codex's 10 s queue poll
    ran = any(PROBE in request_text(t) for t in fake.turns())
    print(
        f"FIGURE queue-after-exit {kind}: codex queue exit {raw.returncode}, said "
        f"{raw.stdout.strip()!r}; a model request carried it: {ran}"
    )

    sent = world.send("worker", "after the TUI exited", "BODY-AFTER-EXIT")
    assert sent.rc in (0, 5) and sent.id, sent
    assert "queued" not in sent.err, sent
    assert world.mailbox_files("worker"), "the message is filed all the same"
