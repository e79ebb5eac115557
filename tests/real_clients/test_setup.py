"""After the harness installed hail's hooks with ``hail setup --yes`` and a client ran a session
(both clients rewrite their own config files), ``hail setup --check`` still finds the hooks current,
and a second ``hail setup --yes`` changes no byte: hail's Codex rule and another rules file
included."""

from __future__ import annotations

from tests.support.rules import paths_of, rules_for

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
