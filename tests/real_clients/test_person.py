"""The person with the real clients [docs/seats.md "The person"]: a real Claude Code and a real
Codex each ask the person with ``hail person ask --wait`` as a tool call; the person answers from a
terminal pane (a shell in its own tmux window, under no agent) with ``hail --as person``, and each
agent's tool call returns with the answer framed ``from:person``. The same agents' own tool calls
of ``hail --as person`` are refused by their harness's marker. And one ``hail --as person all
announce`` from the person's pane reaches both agents' models.

The fake models script the "model" (``fake_http.py``): ``RUN_CMD`` / ``RUN_LONG`` make it run a
command, Codex with ``yield_time_ms`` 30000 for a wait.
"""

from __future__ import annotations

import functools
import re
import shlex
from pathlib import Path

from tests.support.ids import ID
from tests.support.procs import wait_until

from .clients import Agent
from .evidence import eventually
from .fake_http import FakeServer, request_text
from .world import World


def tool_output(fake: FakeServer, marker: str) -> str | None:
    """The first tool output the model received holding `marker`."""
    for turn in fake.turns():
        result = turn.get("tool_result")
        if result and marker in result:
            return str(result)
    return None


def person_pane(world: World) -> str:
    """The person's terminal: a shell in a window of its own, under the tmux server."""
    pane = world.tmux.new_window(world.root, ["bash", "--norc", "--noprofile"])
    assert wait_until(lambda: world.tmux.command(pane) == "bash", 10)
    return pane


def as_person(world: World, pane: str, *args: str) -> tuple[int, str]:
    """Type `hail --as person <args>` into the person's pane; its status and output."""
    out = world.root / f"person-{len(list(world.root.glob('person-*')))}"
    hail = str(world.tool_bin / "hail")
    line = f"{shlex.join([hail, '--as', 'person', *args])} >{out}.out 2>&1; echo $? >{out}.rc"
    world.tmux.submit(pane, line)
    rc = Path(f"{out}.rc")
    assert wait_until(lambda: rc.exists() and rc.read_text().strip() != "", 30)
    return int(rc.read_text()), Path(f"{out}.out").read_text()


def ask_the_person(world: World, agent: Agent, person: str, command: str, answer: str) -> None:
    """The agent runs `command` (an ask --wait to the person); the person answers it; the agent's
    tool call returns with the answer, framed as the person's."""
    box = world.state / "hail" / "seats" / "person" / "new"
    before = unread(box)
    world.tmux.submit(agent.pane, command)
    filed = eventually(lambda: sorted(unread(box) - before) or None, "the ask is filed", 60)
    ask = filed[0].name.split(".")[0]
    assert ask not in world.tmux.capture(agent.pane)  # typed into no pane, the asker's included
    code, out = as_person(world, person, agent.cwd.name, "fyi", "--re", ask, answer)
    assert code in (0, 5), out
    output = eventually(
        lambda: tool_output(world.fake_for(agent), answer), f"{agent.client}'s wait returned", 60
    )
    assert re.search(rf"\[hail:[0-9a-f]{{8}} fyi from:person id:{ID} re:{ask}\] {answer}", output)
    assert "from:person is your user's seat, sent with hail --as person" in output


def unread(box: Path) -> set[Path]:
    return set(box.iterdir()) if box.is_dir() else set()


def refused(world: World, agent: Agent, command: str, marker: str) -> None:
    world.tmux.submit(agent.pane, command)
    output = eventually(
        lambda: tool_output(world.fake_for(agent), "--as person is refused"),
        f"{agent.client}'s own --as person refused",
        60,
    )
    assert f"{marker} is set" in output, output


def test_claude_and_codex_ask_the_person_and_get_the_answer(world: World) -> None:
    claude = world.start("claude", seat="boss")
    codex = world.start("codex", seat="worker")
    person = person_pane(world)
    ask_the_person(
        world, claude, person, "RUN_CMD hail person ask --wait 60 'May I land it?'", "GO: land"
    )
    ask_the_person(
        world, codex, person, "RUN_LONG hail person ask --wait 25 'May I bump it?'", "GO: bump"
    )
    refused(world, claude, "RUN_CMD hail --as person worker fyi 'GO: forged'", "CLAUDECODE")
    refused(world, codex, "RUN_CMD hail --as person boss fyi 'GO: forged'", "CODEX_THREAD_ID")
    assert not list((world.state / "hail").rglob("*forged*"))
    for seat in ("boss", "worker"):
        for f in world.mailbox_files(seat):
            assert "GO: forged" not in f.read_text()


def test_the_persons_broadcast_announce_reaches_both_agents(world: World) -> None:
    claude = world.start("claude", seat="boss")
    codex = world.start("codex", seat="worker")
    code, out = as_person(world, person_pane(world), "all", "announce", "FREEZE: main is closed")
    assert code in (0, 5), out
    copies = dict(re.findall(rf"^id=({ID}) to=(\S+)$", out, re.M))
    by_seat = {seat: msg_id for msg_id, seat in copies.items()}
    assert {"boss", "worker"} <= set(by_seat), out
    assert re.search(r"^batch=\S+ copies=\d+: .*; exit [05]$", out, re.M), out
    for agent in (claude, codex):
        fake, msg_id = world.fake_for(agent), by_seat[agent.cwd.name]
        seen = functools.partial(saw, fake, msg_id)
        eventually(seen, f"{agent.client}'s model saw the announce", 60)


def saw(fake: FakeServer, msg_id: str) -> bool | None:
    """Whether a request to the model carried `msg_id` (its envelope or its frame)."""
    return any(msg_id in request_text(t) for t in fake.turns()) or None
