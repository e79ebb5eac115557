"""Finding an agent pane's record and reading its gauge (docs/gauge.md "Finding an agent's
record"), each client's compaction point (docs/gauge.md "Compaction"), the about-to-compact rule
doctor and watch share, and the person's config followed by a long look."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from hail import diagnosis, policy
from hail.config import Config, Followed
from hail.gauge import agents as found
from hail.gauge.agents import Agents
from hail.gauge.choose import reader
from hail.store.presence.agent import AgentRecord, record_path
from hail.store.store import Store
from tests.support import gauge_files as files

NOW = 1_796_000_000.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A Unix socket standing for the tmux server looked at."""
    path = str(tmp_path / "tmux-sock")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(path)
    try:
        yield path
    finally:
        sock.close()


def store_with(tmp_path: Path, *records: AgentRecord) -> Store:
    store = Store(str(tmp_path / "state" / "hail"))
    os.makedirs(os.path.join(store.root, "presence"), exist_ok=True)
    for r in records:
        Path(record_path(store, r.session)).write_text(r.text())
    return store


def transcript(tmp_path: Path, context: tuple[int, int, int, int]) -> str:
    path = tmp_path / f"t-{sum(context)}.jsonl"
    path.write_text(files.claude_call("msg_1", context, model="claude-sonnet-4-5"))
    return str(path)


def test_a_pane_finds_its_record_by_pane_and_server(tmp_path: Path, server: str) -> None:
    mine = transcript(tmp_path, (10, 40_000, 0, 5))
    theirs = transcript(tmp_path, (10, 90_000, 0, 5))
    store = store_with(
        tmp_path,
        AgentRecord("claude", "s-mine", "api", "%3", server, mine, "", "fix it", NOW),
        # the same pane id on another tmux server: another agent
        AgentRecord("claude", "s-other", "api", "%3", "/tmp/other-sock", theirs, "", "no", NOW + 1),
    )
    got = Agents(store, server, Config()).figures("%3", "api", "claude", NOW - 10)
    assert got.task == "fix it" and got.gauge is not None
    assert got.gauge.context.value == 40_010 and got.gauge.window.value == 200_000
    assert got.gauge.compacts_at == 200_000 - policy.CLAUDE_COMPACT_RESERVE


def test_a_record_older_than_its_agents_process_is_not_its(tmp_path: Path, server: str) -> None:
    path = transcript(tmp_path, (1, 2, 3, 4))
    store = store_with(
        tmp_path, AgentRecord("claude", "s", "api", "%3", server, path, "", "t", NOW)
    )
    agents = Agents(store, server, Config())
    assert agents.figures("%3", "api", "claude", NOW + 1.5).why == found.STALE_RECORD
    assert agents.figures("%3", "api", "claude", NOW + 0.5).gauge is not None, "within the slack"
    assert agents.figures("%3", "api", "claude", None).why == found.STALE_RECORD
    assert agents.figures("%4", "api", "claude", NOW - 9).why == found.NO_RECORD


def test_codex_is_found_by_its_seat_and_only_when_one_works_there(
    tmp_path: Path, server: str
) -> None:
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text(files.codex_count((100, 5_000, 0, 50), (100, 5_000, 0, 50)))
    codex = AgentRecord("codex", "t-1", "api", "", "", str(rollout), "gpt-5.5", "go", NOW)
    claude = AgentRecord("claude", "c-1", "api", "", "", str(rollout), "", "no pane", NOW)
    agents = Agents(store_with(tmp_path, codex, claude), server, Config())
    got = agents.figures("%8", "api", "codex", NOW - 5, alike=1)
    assert got.task == "go" and got.gauge is not None and got.gauge.context.value == 5_100
    assert agents.figures("%8", "api", "codex", NOW - 5, alike=2).why == found.SHARED_SEAT
    assert agents.figures("%9", "api", "claude", NOW - 5).why == found.NO_RECORD, "by pane only"


def test_a_record_without_a_file_or_with_a_refused_config_shows_no_gauge(
    tmp_path: Path, server: str
) -> None:
    path = transcript(tmp_path, (1, 2, 3, 4))
    store = store_with(
        tmp_path,
        AgentRecord("gemini", "g", "api", "%2", server, "", "", "plan", NOW),
        AgentRecord("claude", "c", "api", "%3", server, path, "", "fix", NOW),
    )
    assert Agents(store, server, Config()).figures("%2", "api", "gemini", NOW).as_json() == {
        "task": "plan",
        "gauge": None,
        "unknown": "no-file-named",
    }
    refused = Agents(store, server, None).figures("%3", "api", "claude", NOW)
    assert (refused.task, refused.gauge, refused.why) == ("fix", None, found.CONFIG_REFUSED)


@pytest.mark.parametrize(
    ("client", "window", "point", "command"),
    [
        ("claude", 200_000, 167_000, "/compact"),
        ("claude", 1_000_000, 967_000, "/compact"),
        ("codex", 258_400, 244_800, "/compact"),
        ("gemini", 1_048_576, 524_288, "/compress"),
        ("opencode", 200_000, 168_000, "/compact"),
    ],
)
def test_each_client_compacts_at_its_own_point(
    client: str, window: int, point: int, command: str
) -> None:
    r = reader(client)
    assert (r.compacts_at(window), r.compact_command) == (point, command)


def compaction(context: float, window: float = 200_000, point: int = 167_000) -> diagnosis.Compaction:  # fmt: skip
    return diagnosis.Compaction("%3", "api", "claude", context, window, point, "/compact")


def test_an_agent_within_its_margin_of_the_point_is_about_to_compact() -> None:
    assert diagnosis.about_to_compact(compaction(146_999)) is None
    trouble = diagnosis.about_to_compact(compaction(147_000))
    assert trouble is not None and (trouble.kind, trouble.seat) == ("compact", "api")
    assert trouble.text == (
        "claude in %3 (seat api) is about to compact: 147k of 200k in context (74%), and its"
        " client compacts at 167k"
    )
    assert trouble.fix.startswith("let it end its step, then /compact in %3 compacts it")
    assert diagnosis.about_to_compact(compaction(190_000)) is not None, "past the point too"


def test_the_config_is_followed_by_its_stamp_and_refused_with_its_fix(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path), "HOME": str(tmp_path)}
    follow = Followed(env)
    assert follow.look() is not None and follow.look().windows == {}  # type: ignore[union-attr]
    path = tmp_path / "hail" / "config.toml"
    path.parent.mkdir()
    path.write_text('[gauge.windows]\n"m" = 5000\n')
    assert follow.look().windows == {"m": 5000}  # type: ignore[union-attr]
    path.write_text('[gauge.windows]\n"m" = "lots"\n')
    os.utime(path, ns=(1, 10**9))
    assert follow.look() is None and "gauge.windows.m is 'lots'" in follow.refused
    trouble = diagnosis.config_refused(
        follow.refused, 'fix it or move it aside (docs/gauge.md "Config")'
    )
    assert trouble.kind == "config" and not trouble.text.endswith('aside (docs/gauge.md "Config")')
    assert trouble.fix.endswith("until then no agent's context is shown")
