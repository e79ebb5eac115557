"""`hail doctor` through the installed entry point: every check of docs/commands.md "doctor".

Tests that need tmux to answer run the scratch server of tests/support, whose panes run
`bash --norc` and `cat` (agents under HAIL_AGENT_COMMANDS=bash,cat); the rest point HAIL_SOCKET at
nothing, as the world fixture does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import sys
import time
from pathlib import Path

import pytest
import tomlkit

from hail import __version__
from hail.store import fs
from hail.store.store import Store
from tests.support.entry import hail_bin
from tests.support.macos import SHAPED
from tests.support.procs import wait_until
from tests.support.tmux import ScratchTmux
from tests.support.world import World

DAY = 86400
NO_SOCKET_FIX = "FIX  HAIL_SOCKET=/nonexistent/socket is not a tmux socket; unset it or point it at a live server"


#: What doctor says of the processes here: read from /proc, or (a Mac, a macOS-shaped run, where
#: there is none) from ps and lsof.
PROCESSES_LINE = (
    "ok   processes: ps and lsof (portable: no readable /proc)"
    if SHAPED or sys.platform == "darwin"
    else "ok   processes: read from /proc"
)


def _lines(world: World, cwd: str | Path = "boss", **env: str) -> tuple[int, list[str]]:
    r = world.run("doctor", cwd=cwd, env=env or None)
    assert r.stderr == ""
    return r.returncode, r.stdout.splitlines()


def _age(path: Path, days: float) -> None:
    t = time.time() - days * DAY
    os.utime(path, (t, t))


def _tree(root: Path) -> dict[str, tuple[int, int, int]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            st = (Path(dirpath) / name).lstat()
            out[os.path.join(dirpath, name)] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def _post_directly(world: World, mailbox: str, n: int) -> list[str]:
    """n unread messages written with the store itself (faster than n subprocesses)."""
    store = Store(str(world.state))
    out = []
    for i in range(n):
        msg_id = store.reserve_id(mailbox, time.time())
        text = f"from: boss\nreply: boss\nkind: fyi\nid: {msg_id}\nask: m{i}\n\nm{i}\n"
        store.mailbox(mailbox).post(msg_id, text, inline=False)
        out.append(msg_id)
    return out


# --- a scratch tmux server -----------------------------------------------------------------------


def _settle(server: ScratchTmux, count: int) -> None:
    """Wait until the server runs `count` panes, each past its start."""
    listed: list[str] = []

    def settled() -> bool:
        nonlocal listed
        listed = server.cmd("list-panes", "-a", "-F", "#{pane_current_command}").split()
        return len(listed) == count

    assert wait_until(settled), f"tmux panes did not settle: {listed}"


@pytest.fixture
def server(world: World, scratch_tmux: ScratchTmux) -> ScratchTmux:
    """`bash --norc` in boss and `cat` in worker; HAIL_SOCKET points at them."""
    scratch_tmux.new_session(world.seat_dir("boss"), ["bash", "--norc"], width=300, height=50)
    scratch_tmux.new_window(world.seat_dir("worker"), ["cat"])
    _settle(scratch_tmux, 2)
    world.env["HAIL_SOCKET"] = scratch_tmux.socket
    world.env["TMUX_TMPDIR"] = scratch_tmux.env["TMUX_TMPDIR"]
    return scratch_tmux


def test_doctor_a_healthy_install_is_all_ok(world: World, server: ScratchTmux) -> None:
    (world.root / "home" / ".claude").mkdir()
    assert world.run("setup", "--yes").returncode == 0
    world.run("whoami", cwd="worker")
    rc, lines = _lines(world)
    settings = world.root / "home" / ".claude" / "settings.json"
    assert lines == [
        f"ok   hail {__version__} — state {world.state}",
        f"ok   seat here: boss (.hail-seat, {world.seat_dir('boss')})",
        "ok   tmux (HAIL_SOCKET): 2 panes, 2 agents",
        "ok   wake pane for boss: %0",
        f"ok   Claude Code hooks current ({settings})",
        PROCESSES_LINE,
        f"ok   Claude Code can start {hail_bin()} as a hook (a login PATH, no claude running)",
    ]
    assert rc == 0


def test_doctor_unread_mail_nobody_reads_is_a_note_and_keeps_the_exit_code(
    world: World, server: ScratchTmux
) -> None:
    world.run("whoami", cwd="worker")
    assert _lines(world)[0] == 0
    msg_id = world.send("worker", "ask", "anyone there?", known=False)
    rc, lines = _lines(world)
    assert rc == 0
    # The rule and the words of `hail watch`'s trouble (src/hail/diagnosis.py).
    assert (
        f"note worker has 1 unread (oldest {msg_id}) and no hook ever ran: hail setup, then start"
        " a new session in %1 (hail doctor says more)"
    ) in lines
    # a hook run clears the note
    (world.state / "seats" / "worker" / "hooked").touch()
    assert not any(line.startswith("note ") for line in _lines(world)[1])


def test_doctor_without_tmux_the_note_still_names_the_missing_hook(world: World) -> None:
    world.run("whoami", cwd="worker")
    world.send("worker", "ask", "x", known=False)
    rc, lines = _lines(world)
    assert NO_SOCKET_FIX in lines and rc == 1
    assert any(
        line.startswith("note worker has 1 unread (oldest ") and " and no hook ever ran: " in line
        for line in lines
    )


def test_doctor_a_deleted_workspace_is_noted_with_when_gc_takes_it(world: World) -> None:
    world.run("whoami", cwd="worker")
    world.send("worker", "ask", "x", known=False)
    root = world.seat_dir("worker")
    shutil.rmtree(root)
    hooked = world.state / "seats" / "worker" / "hooked"
    hooked.touch()
    _age(hooked, 30)
    later = time.strftime("%Y-%m-%d", time.gmtime(hooked.stat().st_mtime + 90 * DAY))
    _, lines = _lines(world)
    assert (
        f"note seat worker lives in {root}, which is gone; 1 unread; "
        f"hail gc archives its mailbox from {later}"
    ) in lines
    _age(hooked, 100)
    _, lines = _lines(world)
    assert (
        f"note seat worker lives in {root}, which is gone; 1 unread; hail gc archives its mailbox now"
    ) in lines
    assert "note gc is due: 1 mailboxes of deleted workspaces: run hail gc" in lines


def test_doctor_a_state_root_others_can_read_is_a_fix(world: World, server: ScratchTmux) -> None:
    world.run("whoami")
    assert _lines(world)[0] == 0
    world.state.chmod(0o755)
    rc, lines = _lines(world)
    assert rc == 1
    assert lines[1] == (
        f"FIX  state {world.state} is readable by others (mode 755): run chmod 700 {world.state}"
    )


def test_doctor_a_03_inbox_is_noted_and_ignored(world: World) -> None:
    world.run("whoami", cwd="worker")
    (world.state / "inbox").mkdir(mode=0o700)
    (world.state / "inbox" / "stale").write_text("0.3 mail\n")
    _, lines = _lines(world)
    assert lines[1] == (
        f"note 0.3 state in {world.state} is ignored; to import it, run migrate with hail 0.5.x first"
    )
    msg_id = world.send("worker", "ask", "works beside it", cwd="boss", known=False)
    delivered = world.run("deliver", cwd="worker")
    assert delivered.returncode == 0 and "works beside it" in delivered.stdout
    assert world.run("sent", msg_id).stdout.startswith("injected ")
    assert world.run("brief").returncode == 0
    assert (world.state / "inbox" / "stale").read_text() == "0.3 mail\n"


def test_doctor_an_old_read_message_makes_gc_due(world: World) -> None:
    world.run("whoami", cwd="worker")
    msg_id = world.send("worker", "ask", "x", known=False)
    world.run("inbox", cwd="worker")
    _age(world.state / "seats" / "worker" / "cur" / f"{msg_id}.read.md", 100)
    rc, lines = _lines(world)
    assert lines[-1] == "note gc is due: 1 read messages older than 90 days: run hail gc"
    assert rc == 1  # only the tmux FIX: a note never changes the exit code
    assert [line for line in lines if line.startswith("FIX")] == [NO_SOCKET_FIX]


# --- step 1–3 --------------------------------------------------------------------------------------


def test_the_first_line_names_version_and_state_even_before_any_state(world: World) -> None:
    _, lines = _lines(world)
    assert lines[0] == f"ok   hail {__version__} — state {world.state}"
    assert not world.state.exists()


@pytest.mark.parametrize("value", ["abc", "19", "", "3.5"])
def test_an_unusable_envelope_cap_is_noted(world: World, value: str) -> None:
    _, lines = _lines(world, HAIL_ENVELOPE_MAX=value)
    assert lines[1] == (
        f"note HAIL_ENVELOPE_MAX={value} is not a number of at least 20; the cap is 400"
    )


@pytest.mark.parametrize("value", ["20", "160", " 400 "])
def test_a_usable_envelope_cap_is_not_noted(world: World, value: str) -> None:
    assert not any(
        "HAIL_ENVELOPE_MAX" in line for line in _lines(world, HAIL_ENVELOPE_MAX=value)[1]
    )


# --- step 4 ---------------------------------------------------------------------------------------


def test_outside_a_workspace_there_is_no_seat_and_that_is_fine(world: World) -> None:
    elsewhere = world.root / "elsewhere"
    elsewhere.mkdir()
    _, lines = _lines(world, cwd=elsewhere)
    assert lines[1] == f"ok   no seat here ({elsewhere}); fine outside a workspace"


def test_a_binding_conflict_is_a_fix_and_nothing_is_bound(world: World) -> None:
    world.run("whoami")
    twin = world.make_seat("twin", "boss")
    rc, lines = _lines(world, cwd=twin)
    assert rc == 1
    assert lines[1] == (
        f"FIX  seat boss is bound to {world.seat_dir('boss')}; add .hail-seat with another name "
        f"in {twin}"
    )


def test_a_bad_seat_name_is_a_fix(world: World) -> None:
    bad = world.make_seat("bad", "gc")
    rc, lines = _lines(world, cwd=bad)
    assert rc == 1
    assert lines[1].startswith("FIX  seat name 'gc' from ")


def test_doctor_writes_nothing(world: World) -> None:
    world.run("whoami", cwd="worker")
    msg_id = world.send("worker", "ask", "x", known=False)
    world.run("inbox", cwd="worker")
    _age(world.state / "seats" / "worker" / "cur" / f"{msg_id}.read.md", 100)
    new_seat = world.make_seat("fresh")
    before = _tree(world.state)
    for cwd in ("boss", "worker", new_seat):
        world.run("doctor", cwd=cwd)
    assert _tree(world.state) == before
    assert not (world.state / "seats" / "fresh").exists()


# --- step 5 ---------------------------------------------------------------------------------------


def test_a_bad_hail_socket_is_a_fix(world: World) -> None:
    rc, lines = _lines(world)
    assert rc == 1
    assert lines[2] == NO_SOCKET_FIX


def test_a_socket_no_server_answers_is_a_fix_naming_its_source(world: World) -> None:
    path = world.root / "dead.sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()
    env = {k: v for k, v in world.env.items() if k != "HAIL_SOCKET"}
    world.env = env
    rc, lines = _lines(world, TMUX=f"{path},123,0")
    assert rc == 1
    assert lines[2].startswith("FIX  tmux ($TMUX): ")
    assert lines[2].endswith("; start tmux or set HAIL_SOCKET")


def test_tmux_lines_name_the_wake_pane_a_shared_seat_or_none(
    world: World, server: ScratchTmux
) -> None:
    worker_pane = server.cmd("list-panes", "-a", "-F", "#{pane_id} #{pane_current_path}")
    worker_id = next(
        line.split()[0] for line in worker_pane.splitlines() if line.endswith("/worker")
    )
    shared = world.make_seat("shared")
    a = server.new_window(shared, ["cat"])
    b = server.new_window(shared, ["cat"])
    idle = world.make_seat("idle")
    _settle(server, 4)
    assert f"ok   wake pane for worker: {worker_id}" in _lines(world, cwd="worker")[1]
    _, lines = _lines(world, cwd=shared)
    assert "ok   tmux (HAIL_SOCKET): 4 panes, 4 agents" in lines
    assert (
        f"ok   seat shared is shared by 2 agents ({a} {b}): "
        "each Claude pane is addressed as shared@<pane>"
    ) in lines
    assert (
        "ok   no agent pane in seat idle (mail waits for the next session)"
        in (_lines(world, cwd=idle)[1])
    )


# --- step 6 ---------------------------------------------------------------------------------------


def test_missing_hooks_are_a_fix_and_setup_clears_it(world: World) -> None:
    claude = world.root / "home" / ".claude"
    claude.mkdir()
    rc, lines = _lines(world)
    assert rc == 1
    assert (
        f"FIX  Claude Code hooks missing or outdated in {claude / 'settings.json'}: run hail setup"
    ) in lines
    world.run("setup", "--yes")
    assert f"ok   Claude Code hooks current ({claude / 'settings.json'})" in _lines(world)[1]


def test_hails_hooks_in_codex_hooks_json_and_config_toml_are_a_fix(world: World) -> None:
    """Codex runs the hooks of both files, so hail's in both would run twice."""
    codex = world.root / "home" / ".codex"
    codex.mkdir()
    assert world.run("setup", "--yes", "--trust-codex").returncode == 0
    config = codex / "config.toml"
    hooks = tomlkit.parse(config.read_text()).unwrap()["hooks"]
    del hooks["state"]
    (codex / "hooks.json").write_text(json.dumps({"hooks": hooks}))  # a copy in hooks.json
    rc, lines = _lines(world)
    assert rc == 1
    assert (
        f"FIX  hail's hooks are in both {codex / 'hooks.json'} and {config}, so Codex runs each"
        f" twice: run hail setup (it removes them from {config})"
    ) in lines
    world.run("setup", "--yes", "--trust-codex")
    rc, lines = _lines(world)
    assert f"ok   Codex hooks current ({codex / 'hooks.json'})" in lines
    assert not [line for line in lines if "hooks" in line and not line.startswith("ok")], lines


def test_no_harness_installed_means_no_hook_lines(world: World) -> None:
    assert not any("hooks" in line for line in _lines(world)[1])


# --- step 7 ---------------------------------------------------------------------------------------


def test_a_mailbox_keeping_over_5000_read_messages_is_a_fix(world: World) -> None:
    world.run("whoami", cwd="worker")
    cur = world.state / "seats" / "worker" / "cur"
    cur.mkdir(mode=0o700, exist_ok=True)
    for i in range(5000):
        (cur / f"0101T000000-{i:04x}.read.md").touch()
    assert not any("read messages: run hail gc" in line for line in _lines(world)[1])
    (cur / "0101T000001-0000.injected.md").touch()
    assert "FIX  seat worker keeps 5001 read messages: run hail gc" in _lines(world)[1]


# --- step 8 ---------------------------------------------------------------------------------------


def test_unseen_mailboxes_largest_first_at_most_eight_then_a_summary(world: World) -> None:
    store = Store(str(world.state))
    for i in range(10):
        _post_directly(world, f"s{i}", i + 1)
        fs.write_atomic(store.root_file(f"s{i}"), f"{world.make_seat(f's{i}')}\n")
    _, lines = _lines(world)
    notes = [line for line in lines if " unread (oldest " in line]
    assert [n.split()[1] for n in notes] == [f"s{i}" for i in range(9, 1, -1)]
    assert notes[0].startswith("note s9 has 10 unread (oldest ")
    assert notes[0].endswith(
        f"and no hook ever ran: hail setup, then start a new session in {world.seat_dir('s9')}"
        " (hail doctor says more)"
    )
    assert (
        "note … 2 more mailboxes with 3 unread that nobody reads (hail seats: UNREAD, AGENTS and HOOK)"
    ) in lines


def test_the_fix_names_the_oldest_unread_id(world: World) -> None:
    world.run("whoami", cwd="worker")
    first = world.send("worker", "ask", "first", known=False)
    world.send("worker", "ask", "second", known=False)
    _age(world.state / "seats" / "worker" / "new" / f"{first}.md", 1)
    _, lines = _lines(world)
    assert any(f"has 2 unread (oldest {first}) and no hook ever ran: " in x for x in lines)


def test_an_unbound_mailbox_is_read_in_its_directory(world: World) -> None:
    _post_directly(world, "loose", 1)
    _, lines = _lines(world)
    assert any(
        line.startswith("note loose has 1 unread")
        and line.endswith("start a new session in its directory (hail doctor says more)")
        for line in lines
    )


def test_reasons_include_no_agent_and_a_gone_pane_when_tmux_answers(
    world: World, server: ScratchTmux
) -> None:
    world.make_seat("idle")
    world.run("whoami", cwd="idle")
    _post_directly(world, "idle", 2)
    _post_directly(world, "worker@%99", 1)
    hooked = world.state / "seats" / "worker@%99" / "hooked"
    hooked.touch()
    _, lines = _lines(world)
    assert any(
        line.startswith("note idle has 2 unread (oldest ")
        and line.endswith(
            f" and no hook ever ran and no agent sits there: start its agent in"
            f" {world.seat_dir('idle')}, or read it there: cd {world.seat_dir('idle')} && hail inbox"
        )
        for line in lines
    )
    assert any(
        line.startswith("note worker@%99 has 1 unread (oldest ")
        and " and its pane is gone: " in line
        for line in lines
    )


# --- step 10 --------------------------------------------------------------------------------------


def test_gc_due_lists_each_nonzero_part(world: World) -> None:
    world.run("whoami", cwd="worker")
    old = world.send("worker", "ask", "x", known=False)
    world.run("inbox", cwd="worker")
    _age(world.state / "seats" / "worker" / "cur" / f"{old}.read.md", 100)
    hold = world.send("worker", "hold", "freeze", known=False)
    record = world.state / "holds" / hold
    record.write_text(
        re.sub(r"(?m)^expires: .*$", "expires: 2020-01-01T00:00:00Z", record.read_text())
    )
    world.make_seat("temp")
    world.run("whoami", cwd="temp")
    shutil.rmtree(world.seat_dir("temp"))
    _age(world.state / "seats" / "temp" / "root", 100)
    _, lines = _lines(world)
    assert lines[-1] == (
        "note gc is due: 1 read messages older than 90 days, 1 mailboxes of deleted workspaces, "
        "1 lapsed holds: run hail gc"
    )


def test_nothing_old_means_gc_is_not_due(world: World) -> None:
    world.run("whoami", cwd="worker")
    world.send("worker", "ask", "x", known=False)
    world.run("inbox", cwd="worker")
    assert not any("gc is due" in line for line in _lines(world)[1])


# --- step 11 --------------------------------------------------------------------------------------


def test_recent_hook_errors_are_counted_with_the_last_one(world: World) -> None:
    world.run("whoami")
    now = time.time()
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - 10 * DAY))
    first = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - 2 * DAY))
    last = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - 60))
    long_tail = "x" * 300
    (world.state / "hook-errors.log").write_text(
        f"{old} deliver: too old to count\n"
        f"{first} brief: first recent\n"
        f"{last} deliver: [Errno 13] Permission denied {long_tail}\n"
    )
    _, lines = _lines(world)
    line = lines[-1]
    head = f"note hook-errors.log has 2 errors since {first}; the last: "
    assert line.startswith(head)
    log = world.state / "hook-errors.log"
    assert line[len(head) :] == (
        f"{last} deliver: [Errno 13] Permission denied {long_tail}"[:159]
        + f"…: the log says which hook failed and why: tail {log}"
    )


def test_only_old_hook_errors_say_nothing(world: World) -> None:
    world.run("whoami")
    (world.state / "hook-errors.log").write_text("2020-01-01T00:00:00Z deliver: long ago\n")
    assert not any("hook-errors" in line for line in _lines(world)[1])


def test_a_real_hook_failure_shows_up(world: World) -> None:
    world.run("whoami", cwd="worker")
    world.send("worker", "ask", "x", known=False)
    # cur/ that is not a directory: the claim fails even for root, which chmod would not stop
    cur = world.state / "seats" / "worker" / "cur"
    cur.rmdir()
    cur.write_text("")
    r = world.run("deliver", "--format", "claude", cwd="worker")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    _, lines = _lines(world)
    (note,) = [
        line for line in lines if line.startswith("note hook-errors.log has 1 errors since ")
    ]
    assert " deliver: " in note.split("; the last: ", 1)[1]


# --- hooks that cannot run ------------------------------------------------------------------------


@pytest.mark.tmux
def test_a_harness_whose_path_lacks_hail_is_a_fix_naming_it(
    world: World, server: ScratchTmux, tmp_path: Path
) -> None:
    """hail sits in ~/.local/bin, so setup names it bare; the running claude was started with a PATH
    without it, so every hook would fail with `hail: not found`: doctor runs the hook's program in
    that claude's environment and says so."""
    home = world.root / "home"
    (home / ".claude").mkdir()
    local_bin = home / ".local" / "bin"
    local_bin.mkdir(parents=True)
    (local_bin / "hail").symlink_to(hail_bin())
    assert world.run("setup", "--yes").returncode == 0
    assert (
        '"command": "hail deliver --format claude"'
        in (home / ".claude" / "settings.json").read_text()
    )
    fake = tmp_path / "fakebin" / "claude"  # a process named claude, as the agent's would be
    fake.parent.mkdir()
    shutil.copy("/bin/sleep", fake)
    pane = server.new_window(
        world.seat_dir("worker"), ["env", "PATH=/usr/bin:/bin", str(fake), "600"]
    )
    rc, lines = _lines(world, HAIL_AGENT_COMMANDS="claude")
    assert rc == 1, lines
    fix = [line for line in lines if line.startswith("FIX  Claude Code cannot run its hooks")]
    assert len(fix) == 1, lines
    assert fix[0].startswith(
        "FIX  Claude Code cannot run its hooks: hail: not found (with the environment of claude in"
        f" {pane}, PATH=/usr/bin:/bin); "
    ), fix[0]
    assert fix[0].endswith(
        "run hail setup where hail is not on a login PATH (it then names hail by its absolute"
        " path), or put hail's directory on the PATH the harness starts with, then restart it"
    )


def test_a_hook_program_that_runs_is_none_and_one_that_does_not_says_why(tmp_path: Path) -> None:
    from hail.install.hook_check import run_as_hook

    assert run_as_hook(hail_bin(), {"PATH": "/usr/bin:/bin"}) is None
    assert run_as_hook("hail", {"PATH": str(Path(hail_bin()).parent)}) is None
    assert run_as_hook("hail", {"PATH": "/nonexistent"}) == "hail: not found"
    assert (
        run_as_hook("/nonexistent/hail", {"PATH": "/usr/bin:/bin"})
        == "/nonexistent/hail: not found"
    )
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "hail").symlink_to(hail_bin())
    assert run_as_hook("~/bin/hail", {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}) is None
    failing = tmp_path / "fails" / "hail"
    failing.parent.mkdir()
    failing.write_text("#!/bin/sh\necho broken install >&2\nexit 3\n")
    failing.chmod(0o755)
    said = run_as_hook(str(failing), {"PATH": "/usr/bin:/bin"})
    assert said == f"{failing} --version said: broken install"


def _hooks_naming(world: World, program: str) -> Path:
    """A Claude Code settings.json whose hail hooks all run `program` (written by hand)."""
    from hail.install.hook_table import hook_groups

    settings = world.root / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"hooks": hook_groups("claude", program)}, indent=2) + "\n")
    return settings


@pytest.mark.parametrize(
    "program",
    [
        "true;touch${IFS}MARKER;/hail",
        "$(touch${IFS}MARKER)/hail",
        "`touch${IFS}MARKER`/hail",
        "BIN&&touch${IFS}MARKER&&/hail",
        "'/nonexistent'||touch${IFS}MARKER||/hail",
    ],
    ids=["semicolon", "dollar-paren", "backticks", "and", "quoted-or"],
)
def test_a_hook_command_that_is_not_hails_shape_is_reported_and_never_run(
    world: World, program: str
) -> None:
    marker = world.root / "ran"
    _hooks_naming(world, program.replace("MARKER", str(marker)).replace("BIN", hail_bin()))
    rc, lines = _lines(world)
    assert not marker.exists(), "doctor ran shell code from a hook command"
    assert rc == 1
    # Not hail's own form: it counts as no hook of hail's, and nothing of it is run.
    (fix,) = [line for line in lines if line.startswith("FIX  Claude Code hooks")]
    assert fix.endswith(": run hail setup")


def test_a_hook_program_named_by_its_path_or_on_path_is_run_without_a_shell(
    world: World, tmp_path: Path
) -> None:
    """The program is found on the agent's PATH by hail itself and run with an argument list:
    a directory holding shell syntax in its name is only a name."""
    odd = tmp_path / "a;b$(x)"
    odd.mkdir()
    (odd / "hail").symlink_to(hail_bin())
    shlex_quoted = "'" + str(odd / "hail") + "'"
    _hooks_naming(world, shlex_quoted)
    _, lines = _lines(world)
    assert (
        f"ok   Claude Code can start {shlex_quoted} as a hook (a login PATH, no claude running)"
        in lines
    )


def test_doctor_says_which_process_backend_answers(world: World) -> None:
    """By capability: /proc here; the portable one when forced (docs/transport.md "Processes")."""
    assert PROCESSES_LINE in _lines(world)[1]
    forced = _lines(world, HAIL_PROCESS_BACKEND="portable")[1]
    assert "ok   processes: ps and lsof (portable, as HAIL_PROCESS_BACKEND asks)" in forced
