"""After the harness installed hail's hooks with ``hail setup --yes`` and a client ran a session
(both clients rewrite their own config files), ``hail setup --check`` still finds the hooks current,
and a second ``hail setup --yes`` changes no byte: hail's Codex rule and another rules file
included."""

from __future__ import annotations

import json

from hail.install.hook_table import hook_groups
from tests.support.rules import paths_of, rules_for

from .clients import codex_trust_hash, probe_command
from .evidence import delivery_tokens, eventually, first_delivery, submitted_prompt
from .world import World

OTHER_RULES = 'prefix_rule(pattern = ["gh", "pr", "view"], decision = "prompt")\n'


def test_setup_is_current_and_idempotent_after_a_session(world: World, client: str) -> None:
    rules = world.home / ".codex" / "rules"
    (rules / "team.rules").write_text(OTHER_RULES)
    agent = world.start(client)
    world.tmux.submit(agent.pane, "RUN_BASH please")
    agent.wait_stops(1)
    world.tmux.kill_window(agent.pane)  # as a user ends a session: the client writes on exit

    files = [
        world.home / ".claude" / "settings.json",
        world.home / ".codex" / "config.toml",
        rules / "hail.rules",
        rules / "team.rules",
    ]
    before = {f: f.read_bytes() for f in files}
    assert (
        before[rules / "hail.rules"] == rules_for(*paths_of(str(world.tool_bin / "hail"))).encode()
    )
    assert before[rules / "team.rules"] == OTHER_RULES.encode()

    check = world.hail(["setup", "--check"], cwd=world.root)
    assert check.rc == 0, check
    assert "ok    Claude Code: hail hooks current in" in check.out, check
    assert "ok    Codex: hail hooks current in" in check.out, check
    assert f"ok    Codex: hail's rule current in {rules / 'hail.rules'}" in check.out, check
    assert "drift" not in check.out

    for args in (["setup", "--yes"], ["setup", "--yes", "--trust-codex"]):
        again = world.hail(args, cwd=world.root)
        assert again.rc == 0, again
        assert {f: f.read_bytes() for f in files} == before, again
    assert sorted(p.name for p in rules.iterdir()) == ["hail.rules", "team.rules"]


def test_codex_runs_hails_hooks_once_from_a_plain_hooks_json(unset_world: World) -> None:
    """A user's own ~/.codex/hooks.json holds hail's hooks and another tool's: Codex runs the hooks
    of it and of config.toml (docs/real-clients.md "Codex hooks.json"), so setup keeps hail's in
    hooks.json, adds none to config.toml and records their trust there; the message is delivered
    exactly once, and the other tool's hook in hooks.json runs beside the probe of config.toml."""
    world = unset_world
    codex = world.home / ".codex"
    config, hooks_json = codex / "config.toml", codex / "hooks.json"
    theirs_log = world.root / "theirs.jsonl"
    theirs = probe_command(theirs_log)
    program = str(world.tool_bin / "hail")
    hooks = hook_groups("codex", program)
    hooks["UserPromptSubmit"].append({"hooks": [{"type": "command", "command": theirs}]})
    hooks_json.write_text(json.dumps({"hooks": hooks}, indent=2) + "\n")
    written = hooks_json.read_text()

    setup = world.hail(["setup", "--yes", "--trust-codex"], cwd=world.root)

    assert setup.rc == 0, setup
    assert f"hail's hooks are in {hooks_json}" in setup.out, setup
    assert hooks_json.read_text() == written
    assert program not in config.read_text(), "no second copy in config.toml"
    # The other tool's hook is the user's to trust; trusted here so Codex asks nothing.
    key = f"{hooks_json}:user_prompt_submit:1:0"
    with config.open("a") as f:
        f.write(f'\n[hooks.state."{key}"]\n')
        f.write(f'trusted_hash = "{codex_trust_hash("UserPromptSubmit", theirs, None)}"\n')

    agent = world.start("codex")
    sent = world.send("worker", "hooks from hooks.json", "BODY-JSON-1 delivered once")

    assert sent.rc == 0, sent
    message_id = sent.id
    submitted_prompt(agent, message_id)
    eventually(
        lambda: first_delivery(world.openai, message_id), "the framed body reached the model"
    )
    agent.wait_stops(1)
    assert len(delivery_tokens(world.openai, message_id)) == 1, "delivered exactly once"
    assert world.hail(["sent", message_id]).out.startswith("injected ")
    for log, where in ((theirs_log, "hooks.json"), (world.probe_log, "config.toml")):
        ran = [json.loads(line)["event"] for line in log.read_text().splitlines()]
        assert "UserPromptSubmit" in ran, f"Codex ran no UserPromptSubmit hook of {where}"
    assert world.hail(["setup", "--check"], cwd=world.root).rc == 0
