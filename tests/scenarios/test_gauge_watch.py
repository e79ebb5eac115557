"""What each agent is on and how full its context is, end to end on a scratch tmux server
[docs/gauge.md, docs/watch.md "The gauge"]: a stand-in agent (`hail demo`'s, under the name
`claude`) runs `hail deliver --format claude` on each prompt with Claude Code's payload, naming a
synthetic transcript shaped as Claude Code writes one. Its hook records the agent; `hail watch
--json`, `hail seats --json` and `hail seats` then show the task line and the figures of the
transcript's *last* call, and an agent near its compaction point is a trouble."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import hail.demo_agent
from tests.scenarios.conftest import Scene, script_command
from tests.support import gauge_files as files
from tests.support.entry import hail_bin
from tests.support.procs import wait_until

AGENTS = "claude"
MODEL = "claude-sonnet-4-5-20250929"  # 200,000 tokens in Claude Code 2.1.332's registry
WINDOW = 200_000


def transcript(path: Path, last: files.Usage) -> None:
    """An earlier call, the last call written twice (two content blocks), a sub-agent's call after
    it, 200 KB of tool results after that (the usage far from the end), and a line still being
    written."""
    path.write_text(
        files.claude_call("msg_1", (1200, 30000, 400, 90), model=MODEL)
        + files.claude_call("msg_2", last, model=MODEL)
        + files.claude_call("msg_2", last, model=MODEL)
        + files.claude_call("msg_side", (999_999, 0, 0, 1), model=MODEL, sidechain=True)
        + files.claude_filler(200_000)
        + '{"type":"assistant","message":{"id":"msg_3","usage":{"input_tokens":'
    )


def start_standin(scene: Scene, tmp_path: Path, last: files.Usage) -> tuple[str, Path]:
    """The stand-in in the worker's pane, its transcript written; (its pane, the transcript)."""
    path = tmp_path / "transcript.jsonl"
    transcript(path, last)
    launcher = script_command(scene.root, "claude", Path(hail.demo_agent.__file__))
    hook = shlex.join([hail_bin(), "deliver", "--format", "claude"])
    env = f"HAIL_DEMO_HOOK={shlex.quote(hook)} HAIL_DEMO_TRANSCRIPT={shlex.quote(str(path))}"
    scene.respawn(scene.recv, scene.seat_dir("worker"), f"{env} exec {shlex.quote(str(launcher))}")
    assert wait_until(lambda: "❯\u00a0" in scene.screen(scene.recv), 15), scene.screen(scene.recv)
    return scene.recv, path


def prompt(scene: Scene, pane: str, text: str) -> None:
    """A person types a prompt and its hook runs: the agent record names the task."""
    scene.tmux("send-keys", "-t", pane, "-l", text)
    scene.tmux("send-keys", "-t", pane, "Enter")
    records = scene.state / "presence"
    assert wait_until(
        lambda: any(f"task: {text}\n" in p.read_text() for p in records.glob("agent-*")), 10
    ), scene.screen(pane)


def look(scene: Scene, *args: str) -> str:
    env = {**scene.env, "HAIL_SOCKET": scene.socket, "HAIL_AGENT_COMMANDS": AGENTS}
    r = scene.run(*args, cwd=scene.root, env=env)
    assert r.rc == 0, r.err
    return r.out


def worker_agent(document: dict[str, object]) -> dict[str, object]:
    seats = document["seats"]
    assert isinstance(seats, list)
    (row,) = [s for s in seats if s["mailbox"] == "worker"]
    (agent,) = row["agents"]
    assert isinstance(agent, dict)
    return agent


def test_watch_and_seats_show_the_task_line_and_the_last_calls_figures(
    scene: Scene, tmp_path: Path
) -> None:
    last = (2_000, 41_000, 1_500, 700)  # 44,500 in context: 22% of the window
    pane, path = start_standin(scene, tmp_path, last)
    prompt(scene, pane, "fix the flaky login test")

    watched = worker_agent(json.loads(look(scene, "watch", "--json")))
    seats = worker_agent(json.loads(look(scene, "seats", "--json")))
    assert watched == seats, "one row builder: both say the same"
    assert (watched["pane"], watched["agent"], watched["task"]) == (
        pane,
        "claude",
        "fix the flaky login test",
    )
    gauge = watched["gauge"]
    assert isinstance(gauge, dict), watched
    assert gauge["context"] == {"value": 44_500, "source": "transcript"}
    assert gauge["window"] == {"value": WINDOW, "source": "hail-table"}
    assert (gauge["percent"], gauge["model"], gauge["compacts_at"]) == (22.2, MODEL, 167_000)
    spent = 1_200 + 30_000 + 400 + 90 + sum(last)  # each call once, the sub-agent's not at all
    assert gauge["spent"] == {"value": spent, "source": "transcript"}
    assert gauge["cost"] == {"value": None, "unknown": "no-price"}, "hail invents no price"

    table = look(scene, "seats", "worker").splitlines()
    assert table[0].split() == [
        *("SEAT", "AGENTS", "STATE", "ROUTE", "UNREAD", "HOOK", "ROOT", "CONTEXT", "ON")
    ]
    assert table[1].endswith("44k 22%  fix the flaky login test"), table[1]
    assert path.exists()


def test_an_agent_near_its_compaction_point_is_a_trouble_with_its_fix(
    scene: Scene, tmp_path: Path
) -> None:
    pane, _ = start_standin(scene, tmp_path, (3_000, 150_000, 2_000, 900))  # 155,000: 78%
    prompt(scene, pane, "keep going")
    document = json.loads(look(scene, "watch", "--json"))
    trouble = [t for t in document["trouble"] if t["kind"] == "compact"]
    assert trouble == [
        {
            "kind": "compact",
            "seat": "worker",
            "text": f"claude in {pane} (seat worker) is about to compact: 155k of 200k in"
            " context (78%), and its client compacts at 167k",
            "fix": f"let it end its step, then /compact in {pane} compacts it at a point you"
            " choose (hail watch: Enter jumps there); or hand the rest of its task to a fresh"
            " session",
        }
    ]
    frame = look(scene, "watch", "--once")
    assert "██████░░ 155k 78%" in frame and "is about to compact" in frame


def test_an_agent_no_hook_recorded_shows_no_figure(scene: Scene, tmp_path: Path) -> None:
    start_standin(scene, tmp_path, (1, 2, 3, 4))  # no prompt yet: nothing recorded
    agent = worker_agent(json.loads(look(scene, "watch", "--json")))
    assert (agent["task"], agent["gauge"], agent["unknown"]) == (None, None, "no-record")
    assert look(scene, "seats", "worker").splitlines()[1].split()[-2:] == ["-", "-"]
