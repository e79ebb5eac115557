"""The screen classifier against every real Claude Code and Codex capture in tests/data/screens,
each with the class `classes.txt` there gives it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hail.transport import screen

SCREENS = Path(__file__).resolve().parent.parent / "data" / "screens"


def classes() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in (SCREENS / "classes.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, state = line.split()
            table[name] = state
    return table


def capture(name: str) -> list[str]:
    return (SCREENS / name).read_text(encoding="utf-8").split("\n")


def dialog_on(lines: list[str]) -> str | None:
    """The dialog literal the screen is classified by, or None."""
    verdict = screen.classify(lines)
    return verdict.literal if verdict.state == screen.DIALOG else None


def test_every_capture_has_a_class_and_every_class_a_capture() -> None:
    files = {p.name for p in SCREENS.glob("*.txt") if p.name != "classes.txt"}
    assert files == set(classes())
    assert set(classes().values()) == {"idle", "busy", "queued", "draft", "dialog", "none"}


@pytest.mark.parametrize(("name", "state"), sorted(classes().items()))
def test_a_real_capture_gets_its_class(name: str, state: str) -> None:
    assert screen.classify(capture(name)).state == state


@pytest.mark.parametrize("client", ["claude", "codex"])
@pytest.mark.parametrize(
    ("take", "state"),
    [
        ("idle-placeholder", "idle"),
        ("idle-draft", "draft"),
        ("idle-after-yn-history", "idle"),
        ("idle-after-turns", "idle"),
        ("busy-model", "busy"),
        ("busy-tool", "busy"),
        ("busy-draft", "draft"),
        ("queued", "queued"),
        ("dialog", "dialog"),
    ],
)
def test_each_state_of_both_clients_with_and_without_attributes(
    client: str, take: str, state: str
) -> None:
    for suffix in (".txt", ".ansi.txt"):
        verdict = screen.classify(capture(f"{client}-{take}{suffix}"))
        assert verdict.state == state, suffix
        if state != "dialog":
            assert verdict.client == client


def test_a_draft_is_the_persons_text_and_a_placeholder_is_not() -> None:
    draft = screen.classify(capture("codex-idle-draft.ansi.txt"))
    assert draft.composer == "please refactor the tokenizer so that"
    idle = screen.classify(capture("codex-idle-placeholder.ansi.txt"))
    assert idle.state == "idle" and idle.composer == "Ask Codex to do anything"


def test_with_attributes_a_person_typing_the_placeholder_words_is_a_draft() -> None:
    # Only the style tells them apart: the placeholder is dim, typed text is not.
    dim = capture("codex-idle-placeholder.ansi.txt")
    typed = [line.replace("\x1b[2mAsk Codex", "Ask Codex") for line in dim]
    assert screen.classify(dim).state == "idle"
    assert screen.classify(typed).state == "draft"


def test_the_cursor_and_claudes_dim_queue_hint_are_not_text() -> None:
    queued = screen.classify(capture("claude-queued.ansi.txt"))
    assert queued.state == "queued"
    assert "Press up to edit queued messages" in queued.composer


def test_a_yn_headline_in_history_or_in_codex_status_is_not_a_dialog() -> None:
    for name in ("claude-idle-after-yn-history.txt", "codex-idle-after-yn-history.ansi.txt"):
        assert dialog_on(capture(name)) is None
    # With no composer at all, hail's own envelope lines still never make a dialog.
    shell = [
        "$ echo hi",
        "hi",
        "[hail kind:ask from:boss reply:boss id:1130T120000-abcd] ship it (y/n)?",
        "$ ",
    ]
    assert screen.classify(shell).state == "none"
    assert screen.classify([*shell[:-1], "Proceed? (y/n)"]).state == "dialog"


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
    assert dialog_on(idle) is None
    assert screen.classify(idle).state == "idle"


def test_a_dialog_scrolled_above_the_last_eight_lines_no_longer_blocks() -> None:
    old = capture("cx09-approval-dialog.txt")
    later = [*old, *(f"• line {i}" for i in range(8))]
    assert dialog_on(old) is not None
    assert dialog_on(later) is None


def test_blank_lines_do_not_push_a_dialog_out_of_the_tail() -> None:
    lines = ["Do you want to proceed?", *([""] * 30), " 1. Yes"]
    assert dialog_on(lines) == "Do you want to proceed"


def test_a_wrapped_envelope_in_a_codex_composer_is_still_held() -> None:
    lines = [
        "• FAKE-REPLY ok",
        "",
        "› [hail kind:ask from:boss reply:boss id:1001T0000",
        "  00-abcd] x",
        "  GPT-5.5 default · /tmp/w · title id:1001T000000-abcd",
        "  ← for agents · ? for shortcuts",
    ]
    verdict = screen.classify(lines)
    assert verdict.state == "draft"
    assert verdict.holds("id:1001T000000-abcd")
    # The status line's title quoting the id is not the composer.
    gone = [*lines[:2], "› Ask Codex to do anything", *lines[4:]]
    assert not screen.classify(gone).holds("id:1001T000000-abcd")


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
    assert screen.probe_of(text) == probe


def test_sgr_colours_are_not_read_as_attributes() -> None:
    # `38;2;…` carries a 2 that is a colour component, not "dim".
    line = screen.parse_line("\x1b[38;2;2;7;2mtyped\x1b[0m")
    assert line.solid == "typed"
    assert screen.parse_line("\x1b[2mdim\x1b[22m bright").solid == "    bright"


def test_every_dialog_literal_is_in_the_one_table() -> None:
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
        assert literal in screen.DIALOG_LITERALS
    assert not any(lit.strip() in ("Approve", "Approved") for lit in screen.DIALOG_LITERALS)


@pytest.mark.parametrize("glyph", ["◉", "●", "◎", "○"])
@pytest.mark.parametrize(
    "footer", ["Working esc esc edit prompt", "Working · 79 B esc esc interrupt"]
)
def test_copilots_working_footer_is_busy_whichever_glyph_it_shows(glyph: str, footer: str) -> None:
    lines = capture("copilot-busy-model.txt")
    at = next(i for i, line in enumerate(lines) if "Working esc esc" in line)
    lines[at] = f" {glyph} {footer}"
    assert screen.classify(lines).state == screen.BUSY
