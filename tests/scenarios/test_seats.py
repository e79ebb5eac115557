"""Seats and identity with live panes: stale TMUX_PANE, shared directories, agent detection, the
identity-split warning and the seats table."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.scenarios.conftest import Scene
from tests.support.entry import hail_bin
from tests.support.procs import wait_until


def test_a_stale_tmux_pane_never_decides_the_seat(scene: Scene) -> None:
    out = scene.root / "whoami.out"
    worker = scene.seat_dir("worker")
    env = {**scene.env, "HAIL_SOCKET": scene.socket, "TMUX_PANE": scene.sender}
    # Double fork into a new session: no controlling terminal, parent gone, TMUX_PANE inherited.
    subprocess.run(
        ["setsid", "sh", "-c", f"(cd '{worker}' && '{hail_bin()}' whoami > '{out}' 2>&1 &)"],
        env=env,
        check=True,
        timeout=10,
    )
    assert wait_until(lambda: out.exists() and "seat:" in out.read_text(), 10)
    assert "seat: worker" in out.read_text()
    spoofed = subprocess.run(
        ["bash", "-c", f"cd '{worker}' && (exec -a 'codex app-server' '{hail_bin()}' whoami)"],
        env=env,
        cwd=scene.seat_dir("boss"),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert "seat: worker" in spoofed.stdout, spoofed.stderr


def test_a_shared_directory_addresses_each_claude_pane_as_a_sub_seat(scene: Scene) -> None:
    shared = scene.make_seat("shared")
    p1 = scene.new_pane(shared, "cat")
    p2 = scene.new_pane(shared, "cat")
    assert wait_until(lambda: scene.command(p1) == "cat" and scene.command(p2) == "cat")
    bare = scene.as_pane(scene.sender, "shared", "ask", "which one")
    assert bare.rc == 3
    assert f"address one: shared@{p1} shared@{p2}" in bare.err
    to_p2 = scene.as_pane(scene.sender, f"shared@{p2}", "ask", "for p2", stdin="p2 body\n")
    assert to_p2.rc == 0, to_p2.err
    assert f"{to_p2.id}.md" in scene.new_files(f"shared@{p2}")
    assert scene.wait_count(p2, f"id:{to_p2.id}", 2)
    assert scene.count(p1, f"id:{to_p2.id}") == 0
    to_p1 = scene.as_pane(scene.sender, p1, "ask", "for p1", stdin="p1 body\n")
    assert to_p1.rc == 0, to_p1.err
    assert f"{to_p1.id}.md" in scene.new_files(f"shared@{p1}")
    as_p1 = scene.as_pane(p1, "deliver")
    assert "p1 body" in as_p1.out and "p2 body" not in as_p1.out
    as_p2 = scene.as_pane(p2, "deliver")
    assert "p2 body" in as_p2.out
    signed = scene.as_pane(p2, "boss", "fyi", "from a sub-seat", "--no-wake")
    assert signed.rc == 5
    assert (
        f"from: shared@{p2}\n" in (scene.state / "seats/boss/new" / f"{signed.id}.md").read_text()
    )

    scene.tmux("kill-pane", "-t", p1)
    again = scene.as_pane(scene.sender, f"shared@{p2}", "ask", "still p2", stdin="second p2 body\n")
    assert again.rc == 0, again.err
    seat_mail = scene.as_pane(scene.sender, "shared", "ask", "to the seat", stdin="seat body\n")
    assert seat_mail.rc == 0, seat_mail.err
    inbox = scene.as_pane(p2, "inbox", "--peek")
    assert "second p2 body" in inbox.out and "seat body" in inbox.out
    codex = scene.as_pane(p2, "inbox", "--peek", env={"CODEX_THREAD_ID": "x"})
    assert "seat body" in codex.out and "second p2 body" not in codex.out


def _link(bindir: Path, name: str, target: str) -> Path:
    bindir.mkdir(parents=True, exist_ok=True)
    link = bindir / name
    link.symlink_to(target)
    return link


def test_a_hold_from_a_shared_pane_is_reported_back_to_that_pane_when_it_lapses(
    scene: Scene,
) -> None:
    shared = scene.make_seat("shared")
    p1 = scene.new_pane(shared, "cat")
    p2 = scene.new_pane(shared, "cat")
    assert wait_until(lambda: scene.command(p1) == "cat" and scene.command(p2) == "cat")
    # A control kind writes no pending record: the signing sub-seat must exist all the same.
    hold = scene.as_pane(p2, "worker", "hold", "do not touch the parser", "--no-wake")
    assert hold.rc == 5, hold.err
    assert (scene.state / "seats" / f"shared@{p2}").is_dir()
    record = scene.state / "holds" / hold.id
    assert f"issuer: shared@{p2}\n" in record.read_text()
    record.write_text(
        "".join(
            "expires: 2020-01-01T00:00:00Z\n" if line.startswith("expires: ") else line
            for line in record.read_text().splitlines(keepends=True)
        )
    )
    brief = scene.as_pane(p2, "brief")
    assert "my holds that lapsed" in brief.out, brief.out
    assert f"id:{hold.id}]" in brief.out
    assert (scene.state / "holds" / "lapsed" / hold.id).exists()


def test_agents_are_found_by_root_process_and_by_a_child_of_the_shell(scene: Scene) -> None:
    del scene.env["HAIL_AGENT_COMMANDS"]
    bindir = scene.root / "bin"
    claude_cat = _link(bindir, "claude", "/bin/cat")
    # A `claude` that is a shell running a tool (sleep), started by the pane's root shell.
    claude_sh = _link(bindir / "child", "claude", "/bin/sh")
    c1, c2, c3 = (scene.make_seat(n) for n in ("c1", "c2", "c3"))
    p1 = scene.new_pane(c1, str(claude_cat))
    p2 = scene.new_pane(c2, "sh", "-c", f"'{claude_sh}' -c 'sleep 600; :'; :")
    p3 = scene.new_pane(c3, "sleep", "600")
    assert wait_until(lambda: scene.command(p3) == "sleep")
    table = scene.as_pane(scene.sender, "seats")
    rows = {line.split()[0]: line for line in table.out.split("\n")[1:] if line}
    assert f"{p1}:claude" in rows["c1"]
    assert f"{p2}:claude" in rows["c2"]
    assert rows["c3"].split()[1] == "-"
    # A `claude` that is really `cat` draws no Claude Code composer: nothing is typed into it.
    fake = scene.as_pane(scene.sender, "c1", "announce", "to a claude")
    assert fake.rc == 5 and f"{p1} shows no claude composer" in fake.err, fake.err
    assert scene.as_pane(scene.sender, "c3", "announce", "to a sleep").rc == 5


def test_an_agent_started_by_a_launcher_in_the_shell_is_found(scene: Scene) -> None:
    """npm's Codex: the shell runs `codex`, a node script that starts the native `codex` binary."""
    del scene.env["HAIL_AGENT_COMMANDS"]
    bindir = scene.root / "launcher"
    node = _link(bindir, "node", "/bin/sh")
    native = _link(bindir / "native", "codex", "/bin/sleep")
    other = _link(bindir / "other", "sleep", "/bin/sleep")

    def launch(seat_name: str, program: Path) -> str:
        # An interactive shell with job control, as a person's pane has: the launcher becomes
        # the foreground process, so tmux reports it as the pane's current command.
        pane = scene.new_pane(scene.make_seat(seat_name), "bash", "--norc", "--noprofile", "-i")
        scene.tmux("send-keys", "-t", pane, "-l", f"'{node}' -c '\"{program}\" 600; :'")
        scene.tmux("send-keys", "-t", pane, "Enter")
        assert wait_until(lambda: scene.command(pane) == "node"), scene.command(pane)
        return pane

    pane = launch("npmcodex", native)
    table = scene.as_pane(scene.sender, "seats", "npmcodex")
    assert f"{pane}:codex" in table.out, table.out
    # The same launcher running something else is not an agent.
    launch("plainnode", other)
    row = scene.as_pane(scene.sender, "seats", "plainnode").out.split("\n")[1]
    assert row.split()[1] == "-", row


def test_a_pane_working_elsewhere_gets_the_identity_split_warning(scene: Scene) -> None:
    split = scene.as_pane(
        scene.sender, "boss", "fyi", "from worker dir", "--no-wake", cwd=scene.seat_dir("worker")
    )
    assert split.rc == 5
    assert (
        f"warning: this sends as worker (from this directory), but your pane {scene.sender} works in"
        in split.err
    )
    assert "/boss, seat boss, where your hooks deliver" in split.err
    home = scene.as_pane(scene.sender, "worker", "fyi", "from my own dir", "--no-wake")
    assert "warning:" not in home.err


def test_the_seats_table_shows_agents_unread_and_hook_age(scene: Scene) -> None:
    assert scene.as_pane(scene.sender, "worker", "ask", "one unread", "--no-wake").rc == 5
    table = scene.as_pane(scene.sender, "seats")
    assert table.rc == 0, table.err
    lines = table.out.split("\n")
    assert lines[0].split() == [
        *("SEAT", "AGENTS", "STATE", "ROUTE", "UNREAD", "HOOK", "ROOT", "CONTEXT", "ON")
    ]
    assert lines[0].startswith("SEAT  ")
    worker = next(line for line in lines if line.startswith("worker "))
    cells = worker.split()
    # `cat` is an agent only by HAIL_AGENT_COMMANDS: hail does not know its screen, and it has no
    # native route: a send types into it.
    assert cells[1] == f"{scene.recv}:cat" and cells[2] == "?" and cells[3] == "type"
    assert cells[4] == "1" and cells[5] == "-"
    assert scene.as_pane(scene.recv, "deliver", "--format", "claude").rc == 0
    after = scene.as_pane(scene.sender, "seats", "worker")
    row = next(line for line in after.out.split("\n") if line.startswith("worker "))
    assert row.split()[5].endswith("s")
    assert row.split()[4] == "0"
    # Without tmux the agents are unknown, not absent.
    offline = scene.as_pane(scene.sender, "seats", env={"HAIL_SOCKET": "/nonexistent/socket"})
    row = next(line for line in offline.out.split("\n") if line.startswith("worker "))
    assert row.split()[1:4] == ["?", "-", "-"]
    missing = scene.as_pane(scene.sender, "seats", "nobody")
    assert missing.rc == 1 and "no seat nobody" in missing.err
    assert os.path.isdir(scene.state)


def test_an_agent_run_by_node_is_told_by_its_script(scene: Scene) -> None:
    """Gemini CLI runs as `node …/bin/gemini` (and relaunches itself as a node child): the
    process is named node, and only its script says which agent it is."""
    del scene.env["HAIL_AGENT_COMMANDS"]
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs node")
    scripts = scene.root / "scripts"
    scripts.mkdir()
    for name in ("gemini", "server.js"):
        (scripts / name).write_text("setInterval(() => {}, 1000)\n")
    gem = scene.new_pane(scene.make_seat("gem"), node, "--no-warnings", str(scripts / "gemini"))
    other = scene.new_pane(scene.make_seat("plainjs"), node, str(scripts / "server.js"))
    assert wait_until(lambda: scene.command(gem) == "node" and scene.command(other) == "node")
    table = scene.as_pane(scene.sender, "seats")
    rows = {line.split()[0]: line for line in table.out.split("\n")[1:] if line}
    assert f"{gem}:gemini" in rows["gem"], table.out
    assert rows["plainjs"].split()[1] == "-", table.out


def test_an_agent_that_wakes_itself_gets_a_wake_mark_and_nothing_typed(scene: Scene) -> None:
    """opencode's plugin watches its mailbox for `wake`: a send renames it into place and types
    nothing; a quiet fyi writes none; a seat whose plugin never ran is told to run setup."""
    del scene.env["HAIL_AGENT_COMMANDS"]
    opencode = _link(scene.root / "oc", "opencode", "/bin/cat")
    seat = scene.make_seat("oc")
    pane = scene.new_pane(seat, str(opencode))
    assert wait_until(lambda: scene.command(pane) == "opencode")
    wake = scene.state / "seats" / "oc" / "wake"

    unhooked = scene.as_pane(scene.sender, "oc", "ask", "before any hook ran")
    assert unhooked.rc == 5, unhooked
    assert f"opencode in {pane} wakes itself on new mail, but hail's plugin has not run" in (
        unhooked.err
    )
    assert not wake.exists()

    # The prompt hook of a plugin that watches nothing (an older one) ran in that seat.
    hooked = scene.run("deliver", "--format", "opencode", cwd=seat, stdin="{}")
    assert hooked.rc == 0, hooked
    unwatched = scene.as_pane(scene.sender, "oc", "ask", "before any watch")
    assert unwatched.rc == 5, unwatched
    assert "but hail's plugin there does not watch this mailbox" in unwatched.err, unwatched
    assert not wake.exists()
    # The prompt hook of a plugin that watches ran there.
    payload = '{"session_id":"ses_1","watching":true}'
    hooked = scene.run("deliver", "--format", "opencode", cwd=seat, stdin=payload)
    assert hooked.rc == 0, hooked
    quiet = scene.as_pane(scene.sender, "oc", "fyi", "a quiet note")
    assert quiet.rc == 0 and "quiet:" in quiet.err, quiet
    assert not wake.exists(), "an fyi wakes nobody"

    sent = scene.as_pane(scene.sender, "oc", "ask", "are you there?")
    assert sent.rc == 0, sent
    assert (
        sent.err
        == f"hail: woken by its plugin: opencode in {pane} takes it when its session is idle\n"
    )
    assert wake.read_text() == sent.id
    assert sent.id not in scene.screen(pane), "nothing typed"

    # A wake mark that cannot be written (a directory stands in its place: a real OSError) is no
    # error once the message is filed: not woken, exit 5, and the message waits in the inbox.
    wake.unlink()
    (wake / "x").mkdir(parents=True)
    stuck = scene.as_pane(scene.sender, "oc", "ask", "still there?")
    assert stuck.rc == 5, stuck
    assert f"not woken (could not leave the wake mark {wake}: " in stuck.err, stuck
    assert "internal error" not in stuck.err
    assert (scene.state / "seats" / "oc" / "new" / f"{stuck.id}.md").exists()
