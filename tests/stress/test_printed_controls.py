"""Printed peer text carries no control character but newline and tab [docs/envelope-and-frames.md
"Frames"]: ESC, BEL, CR, every other C0 control, DEL and the C1 controls are written out (`\\x1b`,
`\\r`) wherever hail prints a body (every harness's hook output, `inbox`, `show`, `await --reply`,
`ask --wait`), while the stored file keeps its bytes. So a peer cannot colour, hide or fake text on
a person's terminal or an agent's screen.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hail import frame, message, text
from tests.stress.conftest import know, spawn
from tests.support.world import World

pytestmark = pytest.mark.stress

#: What a terminal acts on: C0 but tab and newline, DEL, C1.
CONTROLS = {chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))} - {"\t", "\n"}
BODY = "red: \x1b[41;97mALERT\x1b[0m bell\x07 back\x08 cr\r csi\x9b2J del\x7f\ttab\nline 2"
SHOWN = "red: \\x1b[41;97mALERT\\x1b[0m bell\\x07 back\\x08 cr\\r csi\\x9b2J del\\x7f\ttab\nline 2"


def controls_in(value: str) -> set[str]:
    return {ch for ch in value if ch in CONTROLS}


def strings(value: Any) -> list[str]:
    """Every string in a decoded JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def printed(out: str) -> str:
    """What reaches a harness or a terminal: a hook's JSON decoded (its strings), else the text."""
    body = out.strip()
    if body.startswith("{"):
        return "\n".join(strings(json.loads(body)))
    return out


# --- the one function, and the frames built with it -------------------------------------------


def test_visible_writes_out_every_control_but_newline_and_tab() -> None:
    assert text.visible(BODY) == SHOWN
    assert text.visible("\x00\x1f\x80\x9f") == "\\x00\\x1f\\x80\\x9f"
    assert text.visible("é — \u202e \xa0 \t\n") == "é — \u202e \xa0 \t\n", "printable text as is"


@settings(max_examples=300, deadline=None)
@given(
    body=st.text(
        st.one_of(
            st.sampled_from(sorted(CONTROLS)),
            st.characters(exclude_categories=["Cs"]),
            st.just("\n"),
        ),
        max_size=400,
    ),
    budget=st.integers(min_value=0, max_value=900),
)
def test_a_frame_shows_no_control_and_still_fits_its_budget(body: str, budget: int) -> None:
    msg = message.parse(message.render({"kind": "ask", "id": "1201T120000-abcd"}, body))
    token = frame.draw_token(frame.texts_of(msg))
    lines = frame.cut_to_fit(token, msg, budget)
    shown = "\n".join(lines)
    assert not controls_in(shown)
    assert sum(token in line for line in lines) == 2, "the token only in the start and end line"
    if frame.frame_bytes(frame.cut_to_fit(token, msg, 10**9)) > budget:
        empty = frame.frame_bytes(frame.frame(token, msg, body_limit=0))
        assert frame.frame_bytes(lines) <= max(budget, empty + 16), "cut to fit"


# --- every place a body is printed ------------------------------------------------------------


def sent(world: World, body: str = BODY) -> str:
    know(world, "worker")
    msg_id = world.send("worker", "ask", "a coloured body", body=body)
    raw = (world.state / "seats" / "worker" / "new" / f"{msg_id}.md").read_bytes()
    assert raw.endswith(body.encode() + b"\n"), "stored byte for byte"
    return msg_id


HOOKS = [
    ("deliver", "--format", "claude"),
    ("deliver", "--format", "claude", "--event", "PostToolUse"),
    ("deliver", "--format", "claude", "--event", "Stop"),
    ("deliver", "--format", "codex"),
    ("deliver", "--format", "codex", "--event", "Stop"),
    ("deliver", "--format", "gemini"),
    ("deliver", "--format", "gemini", "--event", "Stop"),
    ("deliver", "--format", "opencode"),
    ("inbox",),
]


@pytest.mark.parametrize("verb", HOOKS, ids=" ".join)
def test_a_delivered_body_shows_its_controls_written_out(
    world: World, verb: tuple[str, ...]
) -> None:
    sent(world)
    payload = json.dumps({"session_id": "s-1", "stop_hook_active": False, "tool_name": "Bash"})
    proc = world.run(*verb, cwd="worker", stdin=payload)
    assert proc.returncode == 0, proc.stderr
    shown = printed(proc.stdout)
    assert SHOWN in shown, proc.stdout
    assert not controls_in(proc.stdout + shown)


def test_show_prints_the_body_written_out(world: World) -> None:
    msg_id = sent(world)
    proc = world.run("show", msg_id, cwd="worker")
    assert proc.returncode == 0, proc.stderr
    assert SHOWN in proc.stdout and not controls_in(proc.stdout)
    cut = world.run("show", msg_id, "--from", "5", cwd="worker")
    assert "\\x1b[41;97mALERT" in cut.stdout and not controls_in(cut.stdout)


def test_await_reply_and_ask_wait_print_the_reply_written_out(world: World) -> None:
    know(world, "boss", "worker")
    waiting = spawn(world, "worker", "ask", "--no-wake", "--wait", "20", "ready?")
    deadline = time.monotonic() + 10
    box = world.state / "seats" / "worker" / "new"
    while not (box.is_dir() and list(box.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.05)
    ask = next(iter(box.iterdir())).stem
    reply = world.run("boss", "fyi", "--no-wake", "--re", ask, "yes", cwd="worker", stdin=BODY)
    assert reply.returncode in (0, 5), reply.stderr
    out, err = waiting.communicate(timeout=30)
    assert waiting.returncode == 0, err
    assert out.decode().startswith(f"id={ask}\n")
    assert SHOWN in out.decode() and not controls_in(out.decode())
    # The reply read again, by `await --reply` on a second ask.
    ask2 = world.send("worker", "ask", "again?")
    world.run("boss", "fyi", "--no-wake", "--re", ask2, "yes", cwd="worker", stdin=BODY)
    again = world.run("await", "--reply", ask2, timeout=30)
    assert again.returncode == 0, again.stderr
    assert SHOWN in again.stdout and not controls_in(again.stdout)
