"""Capture the real clients' screens in each state hail classifies, plain and with attributes.

    HAIL_REAL_CLIENTS=1 .venv/bin/python -m tests.real_clients.take_screens tests/data/screens

Writes ``<client>-<state>.txt`` (``capture-pane -p -J``) and ``<client>-<state>.ansi.txt``
(``-e`` added) for: an idle composer with its placeholder, an idle composer holding a draft,
busy on the model, busy in a tool, a draft typed while busy, queued text, a permission dialog,
and an idle composer below history that quotes ``(y/n)``. ``tests/data/screens/classes.txt``
lists the class each capture must get.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from .clients import Agent, install, pinned_versions
from .evidence import eventually
from .world import World

DRAFT = "please refactor the tokenizer so that"


def save(world: World, agent: Agent, out: Path, state: str) -> None:
    time.sleep(0.6)  # let the TUI finish drawing
    for suffix, extra in ((".txt", []), (".ansi.txt", ["-e"])):
        text = world.tmux.cmd("capture-pane", "-p", "-J", *extra, "-t", agent.pane)
        (out / f"{agent.client}-{state}{suffix}").write_text(text, encoding="utf-8")


#: What each client's footer says while a turn runs.
BUSY_WORDS = {"gemini": "esc to cancel", "opencode": "esc interrupt"}


def busy(agent: Agent) -> None:
    words = BUSY_WORDS.get(agent.client, "esc to interrupt")
    eventually(lambda: words in agent.screen() or None, f"{agent.client} is busy")


def clear_composer(world: World, agent: Agent) -> None:
    for _ in range(3):
        world.tmux.cmd("send-keys", "-t", agent.pane, "C-u")
    time.sleep(0.3)


def take(world: World, client: str, out: Path) -> None:
    agent = world.start(client)
    fake = world.fake_for(agent)
    save(world, agent, out, "idle-placeholder")
    world.tmux.cmd("send-keys", "-t", agent.pane, "-l", "--", DRAFT)
    time.sleep(0.5)
    save(world, agent, out, "idle-draft")
    clear_composer(world, agent)
    # History that quotes a dialog literal, then an idle composer below it.
    world.tmux.submit(
        agent.pane, "[hail kind:ask from:boss reply:boss id:1130T120000-abcd] ok (y/n)?"
    )
    agent.wait_stops(1)
    agent.wait_ready()
    save(world, agent, out, "idle-after-yn-history")
    # Busy on the model: the fake holds its reply.
    world.tmux.submit(agent.pane, "HOLD_TOOL then answer")
    busy(agent)
    save(world, agent, out, "busy-model")
    fake.release()
    agent.wait_stops(2)
    agent.wait_ready()
    # Busy in a tool, then a draft typed meanwhile, then that draft queued.
    release = world.root / f"release-{client}"
    world.tmux.submit(agent.pane, f"RUN_CMD {world.wait_tool} {release}")
    busy(agent)
    eventually(lambda: ("wait-release" in agent.screen()) or None, "the tool runs")
    save(world, agent, out, "busy-tool")
    world.tmux.cmd("send-keys", "-t", agent.pane, "-l", "--", DRAFT)
    time.sleep(0.5)
    save(world, agent, out, "busy-draft")
    time.sleep(0.3)
    world.tmux.cmd("send-keys", "-t", agent.pane, "Enter")
    time.sleep(0.8)
    save(world, agent, out, "queued")
    release.touch()
    agent.wait_stops(3, timeout=40)
    agent.wait_ready()
    save(world, agent, out, "idle-after-turns")
    world.tmux.submit(agent.pane, "RUN_WRITE now")
    eventually(
        lambda: (
            any(w in agent.screen() for w in ("Do you want to proceed", "Would you like", "Allow"))
            or None
        ),
        "a dialog",
    )
    save(world, agent, out, "dialog")


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    bin_dir = install(pinned_versions())
    clients = sys.argv[2:] or ["claude", "codex"]
    for client in clients:
        with tempfile.TemporaryDirectory() as tmp:
            world = World(Path(tmp) / "rc", bin_dir, with_hail=False)
            try:
                take(world, client, out)
            except BaseException:
                print(world.report())
                raise
            finally:
                world.close()


if __name__ == "__main__":
    main()
