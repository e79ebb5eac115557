"""The agent record (docs/gauge.md "The agent record"): what each harness's hook payload gives, a
missing field, hostile values, and when the record is written at all. Driven the way the hooks
drive it: the payload's raw JSON read by the hook's own decoder (`protocol.string_of`)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from hail import policy
from hail.context import Ctx
from hail.harnesses import registry
from hail.hooks import protocol
from hail.store.presence import agent
from hail.store.presence.agent import AgentRecord

SESSION = "6f1c2f7e-9a53-4d0e-8d6b-2b1f3c4d5e6f"
TRANSCRIPT = f"/home/u/.claude/projects/-home-u-app/{SESSION}.jsonl"
NOW = 1_796_000_000.0


class Clock(Ctx):
    """A context whose clock the test sets."""

    at = NOW

    def now(self) -> float:
        return self.at


def context(tmp_path: Path, pane: str = "%3", **env: str) -> Clock:
    values = {"XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path), **env}
    if pane:
        values |= {"TMUX_PANE": pane, "TMUX": "/tmp/tmux-1000/default,42,0"}
    ctx = Clock.from_env(values)
    assert isinstance(ctx, Clock)
    return ctx


def hook(
    ctx: Ctx, harness: str, payload: Mapping[str, object], *, prompt: bool = True, **kw: object
) -> None:
    """What a hook of `harness` records for `payload` (a prompt's, unless `prompt` is False)."""
    data = json.dumps(payload).encode()
    text = protocol.prompt_of(data) or "" if prompt else None
    agent.note(
        ctx.store,
        ctx.env,
        registry.get(harness),
        "app",
        lambda key: protocol.string_of(data, key),
        prompt=text,
        now=ctx.now(),
        **kw,  # type: ignore[arg-type]
    )


def record(ctx: Ctx, session: str = SESSION) -> AgentRecord:
    found = agent.read_record(agent.record_path(ctx.store, session))
    assert found is not None
    return found


def test_claude_codes_prompt_names_its_session_and_transcript_and_sessionstart_its_model(
    tmp_path: Path,
) -> None:
    ctx = context(tmp_path)
    start = {"session_id": SESSION, "transcript_path": TRANSCRIPT, "model": "claude-opus-4-6[1m]"}
    hook(ctx, "claude", {**start, "hook_event_name": "SessionStart"}, prompt=False, always=True)
    prompt = {
        "session_id": SESSION,
        "transcript_path": TRANSCRIPT,
        "prompt": "fix the flaky test\nplease",
    }
    hook(ctx, "claude", {**prompt, "hook_event_name": "UserPromptSubmit"})
    got = record(ctx)
    assert (got.agent, got.mailbox, got.pane, got.server) == (
        "claude",
        "app",
        "%3",
        "/tmp/tmux-1000/default",
    )
    assert (got.file, got.model, got.task) == (
        TRANSCRIPT,
        "claude-opus-4-6[1m]",
        "fix the flaky test",
    )
    assert got.time == NOW


def test_codex_names_its_model_on_every_prompt_and_no_pane_under_its_shared_daemon(
    tmp_path: Path,
) -> None:
    ctx = context(tmp_path, pane="%9")  # the daemon's TMUX_PANE: another pane's
    rollout = "/home/u/.codex/sessions/2026/12/04/rollout-x.jsonl"
    hook(
        ctx,
        "codex",
        {"session_id": SESSION, "transcript_path": rollout, "model": "gpt-5.5", "prompt": "go"},
    )
    got = record(ctx)
    assert (got.agent, got.file, got.model, got.task) == ("codex", rollout, "gpt-5.5", "go")
    assert (got.pane, got.server) == ("", ""), "found by its seat, not by the daemon's pane"


def test_gemini_names_no_model_and_opencode_its_plugins_record(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    hook(
        ctx,
        "gemini",
        {"session_id": SESSION, "transcript_path": "/g/session.jsonl", "model": "x", "prompt": "a"},
    )
    assert (record(ctx).file, record(ctx).model) == ("/g/session.jsonl", "")
    ses = "ses_5f3a9c0e1ffeMxQv2c8Rk1Jb7W"
    gauge = str(tmp_path / "state/hail/seats/app/gauge-opencode-4242")
    hook(ctx, "opencode", {"session_id": ses, "prompt": "b", "gauge_path": gauge, "watching": True})
    assert (record(ctx, ses).agent, record(ctx, ses).file) == ("opencode", gauge)


def test_a_payload_without_a_session_records_nothing(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    hook(ctx, "claude", {"transcript_path": TRANSCRIPT, "prompt": "x"})
    hook(
        ctx,
        "claude",
        {"session_id": "../../etc/passwd", "transcript_path": TRANSCRIPT, "prompt": "x"},
    )
    hook(ctx, "claude", {"session_id": 42, "prompt": "x"})
    assert not (Path(ctx.store.root) / "presence").exists()


def test_a_field_a_payload_leaves_out_stays_as_an_earlier_one_named_it(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    hook(
        ctx,
        "claude",
        {"session_id": SESSION, "transcript_path": TRANSCRIPT, "model": "m", "prompt": "one"},
        prompt=True,
    )
    hook(
        ctx,
        "claude",
        {"session_id": SESSION, "prompt": "<task-notification>\nbackground task done"},
    )
    got = record(ctx)
    assert (got.file, got.model, got.task) == (TRANSCRIPT, "m", "one")


@pytest.mark.parametrize(
    "path",
    [
        "relative/transcript.jsonl",
        "/home/u/a\nfile: /etc/passwd",
        "/home/u/\x1b]0;title\x07x.jsonl",
        "/home/u/\u202ereversed.jsonl",
        " /home/u/x.jsonl",
        "/" + "a" * policy.AGENT_FILE_MAX,
    ],
)
def test_a_hostile_path_is_not_recorded(tmp_path: Path, path: str) -> None:
    ctx = context(tmp_path)
    hook(ctx, "claude", {"session_id": SESSION, "transcript_path": path, "prompt": "x"})
    assert record(ctx).file == ""
    text = Path(agent.record_path(ctx.store, SESSION)).read_text()
    assert text.count("\n") == len(agent.FIELDS) + 1, "one line per field, whatever came in"


@pytest.mark.parametrize(
    "model",
    ["gpt\n5", "claude\x1b[31m", "m" * (policy.AGENT_MODEL_MAX + 1), "\u200bclaude", "a\u2028b"],
)
def test_a_hostile_model_is_not_recorded(tmp_path: Path, model: str) -> None:
    ctx = context(tmp_path)
    hook(
        ctx,
        "codex",
        {"session_id": SESSION, "transcript_path": TRANSCRIPT, "model": model, "prompt": "x"},
    )
    assert record(ctx).model == ""


def test_a_hostile_prompt_gives_one_safe_bounded_task_line(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    prompt = "\x1b]0;pwned\x07\x1b[31mdelete\u202e everything\x1b[0m" + "!" * 500 + "\nsecond"
    hook(ctx, "claude", {"session_id": SESSION, "prompt": prompt})
    task = record(ctx).task
    assert task.startswith("delete everything!") and task.endswith("…")
    assert len(task) == policy.TASK_LINE_MAX and task.isprintable()


def test_a_wake_whose_prompt_says_nothing_takes_the_delivered_headline(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    hook(ctx, "claude", {"session_id": SESSION, "prompt": "earlier work"})
    notification = "<task-notification>\n<summary>hail: new mail below</summary>"
    hook(
        ctx,
        "claude",
        {"session_id": SESSION, "prompt": notification},
        delivered="review \x1b[1mPR 7",
    )
    assert record(ctx).task == "review PR 7"
    hook(ctx, "opencode", {"session_id": "ses_1", "prompt": ""}, delivered="from a wake")
    assert record(ctx, "ses_1").task == "from a wake"


def test_a_typed_envelope_gives_its_headline(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    prompt = "[hail kind:ask id:1204T101010-ab12 from:boss/%1] merge the auth fix — hail inbox"
    hook(ctx, "claude", {"session_id": SESSION, "prompt": prompt})
    assert record(ctx).task == "merge the auth fix"


def test_the_record_is_written_only_when_something_changed(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    payload = {"session_id": SESSION, "transcript_path": TRANSCRIPT, "prompt": "same task"}
    hook(ctx, "claude", payload)
    path = agent.record_path(ctx.store, SESSION)
    first = os.stat(path).st_ino
    ctx.at = NOW + 60
    hook(ctx, "claude", {**payload, "prompt": "same task\nother details"})
    assert os.stat(path).st_ino == first and record(ctx).time == NOW, "nothing changed: no write"
    hook(ctx, "claude", {**payload, "prompt": "another task"})
    assert os.stat(path).st_ino != first and record(ctx).time == NOW + 60
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"


def test_a_sessions_first_record_replaces_the_one_of_its_pane_and_any_stale_one(
    tmp_path: Path,
) -> None:
    ctx = context(tmp_path, pane="%3")
    hook(ctx, "claude", {"session_id": "old-in-pane", "prompt": "a"})
    hook(context(tmp_path, pane="%4"), "claude", {"session_id": "other-pane", "prompt": "b"})
    stale = context(tmp_path, pane="%5")
    stale.at = NOW - policy.AGENT_RECORD_DAYS * 86400 - 1
    hook(stale, "gemini", {"session_id": "stale", "prompt": "c"})
    hook(ctx, "claude", {"session_id": "new-in-pane", "prompt": "d"})  # a /clear: a new session
    assert sorted(r.session for r in agent.records(ctx.store)) == ["new-in-pane", "other-pane"]


def test_a_codex_session_replaces_the_earlier_one_of_its_seat(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    hook(ctx, "codex", {"session_id": "thread-one", "prompt": "a"})
    hook(ctx, "claude", {"session_id": "claude-beside", "prompt": "b"})
    hook(ctx, "codex", {"session_id": "thread-two", "prompt": "c"})
    assert sorted(r.session for r in agent.records(ctx.store)) == ["claude-beside", "thread-two"]


def test_a_record_that_is_not_one_reads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "agent-x"
    path.write_text("agent: claude\nsession: ../x\n")
    assert agent.read_record(str(path)) is None
    path.write_text("session: abc\n")
    assert agent.read_record(str(path)) is None
    assert agent.read_record(str(tmp_path / "missing")) is None
