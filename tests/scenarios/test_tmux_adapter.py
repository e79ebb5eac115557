"""The tmux adapter, the pane survey and wake(), against a private tmux server."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from hail import policy
from hail.errors import DialogError
from hail.harnesses.registry import agent_commands
from hail.transport import screen
from hail.transport import wake as wake_mod
from hail.transport.panes import Pane, process_name, survey
from hail.transport.tmux import (
    SocketError,
    Tmux,
    TmuxError,
    default_socket,
    escape_last_semicolon,
)
from tests.support.procs import wait_until
from tests.support.tmux import ScratchTmux


@dataclass
class Server:
    """A scratch tmux server running `cat` in `root`, and hail's adapter to it."""

    root: Path
    scratch: ScratchTmux
    tmux: Tmux

    @property
    def env(self) -> dict[str, str]:
        return self.scratch.env

    def cmd(self, *args: str) -> str:
        return self.scratch.cmd(*args)

    def pane(self, cwd: Path, *argv: str) -> str:
        return self.scratch.new_window(cwd, argv)

    def screen(self, pane: str) -> str:
        return "\n".join(self.tmux.capture(pane))

    def shows(self, pane: str, text: str) -> Callable[[], bool]:
        """A check that the pane's screen holds `text`."""
        return lambda: text in self.screen(pane)


@pytest.fixture
def server(tmp_path: Path, scratch_tmux: ScratchTmux) -> Server:
    scratch_tmux.env["LANG"] = "C.UTF-8"
    scratch_tmux.new_session(tmp_path, ["cat"], width=200, height=40)
    return Server(
        tmp_path, scratch_tmux, Tmux(scratch_tmux.socket, "HAIL_SOCKET", scratch_tmux.env)
    )


def test_hail_socket_must_be_a_socket(tmp_path: Path) -> None:
    plain = tmp_path / "file"
    plain.write_text("")
    with pytest.raises(SocketError, match=f"HAIL_SOCKET={plain} is not a tmux socket; unset it"):
        Tmux.from_env({"HAIL_SOCKET": str(plain)})


def test_the_socket_comes_from_hail_socket_then_tmux_then_the_default(server: Server) -> None:
    sock = server.tmux.socket
    assert sock is not None
    assert Tmux.from_env({"HAIL_SOCKET": sock, "TMUX": "/x,1,0"}).source == "HAIL_SOCKET"
    via_tmux = Tmux.from_env({"TMUX": f"{sock},123,0"})
    assert (via_tmux.source, via_tmux.socket) == ("$TMUX", sock)
    tmpdir = server.root / "tmux-tmpdir"
    default = Path(default_socket({"TMUX_TMPDIR": str(tmpdir)}))
    with pytest.raises(TmuxError, match="no server running"):
        Tmux.from_env({"TMUX": "/nonexistent/socket,1,0", "TMUX_TMPDIR": str(tmpdir)})
    default.parent.mkdir(parents=True)
    default.symlink_to(sock)  # a live server on the default socket
    stale = Tmux.from_env({"TMUX": "/nonexistent/socket,1,0", "TMUX_TMPDIR": str(tmpdir)})
    assert (stale.source, stale.socket) == ("default server", None)


def test_a_missing_binary_and_a_dead_server_are_tmux_errors(server: Server) -> None:
    no_bin = Tmux(server.tmux.socket, "HAIL_SOCKET", {"PATH": str(server.root / "none")})
    with pytest.raises(TmuxError, match=r"^cannot run tmux: .*; is it installed and on PATH\?$"):
        no_bin.list_panes()
    dead = Tmux(str(server.root / "gone.sock"), "HAIL_SOCKET", server.env)
    with pytest.raises(TmuxError, match=r"^tmux: "):
        dead.list_panes()
    with pytest.raises(TmuxError, match="can't find pane"):
        server.tmux.resolve("%999")


def test_list_panes_reads_every_field(server: Server) -> None:
    server.pane(server.root, "sleep", "60")
    # Just after new-window the pane may still show the command tmux forked with, and no path
    # while tmux cannot yet read its working directory.
    assert wait_until(
        lambda: (
            [(r.command, bool(r.path)) for r in server.tmux.list_panes()]
            == [("cat", True), ("sleep", True)]
        )
    )
    rows = server.tmux.list_panes()
    first = rows[0]
    assert first.id == "%0" and first.pid > 0
    assert rows[1].path == str(server.root)


def test_the_last_semicolon_is_escaped_and_every_other_byte_typed_as_is(server: Server) -> None:
    assert escape_last_semicolon("a;") == "a\\;"
    assert escape_last_semicolon("a;b") == "a;b"
    for text in ("ends;", ";", "x\\;", "mid; dle"):
        server.tmux.type_literal("%0", text + " |", cancel_mode=False)
        server.tmux.type_literal("%0", text, cancel_mode=False)
        server.tmux.send_keys("%0", ["Enter"], cancel_mode=False)
        assert wait_until(server.shows("%0", f"{text} |{text}")), text


def test_keys_and_typing_leave_copy_mode_first(server: Server) -> None:
    server.cmd("copy-mode", "-t", "%0")
    assert server.tmux.in_mode("%0")
    server.tmux.type_literal("%0", "after copy", cancel_mode=True)
    assert not server.tmux.in_mode("%0")
    server.cmd("copy-mode", "-t", "%0")
    server.tmux.send_keys("%0", ["Enter"], cancel_mode=True)
    assert not server.tmux.in_mode("%0")
    assert wait_until(lambda: server.screen("%0").count("after copy") == 2)


def test_agents_are_found_by_command_root_process_or_direct_child(server: Server) -> None:
    seat = server.root / "proj"
    seat.mkdir()
    (seat / ".hail-seat").write_text("proj\n")
    bad = server.root / "bad"
    bad.mkdir()
    (bad / ".hail-seat").write_text("not a name!\n")
    bindir = server.root / "bin"
    bindir.mkdir()
    (bindir / "claude").symlink_to("/bin/sleep")
    (bindir / "-codex").symlink_to("/bin/sh")
    by_root = server.pane(seat, str(bindir / "claude"), "60")
    by_child = server.pane(seat, "sh", "-c", f"'{bindir / '-codex'}' -c 'sleep 60; :'; :")
    shell = server.pane(bad, "sleep", "60")
    env = {"HAIL_AGENT_COMMANDS": ""}
    # The shell starts its `-codex` child a moment after the pane appears.
    assert wait_until(
        lambda: survey(server.tmux, env, str(server.root)).agents_in("proj").__len__() == 2
    )
    panes = survey(server.tmux, env, str(server.root))
    got = {p.id: (p.agent, p.seat) for p in panes.panes}
    assert got[by_root] == ("claude", "proj")
    assert got[by_child] == ("codex", "proj")
    assert got[shell] == (None, None)
    assert got["%0"] == (None, None)
    assert [p.label for p in panes.agents_in("proj")] == [f"{by_root}:claude", f"{by_child}:codex"]
    assert panes.seat_names() == {"proj"}
    codex = panes.get(by_child)
    assert codex is not None and codex.is_codex
    as_cat = survey(server.tmux, {"HAIL_AGENT_COMMANDS": " cat , x"}, str(server.root))
    assert next(p.agent for p in as_cat.panes) == "cat"


def test_agent_names_and_the_command_list() -> None:
    known = ["claude", "codex", "gemini", "opencode", "qwen", "copilot"]
    assert agent_commands({}) == known
    assert agent_commands({"HAIL_AGENT_COMMANDS": " , "}) == known
    assert agent_commands({"HAIL_AGENT_COMMANDS": "bash,cat"}) == ["bash", "cat"]
    assert process_name("/usr/local/bin/claude") == "claude"
    assert process_name("-zsh") == "zsh"


#: What an agent named in HAIL_AGENT_COMMANDS shows: a screen hail does not know.
UNKNOWN = screen.Verdict("none")


def _pane(server: Server, pane_id: str, agent: str = "cat") -> Pane:
    row = next(r for r in server.tmux.list_panes() if r.id == pane_id)
    return Pane(row.id, row.pid, row.command, row.path, agent, None)


def test_wake_types_once_sees_the_id_and_submits(server: Server) -> None:
    envelope = "[hail kind:ask from:boss reply:boss id:0101T000000-abcd] hello @notes"
    result = wake_mod.wake(server.tmux, _pane(server, "%0"), envelope, UNKNOWN, submit=True)
    assert result == wake_mod.WakeResult(True, True, "")
    assert wait_until(lambda: server.screen("%0").count("id:0101T000000-abcd") == 2)
    # The trailing space was typed too: it closes a mention popup.
    assert f"{envelope} \n" in "\n".join(server.tmux.capture("%0")) + "\n"
    held = wake_mod.wake(
        server.tmux, _pane(server, "%0"), envelope.replace("abcd", "beef"), UNKNOWN, submit=False
    )
    assert held == wake_mod.WakeResult(True, False, "")
    time.sleep(0.4)
    assert server.screen("%0").count("id:0101T000000-beef") == 1


def test_wake_reports_a_pane_that_cannot_be_typed_into(server: Server) -> None:
    gone = Pane("%77", 1, "cat", "/", "cat", None)
    result = wake_mod.wake(server.tmux, gone, "[hail id:0101T000000-0000] x", UNKNOWN, submit=True)
    assert not result.typed and not result.submitted
    assert result.reason.startswith("typing into %77 failed: tmux: ")


def test_wake_never_presses_enter_for_text_it_cannot_see(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(policy, "TYPE_SEEN_TIMEOUT", 0.5)
    # Echo off: the typed text never shows, and an Enter would flush the line into the file.
    lines = server.root / "lines"
    quiet = server.pane(server.root, "sh", "-c", f"stty -echo; exec cat > '{lines}'")
    assert wait_until(lambda: lines.exists() and server.tmux.list_panes()[-1].command == "cat")
    result = wake_mod.wake(
        server.tmux, _pane(server, quiet), "[hail id:0101T000000-0001] unseen", UNKNOWN, submit=True
    )
    assert result.typed and not result.submitted
    # The reason states the policy's wait: the 0.5 s this test set.
    assert result.reason == (
        f"typed into {quiet} but not seen there after 0.5 s, so not submitted; "
        f"hail read {quiet} 10 to check, then hail keys {quiet} Enter"
    )
    time.sleep(0.5)
    assert lines.read_text() == ""


def test_the_dialog_guard_reads_the_screen(server: Server) -> None:
    server.tmux.type_literal("%0", "Do you want to proceed?", cancel_mode=False)
    server.tmux.send_keys("%0", ["Enter"], cancel_mode=False)
    assert wait_until(lambda: "Do you want" in server.screen("%0"))
    with pytest.raises(DialogError, match=r"^%0 shows a permission/approval dialog; text typed"):
        wake_mod.look(server.tmux, "%0")
    # A pane that cannot be captured is left to the typing step to report.
    assert wake_mod.look(server.tmux, "%77") is None


def test_the_submit_pause_grows_with_the_text() -> None:
    assert wake_mod.submit_pause(10) == pytest.approx(0.3)
    assert wake_mod.submit_pause(1000) == pytest.approx(0.7)
