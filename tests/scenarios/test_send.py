"""Sends that reach a pane: heredoc and argument sends, announce, pane targets, headline-only
delivery, the cap and the exit-5 wording, on a scratch tmux server.

`cat` in RECV echoes typed characters and prints the line again on Enter: two screen lines holding
`id:<id>` mean typed and submitted, one means typed without Enter.
"""

from __future__ import annotations

import json
import shutil

from tests.scenarios.conftest import Scene

ASK1 = (
    "Review the session token refresh in src/auth before the merge window closes tonight, "
    "and reply with a verdict plus the risky lines"
)


def test_a_heredoc_ask_is_filed_typed_and_submitted(scene: Scene) -> None:
    assert 130 <= len(ASK1) <= 150
    r = scene.as_pane(
        scene.sender, "worker", "ask", stdin=f"{ASK1}\n\nfirst body line\nsecond body line\n"
    )
    assert r.rc == 0, r.err
    msg_id = r.id
    assert r.out == f"id={msg_id}\n"
    envelope = f"[hail kind:ask from:boss/{scene.sender} id:{msg_id}] {ASK1} — hail inbox"
    assert scene.wait_count(scene.recv, f"id:{msg_id}", 2)
    assert envelope in scene.screen(scene.recv)
    assert "…" not in scene.screen(scene.recv)
    text = (scene.state / "seats/worker/new" / f"{msg_id}.md").read_text()
    assert f"from: boss/{scene.sender}\n" in text
    assert f"ask: {ASK1}\n" in text
    assert "second body line" in text
    assert (scene.state / "seats/boss/pending" / msg_id).exists()


def test_a_headline_fyi_before_any_hook_is_typed_without_a_hint(scene: Scene) -> None:
    r = scene.as_pane(scene.sender, "worker", "fyi", "the build is green")
    assert r.rc == 0, r.err
    assert scene.wait_count(scene.recv, f"id:{r.id}", 2)
    lines = [line.rstrip() for line in scene.screen(scene.recv).split("\n") if r.id in line]
    assert all(line.endswith("] the build is green") for line in lines)
    assert (scene.state / "seats/boss/pending" / r.id).exists()


def test_an_announce_is_typed_in_full_and_filed_inline(scene: Scene) -> None:
    headline = "STOP: " + " ".join(["the gate on main is red so hold every landing"] * 3)
    headline = headline[:120]
    r = scene.as_pane(scene.sender, "worker", "announce", headline)
    assert r.rc == 0, r.err
    assert scene.wait_count(scene.recv, f"id:{r.id}", 2)
    screen = scene.screen(scene.recv)
    assert headline.rstrip() in screen
    assert "…" not in screen and "hail inbox" not in screen
    assert (scene.state / "seats/worker/cur" / f"{r.id}.inline.md").exists()
    assert not (scene.state / "seats/boss/pending" / r.id).exists()


def test_a_pane_id_target_reaches_that_panes_seat(scene: Scene) -> None:
    r = scene.as_pane(scene.recv, scene.sender, "fyi", "pane targets work")
    assert r.rc == 0, r.err
    text = (scene.state / "seats/boss/new" / f"{r.id}.md").read_text()
    assert f"from: worker/{scene.recv}\n" in text
    assert "\nreply: worker\n" in text
    assert scene.count(scene.sender, f"id:{r.id}") >= 1


def test_a_headline_only_ask_has_no_hint_and_one_with_a_body_does(scene: Scene) -> None:
    bare = scene.as_pane(scene.sender, "worker", "ask", "headline only")
    assert bare.rc == 0, bare.err
    assert scene.wait_count(scene.recv, f"id:{bare.id}", 2)
    assert all(
        "hail inbox" not in line for line in scene.screen(scene.recv).split("\n") if bare.id in line
    )
    hooked = scene.as_pane(scene.recv, "deliver", "--format", "codex")
    assert hooked.rc == 0
    context = json.loads(hooked.out)["hookSpecificOutput"]["additionalContext"]
    assert f" ask from:boss id:{bare.id}] headline only\n[/hail:" in context
    assert scene.as_pane(scene.sender, "sent", bare.id).out.startswith("injected ")

    body = scene.as_pane(scene.sender, "worker", "ask", "with a body", stdin="the body itself\n")
    assert body.rc == 0, body.err
    assert scene.wait_count(scene.recv, f"id:{body.id}", 2)
    line = next(ln for ln in scene.screen(scene.recv).split("\n") if body.id in ln)
    assert line.rstrip().endswith("with a body — hail inbox")
    first = scene.as_pane(scene.recv, "deliver")
    assert first.out.count("the body itself") == 1
    assert scene.as_pane(scene.recv, "deliver").out == ""


def test_an_over_cap_ask_is_folded_on_screen_and_whole_in_the_file(scene: Scene) -> None:
    long = "First part of the ask is here. " + "then it goes on and on " * 7
    long = long.strip()
    assert 180 <= len(long) <= 200
    control = scene.as_pane(scene.sender, "worker", "announce", long)
    assert control.rc == 2
    assert "headline is" in control.err and "the cap is 160" in control.err
    assert scene.new_files("worker") == []
    r = scene.as_pane(scene.sender, "worker", "ask", long)
    assert r.rc == 0, r.err
    assert "headline folded to" in r.err
    assert scene.wait_count(scene.recv, f"id:{r.id}", 2)
    line = next(ln for ln in scene.screen(scene.recv).split("\n") if r.id in ln).rstrip()
    assert line.endswith(" … — hail inbox")
    assert long in (scene.state / "seats/worker/new" / f"{r.id}.md").read_text()


def test_exit_5_says_whether_a_hook_will_carry_the_mail(scene: Scene) -> None:
    no_agent = {"HAIL_AGENT_COMMANDS": "claude"}
    first = scene.as_pane(scene.sender, "worker", "ask", "nobody types this", env=no_agent)
    assert first.rc == 5
    assert "No hook has read worker lately" in first.err and "hail inbox in" in first.err
    assert scene.as_pane(scene.recv, "deliver", "--format", "claude").rc == 0
    second = scene.as_pane(scene.sender, "worker", "ask", "after a hook", env=no_agent)
    assert second.rc == 5
    assert "it arrives with their next prompt or tool call" in second.err
    shutil.rmtree(scene.seat_dir("worker"))
    third = scene.as_pane(
        scene.sender, "worker", "ask", "root gone", env=no_agent, cwd=scene.seat_dir("boss")
    )
    assert third.rc == 5
    assert "Its workspace" in third.err and "is gone" in third.err
