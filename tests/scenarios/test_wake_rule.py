"""hail types only into an idle, empty agent composer; every other screen gets nothing typed and
the hooks carry the message. Each outcome of a send on a scratch tmux server, with a stand-in
`codex` that draws a Codex-like composer (`› <text>`)."""

from __future__ import annotations

import subprocess
import time

from hail import policy
from tests.scenarios.conftest import HERE, Scene, script_command
from tests.support.entry import hail_bin
from tests.support.procs import wait_until

COMPOSER = HERE / "fake_composer.py"


def start_codex(scene: Scene, mode: str = "codex") -> None:
    scene.env["HAIL_AGENT_COMMANDS"] = "codex"
    codex = scene.root / "bin" / "codex"
    if not codex.exists():
        codex = script_command(scene.root, "codex", COMPOSER, mode)
    scene.respawn(scene.recv, scene.seat_dir("worker"), f"'{codex}'")
    assert wait_until(lambda: "READY" in scene.screen(scene.recv), 10)


def hook_once(scene: Scene) -> None:
    """Run worker's hook once, so its hooks count as live."""
    assert scene.as_pane(scene.recv, "deliver", "--format", "codex").rc == 0


def test_an_idle_empty_composer_is_typed_into_submitted_and_checked(scene: Scene) -> None:
    start_codex(scene)
    sent = scene.as_pane(scene.sender, "worker", "announce", "STOP: the gate is red")
    assert sent.rc == 0, sent.err
    assert f"SUBMITTED [hail kind:announce from:boss/{scene.sender}" in scene.screen(scene.recv)
    assert (scene.state / "seats/worker/cur" / f"{sent.id}.inline.md").exists()


def test_a_persons_draft_is_left_alone_and_the_message_waits(scene: Scene) -> None:
    start_codex(scene)
    scene.tmux("send-keys", "-t", scene.recv, "-l", "please refactor the tokenizer so that")
    assert wait_until(lambda: "› please refactor the tokenizer so that" in scene.screen(scene.recv))
    sent = scene.as_pane(scene.sender, "worker", "announce", "STOP: the gate is red")
    assert sent.rc == 5
    assert f"a person is typing in {scene.recv}: arrives with their next prompt" in sent.err
    time.sleep(0.3)
    screen = scene.screen(scene.recv)
    assert sent.id not in screen and "SUBMITTED" not in screen, "nothing typed or submitted"
    assert "› please refactor the tokenizer so that" in screen
    assert f"{sent.id}.md" in scene.new_files("worker"), "an announce stays unread for the hooks"


def test_an_envelope_left_in_the_composer_is_exit_5_and_stays_unread(scene: Scene) -> None:
    start_codex(scene, "stuck")
    sent = scene.as_pane(scene.sender, "worker", "hold", "HOLD landing", "--for", "1h")
    assert sent.rc == 5
    assert (
        f"typed into {scene.recv} and pressed Enter, but the envelope is still in its composer"
        in (sent.err)
    )
    assert f"{sent.id}.md" in scene.new_files("worker"), "given back: the hooks deliver it"
    assert not (scene.state / "seats/worker/cur" / f"{sent.id}.inline.md").exists()
    assert scene.as_pane(scene.sender, "sent", sent.id).out == "delivered\n"
    hook = scene.as_pane(scene.recv, "deliver", "--format", "codex")
    assert f"id:{sent.id}" in hook.out
    assert scene.as_pane(scene.sender, "sent", sent.id).out.startswith("injected ")


def test_no_known_composer_gets_nothing_typed(scene: Scene) -> None:
    scene.env["HAIL_AGENT_COMMANDS"] = "codex"
    codex = scene.root / "bin" / "codex"
    codex.parent.mkdir(exist_ok=True)
    codex.symlink_to("/bin/cat")
    # A `codex` showing a pager-like screen: no composer hail knows.
    scene.respawn(
        scene.recv, scene.seat_dir("worker"), f"printf 'lorem\\nipsum\\n'; exec '{codex}'"
    )
    assert wait_until(lambda: "ipsum" in scene.screen(scene.recv))
    sent = scene.as_pane(scene.sender, "worker", "ask", "anyone there?")
    assert sent.rc == 5
    assert f"{scene.recv} shows no codex composer" in sent.err
    assert sent.id not in scene.screen(scene.recv)


def test_a_yn_headline_on_the_screen_is_not_a_dialog(scene: Scene) -> None:
    first = scene.as_pane(scene.sender, "worker", "ask", "ship it now (y/n)?")
    assert first.rc == 0, first.err
    assert wait_until(lambda: scene.count(scene.recv, "(y/n)") == 2)
    second = scene.as_pane(scene.sender, "worker", "ask", "and the docs?")
    assert second.rc == 0, second.err


def test_a_shell_with_a_claude_child_is_not_an_agent_pane(scene: Scene) -> None:
    del scene.env["HAIL_AGENT_COMMANDS"]
    bindir = scene.root / "bin"
    bindir.mkdir(exist_ok=True)
    (bindir / "claude").symlink_to("/bin/sleep")
    seat = scene.make_seat("bg")
    pane = scene.new_pane(seat, "bash", "--norc", "--noprofile", "-i")
    # As a person would: `claude -p … &` leaves the shell at its prompt.
    scene.tmux("send-keys", "-t", pane, "-l", f"'{bindir / 'claude'}' 600 &")
    scene.tmux("send-keys", "-t", pane, "Enter")
    assert wait_until(lambda: "[1]" in scene.screen(pane))
    marker = scene.root / "ran"
    sent = scene.as_pane(scene.sender, "bg", "announce", f"touch {marker}")
    assert sent.rc == 5, sent.err
    assert "not typed (no agent runs in seat bg)" in sent.err
    time.sleep(0.5)
    assert sent.id not in scene.screen(pane), "nothing typed"
    assert not marker.exists(), "nothing run"
    row = scene.as_pane(scene.sender, "seats", "bg").out.split("\n")[1]
    assert row.split()[1] == "-", row


def make_busy(scene: Scene) -> None:
    """Submit `go-busy` to the stand-in: it is busy from then on, until a Ctrl-D."""
    scene.tmux("send-keys", "-t", scene.recv, "-l", "go-busy")
    assert wait_until(lambda: "go-busy" in scene.screen(scene.recv))
    scene.tmux("send-keys", "-t", scene.recv, "Enter")
    assert wait_until(lambda: "Messages to be submitted" in scene.screen(scene.recv))


def test_seats_shows_each_agents_state_from_the_same_classification(scene: Scene) -> None:
    start_codex(scene)

    def state() -> str:
        table = scene.as_pane(scene.sender, "seats", "worker")
        row = next(line for line in table.out.split("\n") if line.startswith("worker "))
        return row.split()[2]

    assert state() == "idle"
    scene.tmux("send-keys", "-t", scene.recv, "-l", "half a thought")
    assert wait_until(lambda: "› half a thought" in scene.screen(scene.recv))
    assert state() == "draft"
    start_codex(scene)  # the stand-in cannot clear its input: a fresh one
    make_busy(scene)
    assert state() == "busy"


def test_an_agent_named_in_hail_agent_commands_gets_typing_only_in_the_foreground(
    scene: Scene,
) -> None:
    scene.env["HAIL_AGENT_COMMANDS"] = "myagent"
    bindir = scene.root / "bin"
    bindir.mkdir(exist_ok=True)
    (bindir / "myagent").symlink_to("/bin/bash")
    seat = scene.make_seat("own")
    pane = scene.new_pane(seat, str(bindir / "myagent"), "--norc", "--noprofile", "-i")
    assert wait_until(lambda: scene.command(pane) == "myagent")
    # Running a tool of its own (its own process group): the tool holds the terminal, and text
    # typed now would reach the agent as input once the tool ends.
    scene.tmux("send-keys", "-t", pane, "-l", "sleep 600")
    scene.tmux("send-keys", "-t", pane, "Enter")
    assert wait_until(lambda: scene.command(pane) == "sleep")
    busy = scene.as_pane(scene.sender, "own", "ask", "are you there?")
    assert busy.rc == 5, busy.err
    assert f"myagent is not the foreground program of {pane} (it runs sleep)" in busy.err
    assert busy.id not in scene.screen(pane)
    scene.tmux("send-keys", "-t", pane, "C-c")
    assert wait_until(lambda: scene.command(pane) == "myagent")
    idle = scene.as_pane(scene.sender, "own", "fyi", "now you are")
    assert idle.rc == 0, idle.err
    assert wait_until(lambda: idle.id in scene.screen(pane))


def test_an_ask_sent_as_the_turn_ends_is_typed_once_the_screen_settles(scene: Scene) -> None:
    start_codex(scene)
    make_busy(scene)
    # The agent's Stop hook finds no mail and lets the turn end; the client has not redrawn yet.
    assert scene.as_pane(scene.recv, "deliver", "--format", "codex", "--event", "Stop").rc == 0
    sending = subprocess.Popen(
        [hail_bin(), "worker", "ask", "asked as the turn ends"],
        cwd=scene.seat_dir("boss"),
        env={**scene.env, "HAIL_SOCKET": scene.socket, "TMUX_PANE": scene.sender},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Filed after its look at the (busy) screen and after the Stop hook looked for mail.
    assert wait_until(lambda: scene.new_files("worker") != [])
    scene.tmux("send-keys", "-t", scene.recv, "C-d")  # the client draws its idle composer
    _, err = sending.communicate(timeout=30)
    assert (sending.returncode, err) == (0, f"hail: typed: into {scene.recv}\n"), err
    assert wait_until(lambda: "SUBMITTED [hail kind:ask" in scene.screen(scene.recv))


def test_an_ask_to_a_turn_its_stop_hook_continued_waits_for_the_hooks(scene: Scene) -> None:
    start_codex(scene)
    make_busy(scene)
    scene.as_pane(scene.sender, "worker", "fyi", "for the Stop hook")
    stop = scene.as_pane(scene.recv, "deliver", "--format", "codex", "--event", "Stop")
    assert stop.out.startswith('{"decision":"block"'), "the agent goes on with its mail"
    started = time.monotonic()
    sent = scene.as_pane(scene.sender, "worker", "ask", "while it goes on")
    assert sent.rc == 0, sent.err
    assert sent.err == "hail: busy: arrives at worker's next tool call or when its turn ends\n"
    assert time.monotonic() - started < policy.TURN_END_WAIT, "no wait for a turn that goes on"
    assert sent.id not in scene.screen(scene.recv), "nothing typed"
