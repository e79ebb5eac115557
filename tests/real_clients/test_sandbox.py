"""Codex's default sandbox and hooks that cannot run (docs/real-clients.md "Codex sandbox").

Codex 0.171 runs the model's commands in a sandbox (`workspace-write`: the workspace, /tmp and
$TMPDIR writable, no connection to any socket). These tests start Codex with no flag that widens
it, in a world whose state sits in ~/.local/state outside all of those, and have the model run
hail through its shell tool (the fake model's `RUN_B64`). hail's rule, installed by `hail setup`,
lets a `hail` command of its own out of the sandbox; a wrapped one stays in and says why.
"""

from __future__ import annotations

import base64
import re
import time
from functools import partial
from pathlib import Path

from tests.support.ids import ID

from .clients import Agent
from .evidence import eventually, first_delivery, submitted_prompt
from .fake_http import request_text
from .world import World

EXIT = re.compile(r"Process exited with code (\d+)")
ID_LINE = re.compile(rf"^id=({ID})$", re.M)


def run_in_codex(world: World, agent: Agent, command: str) -> tuple[int, str]:
    """Have the model run `command` with its shell tool; its exit code and output, as the model
    received them."""
    done = len(world.openai.turns())
    stops = len(agent.hook_calls("Stop"))
    encoded = base64.b64encode(command.encode()).decode()
    world.tmux.submit(agent.pane, f"RUN_B64 {encoded}")
    agent.wait_stops(stops + 1, timeout=60)
    results = [t for t in world.openai.turns()[done:] if t.get("tool_result") is not None]
    assert results, f"the model never got the output of {command!r}"
    output = str(results[0]["tool_result"])
    code = EXIT.search(output)
    assert code is not None, f"no exit code in the tool output of {command!r}: {output!r}"
    return int(code.group(1)), output


def stored(world: World, mailbox: str, message_id: str) -> Path:
    """The message file in the mailbox (unread or claimed), under ~/.local/state."""
    found = [p for p in world.mailbox_files(mailbox) if p.name.startswith(message_id)]
    assert found, f"{message_id} is not in {mailbox}'s mailbox: {world.mailbox_files(mailbox)}"
    assert world.home / ".local" / "state" / "hail" in found[0].parents
    return found[0]


def injected(world: World, message_id: str) -> bool | None:
    return world.hail(["sent", message_id]).out.startswith("injected") or None


def test_codex_in_its_default_sandbox_sends_to_claude_and_to_codex_and_receives(
    sandbox_world: World,
) -> None:
    world = sandbox_world
    rules = world.home / ".codex" / "rules" / "hail.rules"
    assert rules.is_file(), world.setup_run
    claude = world.start("claude", "boss")
    peer = world.start("codex", "shared")
    sender = world.start("codex", "worker")

    # To Claude: a command of its own, the body as the argument after the headline.
    code, out = run_in_codex(
        world,
        sender,
        "hail boss ask 'please review the parser change' 'BODY-SBX-CLAUDE line one\nline two'",
    )
    assert code == 0, out
    to_claude = ID_LINE.search(out)
    assert to_claude is not None, out
    stored(world, "boss", to_claude.group(1))
    assert "hail: woken:" in out, "the idle Claude is woken by its waiter, nothing typed"
    turn = eventually(
        lambda: first_delivery(world.anthropic, to_claude.group(1)), "the body reached Claude"
    )
    assert "BODY-SBX-CLAUDE line one\nline two" in request_text(turn)
    assert claude.prompts()[-1].startswith("<task-notification>"), "nothing typed into Claude"

    # To another Codex, in its own sandbox too.
    code, out = run_in_codex(
        world, sender, "hail shared ask 'check the gate' 'BODY-SBX-CODEX the gate log is long'"
    )
    assert code == 0, out
    to_codex = ID_LINE.search(out)
    assert to_codex is not None, out
    stored(world, "shared", to_codex.group(1))
    submitted_prompt(peer, to_codex.group(1))
    turn = eventually(
        lambda: first_delivery(world.openai, to_codex.group(1)), "the body reached the other Codex"
    )
    assert "BODY-SBX-CODEX the gate log is long" in request_text(turn)

    # And receives: a send to the sandboxed sender (its thread known now) is queued on it, or,
    # without Codex's daemon, typed into its idle, empty composer (its queue is read every 10 s:
    # docs/transport.md "Routes"), and injected by its hooks.
    sent = world.send("worker", "reply when you can", "BODY-SBX-BACK from boss")
    assert sent.rc == 0, sent
    assert "hail: queued:" in sent.err or "hail: typed:" in sent.err, sent
    submitted_prompt(sender, sent.id)
    turn = eventually(lambda: first_delivery(world.openai, sent.id), "the body reached the sender")
    assert "BODY-SBX-BACK from boss" in request_text(turn)
    for message_id in (to_claude.group(1), to_codex.group(1), sent.id):
        eventually(partial(injected, world, message_id), f"{message_id} has an injected receipt")


def test_what_codex_keeps_in_its_sandbox_says_so(sandbox_world: World) -> None:
    """A heredoc, a pipeline or `bash -lc` is not a command the rule lets out: hail runs in the
    sandbox, writes nothing, and says it may be sandboxed and how to get out."""
    world = sandbox_world
    world.start("claude", "boss")  # makes seat boss known, so only the sandbox can refuse
    sender = world.start("codex", "worker")
    before = world.mailbox_files("boss")
    for command in (
        "hail boss fyi <<'EOF'\nheredoc headline\nbody\nEOF\n",
        "echo body | hail boss fyi 'piped'",
        "bash -lc \"hail boss fyi 'wrapped'\"",
    ):
        code, out = run_in_codex(world, sender, command)
        assert code == 1, (command, out)
        assert "(Read-only file system): this command may run in a sandbox" in out, out
        assert "install hail's rule (hail setup)" in out, out
    assert world.mailbox_files("boss") == before
    code, out = run_in_codex(world, sender, "bash -lc 'hail doctor'")
    assert code == 1, out
    assert (
        "exists but this process may not connect to it (Operation not permitted): a sandbox?"
        in (out)
    )

    # A program named hail that the model wrote into its workspace is not hail: it stays in.
    escaped = world.home / "escaped"
    impostor = sender.cwd / "hail"
    impostor.write_text(f"#!/bin/sh\ntouch {escaped} && echo outside\n")
    impostor.chmod(0o755)
    code, out = run_in_codex(world, sender, "./hail boss fyi 'not hail'")
    assert code == 1, out
    assert "Read-only file system" in out, out
    assert not escaped.exists()


def test_a_claude_whose_path_lacks_hail_makes_doctor_exit_1_naming_the_fix(world: World) -> None:
    """hail in ~/.local/bin, so setup names it bare; Claude started from a place whose PATH lacks
    it runs no hook of hail's (`/bin/sh: 1: hail: not found`). Doctor runs the hook's program in
    that Claude's environment, and sees the agent with no hook since it started."""
    local_bin = world.home / ".local" / "bin"
    local_bin.mkdir(parents=True)
    (local_bin / "hail").symlink_to(world.tool_bin / "hail")
    assert world.hail(["setup", "--yes", "--trust-codex"], cwd=world.root).rc == 0
    settings = (world.home / ".claude" / "settings.json").read_text()
    assert '"command": "hail deliver --format claude"' in settings
    path = f"{world.client_bin}:/usr/local/bin:/usr/bin:/bin"
    claude = world.start("claude", "worker", env={"PATH": path})
    world.tmux.submit(claude.pane, "hello")
    claude.wait_stops(1)
    started = time.monotonic()

    def doctor_sees_it() -> str | None:
        run = world.hail(["doctor"], cwd=world.seat["boss"])
        silent = f"FIX  claude in {claude.pane} (seat worker) started "
        if run.rc == 1 and silent in run.out:
            return run.out
        return None

    out = eventually(doctor_sees_it, "doctor reports the Claude that runs no hook", timeout=40)
    assert time.monotonic() - started < 40
    assert (
        "FIX  Claude Code cannot run its hooks: hail: not found"
        f" (with the environment of claude in {claude.pane}, PATH={path});"
    ) in out
    assert "put hail's directory on the PATH the harness starts with, then restart it" in out
    assert "and no hail hook has run in worker since: its hooks do not run" in out
