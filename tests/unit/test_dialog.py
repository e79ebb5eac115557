"""The screen classifier against real Claude Code and Codex captures (tests/data/screens)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hail.transport import dialog

SCREENS = Path(__file__).resolve().parent.parent / "data" / "screens"


def screen(name: str) -> list[str]:
    return (SCREENS / f"{name}.txt").read_text(encoding="utf-8").split("\n")


@pytest.mark.parametrize(
    ("name", "literal"),
    [
        ("cc24-permission-dialog", "Do you want to proceed"),
        ("cc25-typed-into-dialog", "Do you want to proceed"),
        ("cc54-latest-permission-dialog", "Do you want to proceed"),
        ("cx09-approval-dialog", "Would you like to run the following command?"),
        ("cx10-typed-into-approval", "Would you like to run the following command?"),
    ],
)
def test_a_real_permission_dialog_is_found(name: str, literal: str) -> None:
    assert dialog.find_dialog(screen(name)) == literal
    assert dialog.classify(screen(name)) == "dialog"


@pytest.mark.parametrize(
    "name",
    [
        "cc05-after-apikey",
        "cc07-typed",
        "cc50-latest-start",
        "cc57-latest-after",
        "cx04-after-model-prompt",
        "cx11-typed-y-into-approval",
        "cx12-after-ctrlu",
        "cx13-after-long",
        "cx17-after-busy",
        "cx20-restart-ready",
    ],
)
def test_an_idle_screen_or_a_draft_is_ready_and_not_a_dialog(name: str) -> None:
    assert dialog.find_dialog(screen(name)) is None
    assert dialog.classify(screen(name)) == "ready"


@pytest.mark.parametrize("name", ["cc12-second-line", "cc30-busy", "cc55-latest-busy", "cx15-busy"])
def test_a_turn_in_progress_is_busy(name: str) -> None:
    assert dialog.classify(screen(name)) == "busy"


@pytest.mark.parametrize("name", ["cc31-busy-queued", "cc56-latest-queued", "cx16-busy-typed"])
def test_a_message_waiting_for_the_turn_is_queued(name: str) -> None:
    assert dialog.classify(screen(name)) == "queued"


def test_codex_history_saying_approved_is_not_a_dialog() -> None:
    idle = [
        "› just land it",
        "✔ Approved command: just land",
        "• Ran just land",
        "  └ ok",
        "",
        "› ",
        "  ← for agents · ? for shortcuts",
    ]
    assert dialog.find_dialog(idle) is None
    assert dialog.classify(idle) == "ready"


def test_a_dialog_scrolled_above_the_last_eight_lines_no_longer_blocks() -> None:
    old = screen("cx09-approval-dialog")
    later = [*old, *(f"• line {i}" for i in range(8))]
    assert dialog.find_dialog(old) is not None
    assert dialog.find_dialog(later) is None


def test_blank_lines_do_not_push_a_dialog_out_of_the_tail() -> None:
    lines = ["Do you want to proceed?", *([""] * 30), " 1. Yes"]
    assert dialog.find_dialog(lines) == "Do you want to proceed"


def test_a_draft_in_the_composer_does_not_block() -> None:
    assert dialog.find_dialog(["─" * 20, "❯\u00a0half a thought", "─" * 20]) is None


def test_codex_holding_needs_the_id_at_the_bottom_and_the_queue_hint() -> None:
    busy = screen("cx16-busy-typed")
    token = "id:1001T000000-abcd"
    held = [*busy[:-4], f"  ↳ [hail kind:ask from:boss reply:boss {token}] x", *busy[-4:]]
    assert dialog.codex_holding(held, token)
    # The same envelope without the hint: it was submitted and shows in history.
    plain = [line for line in held if dialog.QUEUE_HINTS[0] not in line]
    assert not dialog.codex_holding(plain, token)
    # The hint for another message, this envelope not on screen.
    assert not dialog.codex_holding(busy, token)


def test_a_wrapped_id_still_counts_as_shown() -> None:
    lines = [
        "• Messages to be submitted after next tool call (press esc to interrupt and send now)",
        "  ↳ [hail kind:ask from:boss reply:boss id:1001T0000",
        "00-abcd] x",
    ]
    assert dialog.codex_holding(lines, "id:1001T000000-abcd")


@pytest.mark.parametrize(
    ("text", "probe"),
    [
        (
            "[hail kind:ask from:boss/%1 reply:boss id:1006T171200-a3f1] Review it",
            "id:1006T171200-a3f1",
        ),
        ("[hail kind:hold from:boss reply:boss id:1006T171200-a3f1] x", "id:1006T171200-a3f1"),
        ("[hail kind:fyi from:boss reply:boss id:0101T000000-0000]", "id:0101T000000-0000"),
        ("echo   hello world", "echohelloworld"),
        ("x" * 60, "x" * 40),
        ("[hail without an id token here", "[hailwithoutanidtokenhere"),
        ("[hail id: short", "[hailid:short"),
    ],
)
def test_the_probe_is_the_id_token_or_the_first_forty_visible_characters(
    text: str, probe: str
) -> None:
    assert dialog.probe_of(text) == probe


def test_every_spec_literal_is_in_the_one_table() -> None:
    for literal in (
        "Do you want to proceed",
        "Yes, and don't ask again",
        "Esc to cancel",
        "No, and tell Claude what to do",
        "Press enter to confirm or esc to cancel",
        "Would you like to run the following command?",
        "Would you like to make the following edits?",
        "Would you like to grant these permissions?",
        "Would you like to proceed",
        "Yes, proceed",
        "Yes, just this once",
        "No, and tell Codex what to do",
        "(y/n)",
        "Allow once",
    ):
        assert literal in dialog.DIALOG_LITERALS
    assert not any(lit.strip() in ("Approve", "Approved") for lit in dialog.DIALOG_LITERALS)
