"""A permission dialog as the person answers it from `hail watch` (src/hail/transport/dialog.py;
docs/watch.md "Answering a dialog"), read from real clients' captured screens."""

from __future__ import annotations

from pathlib import Path

import pytest

from hail.transport.dialog import dialog_of, offered, option_digit

SCREENS = Path(__file__).resolve().parents[1] / "data" / "screens"


def lines(name: str) -> list[str]:
    return (SCREENS / name).read_text().split("\n")


@pytest.mark.parametrize(
    ("screen", "question", "keys"),
    [
        ("claude-dialog.ansi.txt", "Do you want to proceed?", ("1", "2", "3", "4", "Enter", "Escape")),
        ("cc24-permission-dialog.txt", "Do you want to proceed?", ("1", "2", "3", "Enter", "Escape")),
        ("codex-dialog.ansi.txt", "Would you like to run the following command?", ("1", "2", "3", "Enter", "Escape")),
        ("gemini-dialog.ansi.txt", "Allow execution of [Shell]?", ("1", "2", "3", "Enter", "Escape")),
    ],
)  # fmt: skip
def test_each_clients_dialog_is_read_with_its_text_and_keys(
    screen: str, question: str, keys: tuple[str, ...]
) -> None:
    found = dialog_of(lines(screen))
    assert found is not None
    assert any(question in line for line in found.text)
    assert found.keys == keys
    assert all(line.isprintable() and line == line.rstrip() for line in found.text)


@pytest.mark.parametrize(
    "screen",
    [
        "claude-idle-after-yn-history.ansi.txt",
        "codex-busy-tool.ansi.txt",
        "claude-idle-draft.ansi.txt",
    ],
)
def test_a_screen_without_a_dialog_has_none(screen: str) -> None:
    assert dialog_of(lines(screen)) is None


def test_a_moved_highlight_is_another_dialog() -> None:
    """The person read option 1 highlighted; with option 2 highlighted, Enter would pick another."""
    shown = lines("cc24-permission-dialog.txt")
    moved = [
        line.replace("❯ 1. Yes", "  1. Yes").replace("  2. Yes, and", "❯ 2. Yes, and")
        for line in shown
    ]
    assert moved != shown
    assert dialog_of(moved) != dialog_of(shown)
    assert dialog_of(list(shown)) == dialog_of(shown)


def test_option_digits_and_escape_are_offered_only_as_the_text_says() -> None:
    assert option_digit("│ ● 1. Allow once") == "1"
    assert option_digit("› 2. Yes, and don't ask again (p)") == "2"
    assert option_digit("1.5 seconds") == ""
    assert option_digit("10. ten") == ""
    assert offered(("Proceed?", "❯ 1. Yes", "2. No")) == ("1", "2", "Enter")
