"""The trouble rules doctor and watch share (src/hail/diagnosis.py), at their boundaries."""

from __future__ import annotations

from hail import diagnosis, ids, policy

NOW = 1_800_000_000.0


def test_hooks_are_live_up_to_and_including_the_freshness_limit() -> None:
    fresh = policy.HOOKED_FRESH_SECONDS
    assert diagnosis.hooks_state(NOW - fresh, NOW) == "live"
    assert diagnosis.hooks_state(NOW - fresh - 1, NOW) == "stale"
    assert diagnosis.hooks_state(None, NOW) == "never"
    assert diagnosis.hooks_live(NOW - fresh, NOW) and not diagnosis.hooks_live(None, NOW)


def test_a_silent_agent_of_every_harness_is_named_codex_only_as_perhaps() -> None:
    started = NOW - policy.DOCTOR_AGENT_GRACE_SECONDS - 1
    found = {
        harness: diagnosis.silent(
            diagnosis.Agent("%1", "s", harness, started, native=False), None, NOW
        )
        for harness in ("claude", "codex", "gemini", "opencode", "bash")
    }
    assert found["bash"] is None, "only a harness hail hooks into is judged"
    assert {h: t.certain for h, t in found.items() if t is not None} == {
        "claude": True,
        "codex": False,
        "gemini": True,
        "opencode": True,
    }


def test_an_agent_within_its_grace_or_hooked_since_it_started_is_not_silent() -> None:
    young = diagnosis.Agent("%1", "s", "gemini", NOW - 1, native=False)
    old = diagnosis.Agent("%1", "s", "gemini", NOW - 60, native=False)
    assert diagnosis.silent(young, None, NOW) is None
    assert diagnosis.silent(old, NOW - 60, NOW) is None, "a hook at its start counts"
    assert diagnosis.silent(old, NOW - 61, NOW) is not None


def test_hook_errors_are_counted_from_the_window_and_clipped_once() -> None:
    old = "2020-01-01T00:00:00Z deliver: long ago"
    recent = f"{ids.iso(NOW - 60)} deliver: {'x' * 300}"
    found = diagnosis.hook_errors(f"{old}\nnot a log line\n{recent}\n", NOW)
    assert found is not None and found.count == 1
    assert len(found.last) == policy.DOCTOR_LOG_LINE_MAX and found.last.endswith("…")
    assert diagnosis.hook_errors(old, NOW) is None
