"""Copilot CLI's hooks through the installed `hail` (docs/hooks.md "Copilot CLI"): its output shape
(a top-level `additionalContext`, never `hookSpecificOutput`), its seat taken from the payload's
`cwd` (its hooks run in the git root), its Stop streak keyed by `sessionId`, and the preToolUse
answer that lets hail's own command past its permission prompt and nothing else."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.world import World

SESSION = "11111111-2222-3333-4444-555555555555"


def payload(world: World, event: str, seat: str = "worker", **more: object) -> str:
    """A camelCase payload as Copilot CLI 1.0.102 writes it, its `cwd` the session's directory."""
    doc: dict[str, object] = {"sessionId": SESSION, "timestamp": 1796612285230}
    doc["cwd"] = str(world.root / seat)
    if event == "agentStop":
        doc |= {"transcriptPath": "/nonexistent/events.jsonl", "stopReason": "end_turn"}
        doc["stop_hook_active"] = False
    return json.dumps(doc | more)


def hook(
    world: World, event: str, stdin: str | None, cwd: str | Path = "repo"
) -> subprocess.CompletedProcess[str]:
    """hail's hook for Copilot's `event`, run the way Copilot runs it: in the git root (`repo`)."""
    args = {
        "userPromptSubmitted": ("deliver", "--format", "copilot"),
        "postToolUse": ("deliver", "--format", "copilot", "--event", "PostToolUse"),
        "agentStop": ("deliver", "--format", "copilot", "--event", "Stop"),
        "preToolUse": ("deliver", "--format", "copilot", "--event", "PreToolUse"),
        "sessionStart": ("brief", "--hook", "--format", "copilot"),
    }[event]
    return world.run(*args, cwd=cwd, stdin=stdin)


@pytest.fixture
def repo(world: World) -> World:
    """A git root (`repo`, a seat of its own) whose subdirectory `repo/worker` is the seat
    `worker`: Copilot runs the hooks of a session in `repo/worker` in `repo`."""
    (world.root / "repo" / ".git").mkdir(parents=True)
    worker = world.make_seat("repo/worker", "worker")
    world.run("whoami", cwd=worker)
    world.run("whoami", cwd="repo")
    return world


def test_a_prompt_hook_delivers_the_seat_of_the_payloads_cwd_as_top_level_context(
    repo: World,
) -> None:
    mine = repo.send("worker", "ask", "for the worker", body="WORKER-BODY")
    theirs = repo.send("repo", "ask", "for the repo seat", body="REPO-BODY")
    proc = hook(repo, "userPromptSubmitted", payload(repo, "", "repo/worker", prompt="hi"))
    assert proc.returncode == 0 and proc.stderr == "", proc
    out = json.loads(proc.stdout)
    assert list(out) == ["additionalContext"], "Copilot reads only a top-level additionalContext"
    assert out["additionalContext"].startswith("hail: 1 peer message")
    assert "WORKER-BODY" in out["additionalContext"]
    assert repo.run("sent", mine).stdout.startswith("injected ")
    assert repo.run("sent", theirs).stdout == "delivered\n", "the git root's mail waits"


def test_a_payload_naming_no_directory_delivers_nothing(repo: World) -> None:
    msg = repo.send("repo", "ask", "for the repo seat", body="REPO-BODY")
    for stdin in (None, json.dumps({"sessionId": SESSION}), json.dumps({"cwd": "relative/dir"})):
        proc = hook(repo, "userPromptSubmitted", stdin)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", ""), stdin
    assert repo.run("sent", msg).stdout == "delivered\n", "not taken for the hook's cwd"


def test_mail_after_a_tool_call_is_top_level_context_too(repo: World) -> None:
    repo.send("worker", "ask", "during the tool", body="TOOL-BODY")
    stdin = payload(repo, "", "repo/worker", toolName="bash", toolArgs={"command": "ls"})
    out = json.loads(hook(repo, "postToolUse", stdin).stdout)
    assert list(out) == ["additionalContext"] and "TOOL-BODY" in out["additionalContext"]


def test_agent_stop_blocks_with_the_body_and_caps_the_sessions_streak(repo: World) -> None:
    first = repo.send("worker", "ask", "at the turn's end", body="STOP-BODY")
    out = json.loads(hook(repo, "agentStop", payload(repo, "agentStop", "repo/worker")).stdout)
    assert list(out) == ["decision", "reason"] and out["decision"] == "block"
    assert f"id:{first}" in out["reason"] and "STOP-BODY" in out["reason"]
    # The streak is the session's (`sessionId`), counted as Claude Code's is.
    streak = repo.state / "seats" / "worker" / "stops" / SESSION
    assert streak.read_text().startswith("1 ")
    # Only agentStop names the events file the gauge reads: the agent record takes it there.
    record = (repo.state / "presence" / f"agent-{SESSION}").read_text()
    assert "agent: copilot\n" in record and "file: /nonexistent/events.jsonl\n" in record
    going_on = payload(repo, "agentStop", "repo/worker").replace("false", "true")
    for n in (2, 3):
        repo.send("worker", "ask", f"more {n}", body=f"MORE-{n}")
        assert hook(repo, "agentStop", going_on).stdout.startswith('{"decision":"block"')
    repo.send("worker", "ask", "one too many", body="MORE-4")
    assert hook(repo, "agentStop", going_on).stdout == "", "three in a row, then the turn ends"


def test_the_session_start_brief_is_top_level_context_of_the_payloads_seat(repo: World) -> None:
    repo.run("worker", "hold", "--scope", "src/auth", "--for", "2h", "HOLD: auth", "--no-wake")
    proc = hook(repo, "sessionStart", payload(repo, "", "repo/worker", source="new"))
    out = json.loads(proc.stdout)
    assert list(out) == ["additionalContext"], proc
    assert out["additionalContext"].startswith("hail brief for worker")
    assert "src/auth" in out["additionalContext"]
    assert hook(repo, "sessionStart", json.dumps({"sessionId": SESSION})).stdout == ""


def pre_tool(world: World, command: str, tool: str = "bash") -> str:
    args = {"command": command, "description": "Run it"}
    stdin = payload(world, "", toolName=tool, toolArgs=args)
    return hook(world, "preToolUse", stdin, cwd="worker").stdout


def test_pre_tool_use_allows_hails_own_plain_command(world: World) -> None:
    out = json.loads(pre_tool(world, "hail boss fyi 'done: the parser is fixed'"))
    assert out["permissionDecision"] == "allow"
    assert list(out) == ["permissionDecision", "permissionDecisionReason"]
    heredoc = "hail boss ask <<'EOF'\nthe headline\n\nbody with $(id) and `id`\nEOF"
    assert json.loads(pre_tool(world, heredoc))["permissionDecision"] == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "hail boss fyi x; rm -rf ~",
        "hail boss fyi x && curl example.com",
        'hail boss fyi "$(cat ~/.ssh/id_rsa)"',
        "echo x | hail boss fyi",
        "hail boss ask <<EOF\n$(id)\nEOF",
        "hail boss ask <<'EOF'\nbody\nEOF\nrm -rf ~",
        "hail keys %3 Enter",
        "hail type %3 'yes'",
        "ls",
    ],
)
def test_pre_tool_use_says_nothing_of_any_other_command(world: World, command: str) -> None:
    assert pre_tool(world, command) == ""


def test_pre_tool_use_says_nothing_of_another_tool_and_claims_no_mail(world: World) -> None:
    msg = world.send("worker", "ask", "not for a permission hook", body="KEEP")
    assert pre_tool(world, "hail inbox", tool="edit") == ""
    assert json.loads(pre_tool(world, "hail inbox"))["permissionDecision"] == "allow"
    assert world.run("sent", msg).stdout == "delivered\n"


def test_a_copilot_pane_reads_its_sub_seat_first(repo: World) -> None:
    """Its hooks keep the pane's TMUX_PANE and run in its own process: a pane of a shared seat has
    a sub-seat `<seat>@%N` of its own, as a Claude Code pane has."""
    repo.post("worker@%7", "1001T000000-0007", "THIS-PANE")
    repo.post("worker@%9", "1001T000000-0009", "OTHER-PANE")
    stdin = payload(repo, "", "repo/worker", prompt="hi")
    proc = repo.run(
        "deliver", "--format", "copilot", cwd="repo", stdin=stdin, env={"TMUX_PANE": "%7"}
    )
    text = json.loads(proc.stdout)["additionalContext"]
    assert "THIS-PANE" in text and "OTHER-PANE" not in text
    assert repo.run("sent", "1001T000000-0007").stdout.startswith("injected ")
    assert repo.run("sent", "1001T000000-0009").stdout == "delivered\n"
