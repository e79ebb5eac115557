"""Who may speak as the person (src/hail/person.py, docs/seats.md "Trust boundary"): one rule of
three checks, decided on fake process tables and a fake terminal."""

from __future__ import annotations

import pytest

from hail.harnesses import registry
from hail.person import refusal
from hail.process.base import Processes
from hail.transport.notify.notify_send import NOTIFIER as NOTIFY_SEND
from hail.transport.notify.osascript import NOTIFIER as OSASCRIPT


class Table(Processes):
    """A process table: pid → (parent, name, arguments)."""

    def __init__(self, rows: dict[int, tuple[int, str, list[str]]]) -> None:
        self.rows = rows

    def parent(self, pid: int) -> int:
        return self.rows.get(pid, (0, "", []))[0]

    def comm(self, pid: int) -> str:
        return self.rows.get(pid, (0, "", []))[1]

    def args(self, pid: int) -> list[str]:
        return self.rows.get(pid, (0, "", []))[2]


def yes() -> bool:
    return True


def no() -> bool:
    return False


SHELL_IN_TMUX = Table({30: (20, "zsh", ["zsh"]), 20: (1, "tmux: server", ["tmux"])})


def test_a_shell_in_tmux_with_a_terminal_may_speak_as_the_person() -> None:
    assert refusal({}, SHELL_IN_TMUX, parent=30, terminal=yes) is None


@pytest.mark.parametrize(
    ("harness", "marker"), [(h.title, m) for h in registry.every() for m in h.markers]
)
def test_every_harness_marker_refuses(harness: str, marker: str) -> None:
    why = refusal({marker: "1"}, SHELL_IN_TMUX, parent=30, terminal=yes)
    assert why == f"{marker} is set ({harness} sets it in its tool calls)"


def test_an_empty_marker_counts_for_nothing() -> None:
    assert refusal({"CLAUDECODE": ""}, SHELL_IN_TMUX, parent=30, terminal=yes) is None


def test_no_terminal_refuses() -> None:
    why = refusal({}, SHELL_IN_TMUX, parent=30, terminal=no)
    assert why == "it has no terminal (/dev/tty cannot be opened)"


@pytest.mark.parametrize("agent", registry.NAMES)
def test_an_agent_anywhere_up_the_chain_refuses(agent: str) -> None:
    table = Table(
        {
            50: (40, "bash", ["bash", "-c", "hail --as person …"]),
            40: (30, agent, [agent]),
            30: (20, "zsh", ["zsh"]),
            20: (1, "tmux: server", ["tmux"]),
        }
    )
    assert (
        refusal({}, table, parent=50, terminal=yes) == f"it runs under {agent} (pid 40), an agent"
    )


def test_an_agent_run_by_a_javascript_runtime_is_named_by_its_script() -> None:
    table = Table({50: (40, "bash", []), 40: (1, "node", ["node", "/usr/lib/x/bin/gemini"])})
    assert refusal({}, table, parent=50, terminal=yes) == "it runs under gemini (pid 40), an agent"


def test_hail_agent_commands_adds_agents_and_cannot_drop_the_known_ones() -> None:
    table = Table({50: (40, "bash", []), 40: (1, "claude", [])})
    env = {"HAIL_AGENT_COMMANDS": "aider"}
    assert refusal(env, table, parent=50, terminal=yes) == "it runs under claude (pid 40), an agent"
    aider = Table({50: (40, "bash", []), 40: (1, "aider", [])})
    assert refusal(env, aider, parent=50, terminal=yes) == "it runs under aider (pid 40), an agent"
    assert refusal({}, aider, parent=50, terminal=yes) is None


def test_a_notifier_takes_texts_as_arguments_never_as_source() -> None:
    title, text = 'hail: ask from api"', '"; do shell script "rm -rf ~" --'
    argv = OSASCRIPT.argv("/usr/bin/osascript", title, text)
    assert argv[-2:] == [title, text]
    assert text not in argv[2]
    assert NOTIFY_SEND.argv("notify-send", title, "-x")[-3:] == ["--", title, "-x"]


def test_notify_send_needs_a_desktop_session() -> None:
    assert NOTIFY_SEND.usable({"PATH": "/nonexistent"}) is None
    assert NOTIFY_SEND.usable({"PATH": "/usr/bin:/bin"}) is None  # no display, no session bus


@pytest.mark.parametrize("harness", registry.NAMES)
def test_every_harness_declares_the_variables_its_tool_calls_carry(harness: str) -> None:
    """A harness without markers would let its tool calls pass the first check: each module says
    what its client sets in the commands its model runs (docs/seats.md "Trust boundary")."""
    markers = registry.get(harness).markers
    assert markers, f"harnesses/{harness}.py declares no markers"
    assert all(m.isupper() and m.replace("_", "").isalnum() for m in markers), markers


def test_the_words_no_seat_takes_are_the_verb_tables() -> None:
    """The seat check reads `reserved.VERB_WORDS`, written out so the hook path never loads the
    verb table: it must name every verb and removed spelling, and nothing else."""
    from hail import argv, reserved

    assert set(argv.VERB) | set(argv.REMOVED) == reserved.VERB_WORDS
