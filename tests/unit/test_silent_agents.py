"""`hail doctor`'s line for an agent pane whose seat has had no hook since the agent started
(docs/commands.md "doctor"), on real processes named like the agents; tmux is not needed to ask."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hail import policy
from hail.context import Ctx
from hail.install.hook_check import silent_agent_lines
from hail.transport.panes import Pane, Panes
from tests.support.procs import wait_until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


class _Later(Ctx):
    """The same context, asked past the grace an agent has to run its first hook."""

    def now(self) -> float:
        return super().now() + policy.DOCTOR_AGENT_GRACE_SECONDS + 5


@pytest.fixture
def agents(tmp_path: Path) -> Iterator[dict[str, int]]:
    """A process of each harness (copies of sleep), by name."""
    procs = {}
    for name in ("claude", "codex", "gemini", "opencode", "qwen", "copilot"):
        exe = tmp_path / "bin" / name
        exe.parent.mkdir(exist_ok=True)
        shutil.copy(shutil.which("sleep") or "/bin/sleep", exe)
        procs[name] = subprocess.Popen([str(exe), "600"])
    # Popen can return before the exec has renamed the child: until then it is still `python`.
    assert wait_until(lambda: all(_named(p.pid, name) for name, p in procs.items()))
    yield {name: p.pid for name, p in procs.items()}
    for p in procs.values():
        p.kill()
        p.wait()


def _named(pid: int, name: str) -> bool:
    return Path(f"/proc/{pid}/comm").read_text().strip() == name


def _ctx(tmp_path: Path) -> Ctx:
    env = {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state")}
    return _Later.from_env(env)


def _panes(agents: dict[str, int]) -> Panes:
    return Panes(
        [
            Pane("%1", agents["claude"], "claude", "/w/a", "claude", "a"),
            Pane("%2", agents["codex"], "codex", "/w/b", "codex", "b"),
            Pane("%3", agents["gemini"], "gemini", "/w/c", "gemini", "c"),
            Pane("%4", agents["opencode"], "opencode", "/w/d", "opencode", "d"),
            Pane("%5", agents["qwen"], "qwen", "/w/e", "qwen", "e"),
            Pane("%6", agents["copilot"], "node", "/w/f", "copilot", "f"),
        ]
    )


def test_an_agent_with_no_hook_since_it_started_is_named_per_harness(
    tmp_path: Path, agents: dict[str, int]
) -> None:
    lines = silent_agent_lines(_ctx(tmp_path), _panes(agents))
    assert [status for status, _ in lines] == ["FIX", "note", "FIX", "FIX", "FIX", "note"]
    claude, codex, gemini, opencode, qwen, copilot = (text for _, text in lines)
    assert claude.startswith("claude in %1 (seat a) started ")
    assert claude.endswith(
        "no hail hook has run in a since: its hooks do not run: hail setup, then restart the agent"
        " in %1 (hail doctor's hook lines say why hooks do not run)"
    )
    # Codex runs its first hook at the first prompt: an idle new session is only a note.
    assert codex.startswith("codex in %2 (seat b) started ")
    assert codex.endswith(
        "no hail hook has run in b since: it has had no prompt yet, or its hooks do not run:"
        " hail setup --trust-codex (Codex runs new hooks once trusted, the first at its first"
        " prompt)"
    )
    # Gemini CLI runs SessionStart as it starts, opencode its plugin as it loads.
    assert gemini.startswith("gemini in %3 (seat c) started ")
    assert opencode.startswith("opencode in %4 (seat d) started ")
    # Qwen Code runs SessionStart as its TUI starts: silent is broken.
    assert qwen.startswith("qwen in %5 (seat e) started ")
    assert qwen.endswith(
        "its hooks do not run: hail setup, then restart the agent in %5 (hail"
        " doctor's hook lines say why hooks do not run)"
    )
    # Copilot CLI too runs its first hook (sessionStart) at its first prompt.
    assert copilot.startswith("copilot in %6 (seat f) started ")
    assert copilot.endswith(
        "no hail hook has run in f since: it has had no prompt yet, or its hooks do not run:"
        " hail setup, then restart it (Copilot CLI reads hooks files as it starts and runs the"
        " first at its first prompt)"
    )


def test_a_hook_run_since_the_agent_started_clears_its_line(
    tmp_path: Path, agents: dict[str, int]
) -> None:
    ctx = _ctx(tmp_path)
    ctx.store.ensure()
    for seat in ("a", "b", "c", "d", "e", "f"):
        box = ctx.store.mailbox(seat)
        os.makedirs(box.path, exist_ok=True)
        box.touch_hooked()
    assert silent_agent_lines(ctx, _panes(agents)) == []


def test_an_agent_within_its_grace_is_not_named(tmp_path: Path, agents: dict[str, int]) -> None:
    env = {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state")}
    assert silent_agent_lines(Ctx.from_env(env), _panes(agents)) == []
