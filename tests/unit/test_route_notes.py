"""`hail doctor`'s notes for agents a send can only type into (docs/commands.md "doctor",
docs/transport.md "Routes"): a Claude Code process with no waiter on record, a Codex whose thread
hail has not seen, a Qwen Code whose socket no hook recorded. On real processes named like the agents, past the grace of their start."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest

from hail.commands.doctor import _native_route_notes
from hail.context import Ctx
from hail.store.presence import base as presence_base
from hail.store.presence import door as door_records
from hail.store.presence import queue as queue_records
from hail.store.presence import waiter as waiter_records
from tests.support.procs import hails_backend
from tests.unit.test_silent_agents import _ctx, _panes, agents

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
__all__ = ["agents"]  # the fixture, shared with the silent-agent lines


def test_a_claude_without_a_waiter_and_a_codex_without_a_thread_are_noted(
    tmp_path: Path, agents: dict[str, int]
) -> None:
    ctx = _ctx(tmp_path)
    _hooked(ctx, "a")  # a Claude Code that ran no hook at all is silent instead (its own line)
    assert not any(n.startswith("qwen") for n in _native_route_notes(ctx, _panes(agents)))
    _hooked(ctx, "e")  # so is a Qwen Code
    notes = _native_route_notes(ctx, _panes(agents))
    assert notes == [
        "claude in %1 (seat a) has no live waiter (hail listen): a send can only type into it:"
        " hail setup (it installs the waiter), then restart the agent in %1; a waiter that ended"
        " starts again at the next turn's end",
        "codex in %2 (seat b): its thread is unknown to hail (no prompt since hail's hooks run),"
        " so sends type into it; once it has had a prompt, they queue on its thread",
        "qwen in %5 (seat e): no hook of hail's recorded its cross-session socket, so sends type"
        " into it; run hail setup, then restart it",
    ]


def test_a_waiter_and_a_thread_of_the_panes_tui_leave_only_the_no_daemon_note(
    tmp_path: Path, agents: dict[str, int]
) -> None:
    ctx = _ctx(tmp_path)
    ctx.store.ensure()
    claude, codex = agents["claude"], agents["codex"]
    start = hails_backend().start
    waiter_records.write_waiter(
        ctx.store, waiter_records.Waiter(claude, start(claude), codex, start(codex), ["a"], "%1")
    )
    thread = queue_records.Thread(
        "01a23222-0086-7e91-a994-a12591cb9434", "b", False, codex, start(codex)
    )
    thread.since = time.time()
    Path(presence_base.directory(ctx.store), f"codex-{thread.id}").write_text(thread.text())
    qwen, inbox = agents["qwen"], socket.socket(socket.AF_UNIX)
    inbox.bind(str(tmp_path / f"{qwen}.sock"))  # the socket its hooks named
    door = door_records.Door(
        qwen, start(qwen), "e", "s-1", str(tmp_path / f"{qwen}.sock"), "t", "%5"
    )
    Path(presence_base.directory(ctx.store), f"qwen-{qwen}").write_text(door.text())
    _hooked(ctx, "a")  # its hooks run: only the waiter could be missing, and it listens
    assert _native_route_notes(ctx, _panes(agents)) == [
        "codex in %2 (seat b) runs without its daemon, which reads its queue every 10 s: sends type"
        " into its empty composer (about 1 s), and over a draft queue with up to 10 s to wait. Run"
        " codex without --no-daemon where it can start its daemon"
    ], "only what a Codex without its daemon costs"


def test_a_thread_of_another_tui_does_not_count(tmp_path: Path, agents: dict[str, int]) -> None:
    ctx = _ctx(tmp_path)
    ctx.store.ensure()
    claude = agents["claude"]
    other = queue_records.Thread(
        "01a23222-0086-7e91-a994-a12591cb9434", "b", False, claude, hails_backend().start(claude)
    )
    Path(presence_base.directory(ctx.store)).mkdir(parents=True)
    Path(presence_base.directory(ctx.store), f"codex-{other.id}").write_text(other.text())
    _hooked(ctx, "a")
    notes = _native_route_notes(ctx, _panes(agents))
    assert len(notes) == 2 and notes[1].startswith("codex in %2 (seat b): its thread is unknown")


def _hooked(ctx: Ctx, seat: str) -> None:
    """A hook ran in the seat now (after its agent started)."""
    box = ctx.store.mailbox(seat)
    Path(box.path).mkdir(parents=True, exist_ok=True)
    box.touch_hooked()
