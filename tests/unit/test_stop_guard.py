"""The Stop hook's loop guard (docs/hooks.md "Stop"): its streak file and the session id."""

from __future__ import annotations

from pathlib import Path

from hail import policy
from hail.hooks.stop import FILE, StopGuard, session_of

SESSION = b'{"session_id": "0193a1b2-c3d4-7e8f-9a0b-c1d2e3f4a5b6", "stop_hook_active": true}'


def test_the_session_id_is_read_without_json_and_only_when_it_looks_like_one() -> None:
    assert session_of(SESSION) == "0193a1b2-c3d4-7e8f-9a0b-c1d2e3f4a5b6"
    assert session_of(b'{"session_id":"abc"}') == "abc"
    assert session_of(b"") == ""
    assert session_of(b'{"session_id": 5}') == ""
    assert session_of(b'{"session_id": "../../etc x"}') == ""


def test_a_streak_counts_blocks_up_to_the_cap_and_ends_on_a_stop_that_does_not_block(
    tmp_path: Path,
) -> None:
    for n in range(policy.STOP_BLOCKS_MAX):
        guard = StopGuard(str(tmp_path), SESSION)
        assert guard.count == n and guard.may_block()
        guard.blocked()
    capped = StopGuard(str(tmp_path), SESSION)
    assert not capped.may_block()
    capped.ended()
    assert not (tmp_path / FILE).exists()
    assert StopGuard(str(tmp_path), SESSION).may_block()


def test_another_session_starts_its_own_streak(tmp_path: Path) -> None:
    for _ in range(policy.STOP_BLOCKS_MAX):
        StopGuard(str(tmp_path), SESSION).blocked()
    assert not StopGuard(str(tmp_path), SESSION).may_block()
    assert StopGuard(str(tmp_path), b'{"session_id":"other-1"}').may_block()


def test_a_garbled_streak_file_counts_as_no_streak(tmp_path: Path) -> None:
    (tmp_path / FILE).write_text("nonsense here and there\n")
    assert StopGuard(str(tmp_path), SESSION).count == 0


def test_a_stop_whose_payload_was_not_on_stdin_yet_continues_the_streak(tmp_path: Path) -> None:
    # On a loaded machine the hook can start before the harness writes its payload: such a Stop
    # names no session, and must neither reset the count nor let the agent go on past the cap.
    StopGuard(str(tmp_path), SESSION).blocked()
    StopGuard(str(tmp_path), b"").blocked()
    for _ in range(policy.STOP_BLOCKS_MAX - 2):
        StopGuard(str(tmp_path), SESSION).blocked()
    assert not StopGuard(str(tmp_path), SESSION).may_block()
    assert not StopGuard(str(tmp_path), b"").may_block()
    # The streak stays keyed by the session it saw, so another session still starts its own.
    assert StopGuard(str(tmp_path), b'{"session_id":"other-1"}').may_block()


def test_a_streak_begun_without_a_session_is_continued_by_the_session(tmp_path: Path) -> None:
    StopGuard(str(tmp_path), b"").blocked()
    for _ in range(policy.STOP_BLOCKS_MAX - 1):
        StopGuard(str(tmp_path), SESSION).blocked()
    assert not StopGuard(str(tmp_path), SESSION).may_block()
