"""Presence records (docs/files.md "Layout", docs/transport.md "Routes"): they read back as written,
a reused pid never passes for the process a record names, and a thread id says when it was made."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hail.process.choose import backend
from hail.store.presence import queue as queue_records
from hail.store.presence import waiter as waiter_records
from hail.store.store import Store

#: This machine's backend: /proc, or without it (a Mac, a macOS-shaped run) `ps`.
PROCS = backend(os.environ)


def test_a_waiter_record_reads_back_as_written(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "hail"))
    me = waiter_records.Waiter(
        123, "456", os.getpid(), PROCS.start(os.getpid()), ["shared@%3", "shared"], "%3"
    )
    me.session, me.since = "6f1c2f7e-9a53", 1796137639.809
    waiter_records.write_waiter(store, me)
    back = waiter_records.read_waiter(waiter_records.waiter_path(store, 123))
    assert back is not None and back.text() == me.text()
    assert me.is_me(back) and back.listening(PROCS)
    assert oct(os.stat(waiter_records.waiter_path(store, 123)).st_mode & 0o777) == "0o600"


def test_a_process_is_its_pid_and_its_start(tmp_path: Path) -> None:
    proc = subprocess.Popen(["sleep", "30"])
    try:
        start = PROCS.start(proc.pid)
        assert start and PROCS.is_running(proc.pid, start)
        assert not PROCS.is_running(proc.pid, start + "1"), "another process, same pid"
        assert PROCS.descends_from(proc.pid, os.getpid())
        assert not PROCS.descends_from(os.getpid(), proc.pid)
    finally:
        proc.kill()
        proc.wait()
    assert not PROCS.is_running(proc.pid, start)
    assert PROCS.start(proc.pid) == ""


def test_only_the_waiter_a_record_names_removes_it(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "hail"))
    older = waiter_records.Waiter(7, "1", 11, "1", ["worker"])
    newer = waiter_records.Waiter(7, "1", 12, "1", ["worker"])
    waiter_records.write_waiter(store, newer)
    waiter_records.remove_waiter(store, older)
    assert waiter_records.read_waiter(waiter_records.waiter_path(store, 7)) is not None
    waiter_records.remove_waiter(store, newer)
    assert waiter_records.read_waiter(waiter_records.waiter_path(store, 7)) is None


def test_a_codex_thread_id_carries_its_creation_time() -> None:
    assert queue_records.thread_created("01a23221-b813-7a03-a771-fbd11ef9f322") == 1796137400.339
    assert queue_records.thread_created("00000000-0000-4000-8000-000000000000") is None  # not v7
    assert queue_records.is_thread_id("01a23221-b813-7a03-a771-fbd11ef9f322")
    assert not queue_records.is_thread_id("../../etc/passwd")
    assert not queue_records.is_thread_id("")


def test_a_new_thread_of_a_mailbox_replaces_the_older(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "hail"))
    env = {"TMUX_PANE": "%1", "TMUX": "/tmp/tmux-1/x,123,0"}
    queue_records.note_thread(store, PROCS, "worker", "01a23221-b813-7a03-a771-fbd11ef9f322", env)
    queue_records.note_thread(store, PROCS, "worker", "01a23222-0086-7e91-a994-a12591cb9434", env)
    queue_records.note_thread(store, PROCS, "other", "01a23222-0086-7e91-a994-a12591cb9435", {})
    (latest,) = queue_records.threads(store, "worker")
    assert latest.id == "01a23222-0086-7e91-a994-a12591cb9434"
    # This process is not Codex's daemon: it counts as the hook's own TUI, by pid and start.
    assert not latest.daemon and latest.tui == os.getppid() and latest.pane == "%1"
    assert latest.server == "/tmp/tmux-1/x", "the pane's tmux server, from $TMUX"
    assert len(queue_records.threads(store)) == 2


def test_a_wake_asked_in_the_tick_of_the_last_hook_is_pending(tmp_path: Path) -> None:
    """File times tick coarsely: a send right after the Stop that ended the turn must still wake."""
    box = Store(str(tmp_path / "hail")).mailbox("worker")
    os.makedirs(box.path)
    box.touch_hooked()
    box.ask_wake()
    same = os.stat(box.hooked).st_mtime_ns
    os.utime(os.path.join(box.path, "wake"), ns=(same, same))
    assert box.wake_pending()
    os.utime(box.hooked, ns=(same + 1_000_000, same + 1_000_000))
    assert not box.wake_pending(), "a hook after the wake took what was unread"
