"""The tmux transport end to end: submit and keys, the dialog guard, read, copy mode, no agent,
Enter after the id, Codex holding, byte identity, stdin, type; and the paste-burst composer."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.scenarios.conftest import HERE, Scene, script_command
from tests.support.entry import hail_bin
from tests.support.ids import ID
from tests.support.procs import wait_until

COMPOSER = HERE / "fake_composer.py"
PYTHON_NAME = Path(sys.executable).name


def test_no_submit_types_once_and_keys_need_a_read_first(scene: Scene) -> None:
    sent = scene.as_pane(scene.sender, "worker", "announce", "submitted one")
    assert sent.rc == 0, sent.err
    assert scene.wait_count(scene.recv, f"id:{sent.id}", 2)
    held = scene.as_pane(scene.sender, "worker", "announce", "typed only", "--no-submit")
    assert held.rc == 0, held.err
    assert scene.wait_count(scene.recv, f"id:{held.id}", 1)
    time.sleep(0.5)
    assert scene.count(scene.recv, f"id:{held.id}") == 1
    refused = scene.as_pane(scene.sender, "keys", "worker", "Enter")
    assert refused.rc == 1 and "hail read" in refused.err
    assert scene.count(scene.recv, f"id:{held.id}") == 1
    read = scene.as_pane(scene.sender, "read", "worker", "5")
    assert read.rc == 0, read.err
    assert (scene.state / "read" / scene.recv.replace("%", "_")).exists()
    keys = scene.as_pane(scene.sender, "keys", "worker", "Enter")
    assert keys.rc == 0, keys.err
    assert scene.wait_count(scene.recv, f"id:{held.id}", 2)
    # The mark is used up by one keys.
    again = scene.as_pane(scene.sender, "keys", "worker", "Enter")
    assert again.rc == 1 and "hail read" in again.err


CLAUDE_DIALOG = [
    "● Bash(touch newfile.txt)",
    "  ⎿  Waiting…",
    " Bash command",
    "   touch newfile.txt",
    " Do you want to proceed?",
    " ❯ 1. Yes",
    "   2. Yes, and always allow access to proj/ from this project",
    "   3. No",
    " Esc to cancel · Tab to amend · ctrl+e to explain",
]
CODEX_IDLE = ["› just land", "✔ Approved command: just land", "• Ran just land", "  └ ok", "› "]
CODEX_APPROVAL = [
    "• Running touch newfile.txt",
    "  Would you like to run the following command?",
    "  $ touch newfile.txt",
    "› 1. Yes, proceed (y)",
    "  3. No, and tell Codex what to do differently (esc)",
    "  Press enter to confirm or esc to cancel",
]


def test_a_permission_dialog_stops_the_send_before_anything_is_written(scene: Scene) -> None:
    worker = scene.seat_dir("worker")
    scene.show_then_cat(scene.recv, worker, CLAUDE_DIALOG)
    before_screen = scene.screen(scene.recv)
    before_files = scene.all_files()
    r = scene.as_pane(scene.sender, "worker", "ask", "approve me")
    assert r.rc == 4
    assert f"{scene.recv} shows a permission/approval dialog" in r.err
    assert "hail read" in r.err and "resend with --no-wake" in r.err
    assert "--force" not in r.err
    assert r.out == ""
    assert scene.screen(scene.recv) == before_screen
    assert scene.new_files("worker") == []
    assert not (scene.state / "ids").exists() or os.listdir(scene.state / "ids") == []
    # Only the sender's own seat binding may appear (it is bound before routing).
    added = [f for f in scene.all_files() if f not in before_files]
    assert [f for f in added if f != "seats" and not f.startswith("seats/boss")] == []
    # Typing into a dialog answers it (Claude's "1" is Yes, Codex's "a" don't ask again): no
    # flag types there. --force is refused before anything is written or typed.
    forced = scene.as_pane(scene.sender, "worker", "ask", "forced through", "--force")
    assert forced.rc == 1
    assert forced.err.startswith(
        "error: --force is gone: typing into a permission dialog answers it"
    )
    assert forced.out == ""
    assert scene.screen(scene.recv) == before_screen
    assert scene.new_files("worker") == []
    # What the refusal offers instead: the message waits in the inbox, nothing is typed.
    filed = scene.as_pane(scene.sender, "worker", "ask", "after the dialog", "--no-wake")
    assert filed.rc == 5, filed.err
    assert len(scene.new_files("worker")) == 1
    assert scene.screen(scene.recv) == before_screen


def test_a_draft_and_a_codex_history_do_not_block_but_a_codex_approval_does(scene: Scene) -> None:
    worker = scene.seat_dir("worker")
    scene.show_then_cat(scene.recv, worker, ["❯ half a thought"])
    assert scene.as_pane(scene.sender, "worker", "announce", "after a draft").rc == 0
    scene.show_then_cat(scene.recv, worker, CODEX_IDLE)
    idle = scene.as_pane(scene.sender, "worker", "announce", "after codex history")
    assert idle.rc == 0, idle.err
    scene.show_then_cat(scene.recv, worker, CODEX_APPROVAL)
    blocked = scene.as_pane(scene.sender, "worker", "announce", "into an approval")
    assert blocked.rc == 4
    assert "shows a permission/approval dialog" in blocked.err
    assert "into an approval" not in scene.screen(scene.recv)


def test_read_prints_the_last_n_lines(scene: Scene) -> None:
    worker = scene.seat_dir("worker")
    scene.show_then_cat(scene.recv, worker, [f"l{i}" for i in range(1, 11)])
    r = scene.as_pane(scene.sender, "read", "worker", "5")
    assert r.rc == 0, r.err
    assert r.out.split("\n")[:-1] == ["l6", "l7", "l8", "l9", "l10"]
    many = scene.as_pane(scene.sender, "read", "worker", "200")
    assert many.rc == 0
    assert len(many.out.split("\n")) - 1 <= 200
    assert many.out.split("\n")[-2] == "l10"
    by_pane = scene.as_pane(scene.sender, "read", scene.recv, "2")
    assert by_pane.out == "l9\nl10\n"
    in_seat = scene.as_pane(scene.sender, "read", f"worker/{scene.recv}", "1")
    assert in_seat.out == "l10\n"
    wrong = scene.as_pane(scene.sender, "read", f"boss/{scene.recv}", "1")
    assert wrong.rc == 3 and f"pane {scene.recv} is in seat worker, not boss" in wrong.err
    gone = scene.as_pane(scene.sender, "read", "%999", "1")
    assert gone.rc == 1 and "no pane %999" in gone.err


def test_a_pane_in_copy_mode_is_taken_out_of_it_before_typing(scene: Scene) -> None:
    scene.tmux("set-option", "-g", "mode-keys", "vi")
    scene.tmux("copy-mode", "-t", scene.recv)
    assert scene.in_mode(scene.recv)
    r = scene.as_pane(scene.sender, "worker", "announce", "out of copy mode")
    assert r.rc == 0, r.err
    assert not scene.in_mode(scene.recv)
    assert scene.wait_count(scene.recv, f"id:{r.id}", 2)
    assert scene.as_pane(scene.sender, "read", scene.recv, "3").rc == 0
    scene.tmux("copy-mode", "-t", scene.recv)
    assert scene.in_mode(scene.recv)
    keys = scene.as_pane(scene.sender, "keys", scene.recv, "Enter")
    assert keys.rc == 0, keys.err
    assert not scene.in_mode(scene.recv)


def test_a_seat_without_an_agent_gets_mail_but_no_typing(scene: Scene) -> None:
    before = scene.screen(scene.recv)
    r = scene.as_pane(
        scene.sender, "worker", "ask", "shells only", env={"HAIL_AGENT_COMMANDS": "claude"}
    )
    assert r.rc == 5
    assert re.fullmatch(rf"id={ID}\n", r.out)
    assert f"{r.id}.md" in scene.new_files("worker")
    assert "not typed (no agent runs in seat worker)" in r.err
    assert "do not resend" in r.err
    assert scene.screen(scene.recv) == before


def start_composer(scene: Scene, *args: str, command: Path | None = None) -> None:
    argv = [str(command)] if command else [sys.executable, str(COMPOSER)]
    scene.respawn(scene.recv, scene.seat_dir("worker"), " ".join(f"'{a}'" for a in [*argv, *args]))
    assert wait_until(lambda: "READY" in scene.screen(scene.recv), 10)


def test_enter_comes_only_after_this_envelope_is_seen(scene: Scene) -> None:
    scene.env["HAIL_AGENT_COMMANDS"] = f"bash,cat,{PYTHON_NAME}"
    worker = scene.seat_dir("worker")
    scene.respawn(
        scene.recv, worker, f"'{sys.executable}' '{COMPOSER}' spec28 --pane {scene.sender}"
    )
    assert wait_until(lambda: "an older ask" in scene.screen(scene.recv))
    r = scene.as_pane(scene.sender, "worker", "announce", "seen before enter")
    assert r.rc == 0, r.err
    time.sleep(0.5)
    expected = f"SUBMITTED [hail kind:announce from:boss/{scene.sender} id:{r.id}"
    assert wait_until(lambda: expected in scene.screen(scene.recv), 5), scene.screen(scene.recv)
    assert "COMPOSER [hail" not in scene.screen(scene.recv)


def test_the_submit_pause_defeats_a_composer_that_reads_text_and_enter_as_one_paste(
    scene: Scene,
) -> None:
    scene.env["HAIL_AGENT_COMMANDS"] = f"bash,cat,{PYTHON_NAME}"
    start_composer(scene, "paste", "--window", "0.2")
    # The composer bites: text and Enter in one tmux command are a paste, not a submit.
    scene.tmux(
        "send-keys", "-t", scene.recv, "-l", "raw text", ";", "send-keys", "-t", scene.recv, "Enter"
    )
    assert wait_until(lambda: "PASTED-NEWLINE raw text" in scene.screen(scene.recv))
    start_composer(scene, "paste", "--window", "0.2")
    r = scene.as_pane(scene.sender, "worker", "announce", "paused before enter")
    assert r.rc == 0, r.err
    assert wait_until(lambda: "SUBMITTED [hail kind:announce" in scene.screen(scene.recv), 5)
    assert "PASTED-NEWLINE [hail" not in scene.screen(scene.recv)


def test_a_busy_codex_gets_nothing_typed_and_an_idle_one_submits(scene: Scene) -> None:
    scene.env["HAIL_AGENT_COMMANDS"] = "bash,cat,codex"
    codex = script_command(scene.root, "codex", COMPOSER, "codex")
    start_composer(scene, command=codex)
    seats = scene.as_pane(scene.sender, "seats", "worker")
    assert f"{scene.recv}:codex" in seats.out
    idle = scene.as_pane(scene.sender, "worker", "announce", "idle codex")
    assert idle.rc == 0, idle.err
    assert wait_until(lambda: "SUBMITTED [hail kind:announce" in scene.screen(scene.recv))
    assert (scene.state / "seats/worker/cur" / f"{idle.id}.inline.md").exists()
    # Make it busy for good, then send again.
    scene.tmux("send-keys", "-t", scene.recv, "-l", "go-busy")
    assert wait_until(lambda: "go-busy" in scene.screen(scene.recv))
    time.sleep(0.3)
    scene.tmux("send-keys", "-t", scene.recv, "Enter")
    assert wait_until(
        lambda: "Messages to be submitted after next tool call" in scene.screen(scene.recv)
    )
    # No hook has run for worker: nothing will carry it soon, so the send is not complete.
    unhooked = scene.as_pane(scene.sender, "worker", "ask", "busy codex")
    assert unhooked.rc == 5
    assert re.fullmatch(rf"id={ID}\n", unhooked.out)
    assert f"not typed ({scene.recv} is busy)" in unhooked.err
    # Once worker's hooks are live, busy is a complete send: the hooks carry it.
    hook = scene.as_pane(scene.recv, "deliver", "--format", "codex", "--event", "PostToolUse")
    assert hook.rc == 0
    busy = scene.as_pane(scene.sender, "worker", "announce", "busy codex again")
    assert busy.rc == 0, busy.err
    assert busy.err == "hail: busy: arrives at worker's next tool call or when its turn ends\n"
    time.sleep(0.5)
    screen = scene.screen(scene.recv)
    assert unhooked.id not in screen and busy.id not in screen, "nothing was typed"
    assert f"{busy.id}.md" in scene.new_files("worker"), "the announce waits unread for a hook"


def test_a_heredoc_arrives_byte_for_byte(scene: Scene) -> None:
    headline = "Review `auth` and $(whoami); it's == fine"
    body = "run `make` then $(rm -rf /nope) with 'single' and \"double\" quotes and a back\\slash"
    r = scene.as_pane(scene.sender, "worker", "ask", stdin=f"{headline}\n{body}\n")
    assert r.rc == 0, r.err
    text = (scene.state / "seats/worker/new" / f"{r.id}.md").read_text()
    assert f"\nask: {headline}\n" in text
    assert f"\n{body}\n" in text
    assert scene.wait_count(scene.recv, f"id:{r.id}", 2)
    assert headline in scene.screen(scene.recv)


def test_stdin_never_hangs_a_send(scene: Scene) -> None:
    fifo = scene.root / "fifo"
    os.mkfifo(fifo)
    holder = subprocess.Popen(["sh", "-c", f"exec 3>'{fifo}'; sleep 30"])
    try:
        with open(fifo, "rb") as stdin:
            start = time.monotonic()
            proc = subprocess.run(
                [hail_bin(), "worker", "announce", "fifo held open"],
                cwd=scene.seat_dir("boss"),
                env={**scene.env, "HAIL_SOCKET": scene.socket, "TMUX_PANE": scene.sender},
                stdin=stdin,
                capture_output=True,
                timeout=30,
                check=False,
            )
            elapsed = time.monotonic() - start
        assert proc.returncode == 0, proc.stderr
        assert elapsed < 3.0 + 1.5, elapsed
    finally:
        holder.kill()
        holder.wait()
    empty = scene.as_pane(scene.sender, "worker", "ask")
    assert empty.rc == 1 and "no headline" in empty.err
    both = scene.as_pane(scene.sender, "worker", "ask", "headline arg", stdin="heredoc body\n")
    assert both.rc == 0
    assert "\nheredoc body\n" in (scene.state / "seats/worker/new" / f"{both.id}.md").read_text()
    for delay in ("0.05", "0.5"):
        late = subprocess.run(
            [
                "sh",
                "-c",
                f"(sleep {delay}; echo late body {delay}) | '{hail_bin()}' worker ask late",
            ],
            cwd=scene.seat_dir("boss"),
            env={**scene.env, "HAIL_SOCKET": scene.socket, "TMUX_PANE": scene.sender},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert late.returncode == 0, late.stderr
        late_id = re.search(rf"id=({ID})", late.stdout)
        assert late_id
        path = scene.state / "seats/worker/new" / f"{late_id.group(1)}.md"
        assert f"late body {delay}" in path.read_text()


def test_type_refuses_a_second_line_and_types_one_line_after_a_read(scene: Scene) -> None:
    before = scene.screen(scene.recv)
    r = scene.as_pane(scene.sender, "type", "worker", "a\nb")
    assert r.rc == 1 and "one line of plain text" in r.err
    assert scene.screen(scene.recv) == before
    unread = scene.as_pane(scene.sender, "type", "worker", "plain words")
    assert unread.rc == 1 and "hail read" in unread.err
    assert scene.as_pane(scene.sender, "read", "worker", "3").rc == 0
    typed = scene.as_pane(scene.sender, "type", "worker", "plain words; end;")
    assert typed.rc == 0, typed.err
    assert scene.count(scene.recv, "plain words; end;") == 1
    assert not (scene.state / "read" / scene.recv.replace("%", "_")).exists()


def test_routing_a_pane_target_binds_nothing_until_the_send_files(scene: Scene) -> None:
    """The resolver only reads: a `seat/%N` target refused for naming the wrong seat leaves the
    pane's seat unbound; the send that files to that pane binds it."""
    root = scene.state / "seats" / "worker" / "root"
    assert not root.exists()
    wrong = scene.as_pane(scene.sender, f"boss/{scene.recv}", "fyi", "not for you", "--no-wake")
    assert wrong.rc == 3 and f"pane {scene.recv} is in seat worker, not boss" in wrong.err
    assert not root.exists()
    sent = scene.as_pane(scene.sender, scene.recv, "fyi", "for you", "--no-wake")
    assert sent.rc == 5, sent.err
    assert root.read_text().strip() == str(scene.pane_path(scene.recv))
