"""The Stop hook's loop guard (docs/hooks.md "Stop"): one streak per session, the session id and
the harness's own `stop_hook_active` read from the payload, both runs of one Stop counted once."""

from __future__ import annotations

from pathlib import Path

import pytest

import hail
from hail import policy
from hail.hooks import stop
from hail.hooks.stop import StopGuard
from hail.payload import session_of
from hail.process.procfs import ProcFs
from hail.process.ps import Ps
from tests.support.macos import not_on_macos

ID = "0193a1b2-c3d4-7e8f-9a0b-c1d2e3f4a5b6"
#: A Stop that goes on from a Stop block: the harness says so with `stop_hook_active`.
SESSION = b'{"session_id": "0193a1b2-c3d4-7e8f-9a0b-c1d2e3f4a5b6", "stop_hook_active": true}'
#: The first Stop of a turn.
FIRST = b'{"session_id": "0193a1b2-c3d4-7e8f-9a0b-c1d2e3f4a5b6", "stop_hook_active": false}'
OTHER = b'{"session_id":"other-1","stop_hook_active":true}'


def guard(box: Path, payload: bytes, **kw: object) -> StopGuard:
    """The guard of a Stop run that started after every earlier run ended (the next Stop)."""
    started = kw.pop("started", stop.clock() + 1)
    return StopGuard(str(box), payload, started=lambda: started, **kw)  # type: ignore[arg-type,return-value]


def test_a_stop_with_no_streak_never_asks_when_it_started(tmp_path: Path) -> None:
    """Reading the process's own start costs the process backend's import: only a Stop that
    continues a streak needs it."""
    asked: list[bool] = []

    def started() -> int:
        asked.append(True)
        return stop.clock()

    assert StopGuard(str(tmp_path), FIRST, started=started).may_block()
    assert StopGuard(str(tmp_path), SESSION, started=started).may_block()
    assert asked == []
    StopGuard(str(tmp_path), SESSION, started=started).blocked()
    StopGuard(str(tmp_path), SESSION, started=started)
    assert asked == [True], "a streak's next Stop tells its twin by when it started"


def test_the_session_id_is_read_without_json_and_only_when_it_looks_like_one() -> None:
    assert session_of(SESSION) == ID
    assert session_of(b'{"session_id":"abc"}') == "abc"
    assert session_of(b"") == ""
    assert session_of(b'{"session_id": 5}') == ""
    assert session_of(b'{"session_id": "../../etc x"}') == ""


def test_a_streak_counts_blocks_up_to_the_cap_and_a_turns_first_stop_starts_a_new_one(
    tmp_path: Path,
) -> None:
    for n in range(policy.STOP_BLOCKS_MAX):
        g = guard(tmp_path, FIRST if n == 0 else SESSION)
        assert g.count == n and g.may_block()
        g.blocked()
    assert not guard(tmp_path, SESSION).may_block()
    assert guard(tmp_path, FIRST).may_block(), "the next turn"


def test_a_stop_that_does_not_block_leaves_the_streak_as_it_is(tmp_path: Path) -> None:
    # Another run of the same Stop (a hook installed twice) finds no mail: the harness goes on
    # all the same, so the streak must not end there.
    for _ in range(policy.STOP_BLOCKS_MAX):
        guard(tmp_path, SESSION).blocked()
    guard(tmp_path, SESSION)  # no mail: nothing written
    assert not guard(tmp_path, SESSION).may_block()


def test_two_sessions_on_one_mailbox_keep_a_streak_each(tmp_path: Path) -> None:
    blocks = {ID: 0, "other-1": 0}
    for n in range(2 * policy.STOP_BLOCKS_MAX + 4):
        payload = (SESSION, OTHER)[n % 2]
        g = guard(tmp_path, payload)
        if g.may_block():
            g.blocked()
            blocks[g.session] += 1
    assert blocks == {ID: policy.STOP_BLOCKS_MAX, "other-1": policy.STOP_BLOCKS_MAX}


def test_both_runs_of_one_stop_count_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1000]
    monkeypatch.setattr(stop, "clock", lambda: now[0])
    for _ in range(policy.STOP_BLOCKS_MAX):
        # Two hooks of one Stop: both started at once (the harness starts them together and
        # waits for both before the model goes on); the second runs after the first ended.
        started = now[0] = now[0] + 10
        first = guard(tmp_path, SESSION, started=started)
        assert first.may_block()
        now[0] += 5
        first.blocked()
        second = guard(tmp_path, SESSION, started=started)
        assert second.may_block(), "the same Stop, already counted"
        now[0] += 5
        second.blocked()
    assert guard(tmp_path, SESSION).count == policy.STOP_BLOCKS_MAX
    assert not guard(tmp_path, SESSION).may_block()


def with_transcript(transcript: Path, payload: bytes = SESSION) -> bytes:
    """The payload naming `transcript` as the session's transcript."""
    return payload[:-1] + f', "transcript_path": "{transcript}"}}'.encode()


def test_runs_of_one_stop_are_told_by_its_transcript_however_far_apart_they_start(
    tmp_path: Path,
) -> None:
    transcript = tmp_path / "session.jsonl"
    transcript.write_text('{"type":"user"}\n')
    payload = with_transcript(transcript)
    for n in range(1, policy.STOP_BLOCKS_MAX + 1):
        # The harness starts the second hook only after the first ended (Claude Code runs an
        # event's hooks one after another): by the clock it is the next Stop, by the transcript
        # the same one.
        first = guard(tmp_path, payload)
        assert first.may_block() and not first.twin
        first.blocked()
        second = guard(tmp_path, payload)
        assert second.twin and second.may_block(), "the same Stop, already counted"
        second.blocked()
        assert guard(tmp_path, payload).own == n
        with transcript.open("a") as f:
            f.write('{"type":"assistant"}\n')  # the model went on: the next Stop
    assert not guard(tmp_path, payload).may_block()


def test_a_stop_whose_transcript_cannot_be_read_is_told_by_the_clock(tmp_path: Path) -> None:
    payload = with_transcript(tmp_path / "gone.jsonl")
    guard(tmp_path, payload, started=stop.clock() - 10).blocked()
    assert guard(tmp_path, payload).count == 1 and not guard(tmp_path, payload).twin
    streak = (tmp_path / stop.DIR / ID).read_text().split()
    assert streak[2] == "-1"


def test_a_run_that_started_after_the_last_block_ended_is_the_next_stop(tmp_path: Path) -> None:
    guard(tmp_path, SESSION, started=stop.clock() - 10).blocked()
    assert guard(tmp_path, SESSION).count == 1
    # Without a start time (no /proc) no run is taken for another run of the same Stop.
    g = guard(tmp_path, SESSION, started=None)
    assert g.count == 1
    g.blocked()
    assert guard(tmp_path, SESSION).count == 2


def test_a_block_from_before_a_reboot_is_no_run_of_a_stop_now(tmp_path: Path) -> None:
    # Ticks count from boot: a block that ended at a tick still to come ended before a reboot.
    (tmp_path / stop.DIR).mkdir()
    (tmp_path / stop.DIR / ID).write_text(f"{policy.STOP_BLOCKS_MAX} {stop.clock() + 10**6}\n")
    g = guard(tmp_path, SESSION, started=stop.clock())
    assert not g.twin and not g.may_block()


def test_a_garbled_streak_file_counts_as_no_streak(tmp_path: Path) -> None:
    (tmp_path / stop.DIR).mkdir()
    (tmp_path / stop.DIR / ID).write_text("nonsense here and there\n")
    assert guard(tmp_path, SESSION).count == 0


def test_a_stop_whose_payload_was_not_on_stdin_yet_continues_the_streak(tmp_path: Path) -> None:
    # On a loaded machine the hook can start before the harness writes its payload: such a Stop
    # names no session, and must neither reset the count nor let the agent go on past the cap.
    guard(tmp_path, FIRST).blocked()
    guard(tmp_path, b"").blocked()
    for _ in range(policy.STOP_BLOCKS_MAX - 2):
        guard(tmp_path, SESSION).blocked()
    assert not guard(tmp_path, SESSION).may_block()
    assert not guard(tmp_path, b"").may_block()
    # Another session still starts its own, counting that Stop of nobody's too (the safe side).
    assert guard(tmp_path, OTHER).count == 1


def test_a_streak_begun_without_a_session_is_continued_by_the_session(tmp_path: Path) -> None:
    guard(tmp_path, b"").blocked()
    for _ in range(policy.STOP_BLOCKS_MAX - 1):
        guard(tmp_path, SESSION).blocked()
    assert not guard(tmp_path, SESSION).may_block()
    # The session's next turn starts again, and leaves no Stop of nobody's behind.
    assert guard(tmp_path, FIRST).count == 0
    guard(tmp_path, FIRST).blocked()
    assert guard(tmp_path, b"").count == 1


def test_a_stop_run_by_hand_never_starts_a_new_streak(tmp_path: Path) -> None:
    for n in range(policy.STOP_BLOCKS_MAX):
        guard(tmp_path, FIRST if n == 0 else SESSION).blocked()
    # A model's own tool call can write any payload: only the harness says a turn began.
    assert not guard(tmp_path, FIRST, by_hand=True).may_block()
    assert guard(tmp_path, FIRST).may_block()


def test_where_the_system_says_no_process_start_the_clock_is_the_monotonic_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """macOS and the BSDs: no CLOCK_BOOTTIME, no /proc. A run's start is when it imported hail,
    on the monotonic clock every process of the machine shares: the runs of one Stop still
    count it once, and a run that imported hail after the last block ended is the next Stop."""
    monkeypatch.setattr(stop, "_BOOT_CLOCK", None)
    assert stop.started(Ps()) == hail.IMPORTED_NS < stop.clock()
    first = guard(tmp_path, SESSION, started=stop.started(Ps()))
    first.blocked()
    second = guard(tmp_path, SESSION, started=stop.started(Ps()))
    assert second.twin and second.may_block(), "a run that started before the block ended"
    second.blocked()
    assert guard(tmp_path, SESSION).count == 1, "counted once"
    assert not guard(tmp_path, SESSION, started=stop.clock()).twin, "the next Stop"


@not_on_macos("it compares with the start /proc says")
def test_a_backend_that_says_no_start_dates_a_run_by_its_import_on_the_same_clock() -> None:
    """The portable backend on Linux: the moment hail was imported, in clock ticks since boot,
    never before the start /proc says, and not after now."""
    system = ProcFs().own_start()
    assert system is not None
    assert system <= stop.started(Ps()) <= stop.clock()
    assert stop.started(ProcFs()) == system
