"""The harness itself, without hail: the pinned clients start offline against the fakes, run
the probe hook on every event with the right ``TMUX_PANE``, and pass hook context to the model.
When this fails, the scenario failures beside it say nothing about hail."""

from __future__ import annotations

from .fake_http import request_text
from .world import World


def test_client_runs_hooks_and_reaches_the_fake(bare_world: World, client: str) -> None:
    world = bare_world
    agent = world.start(client)
    fake = world.fake_for(agent)

    world.tmux.submit(agent.pane, "hello probe")
    agent.wait_stops(1)
    world.tmux.submit(agent.pane, "RUN_BASH please")
    agent.wait_stops(2)

    assert agent.prompts() == ["hello probe", "RUN_BASH please"]
    assert {c["pane"] for c in agent.hook_calls()} == {agent.pane}
    turns = fake.turns()
    first = request_text(turns[0])
    assert "PROBE-CONTEXT event=SessionStart" in first
    assert "PROBE-CONTEXT event=UserPromptSubmit" in first
    after_tool = [t for t in turns if t["tool_result"] is not None]
    assert after_tool, "the shell tool never ran"
    assert "PROBE-CONTEXT event=PostToolUse" in request_text(after_tool[0])
    assert "hi" in str(after_tool[0]["tool_result"])
    assert agent.hook_calls("PostToolUse")
