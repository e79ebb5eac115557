"""Qwen Code [docs/hooks.md "Qwen Code"]: hooks in `~/.qwen/settings.json` under Claude Code's
event names and output; run by node as `…/bin/qwen`; woken through its own cross-session socket
(the `door` route); its composer is a `>` line at column 0 between two `─` rules (0.24.4; the
captures in tests/data/screens)."""

from __future__ import annotations

from hail.harnesses.base import ConfigPlace, Harness, PayloadFields, Screen

HARNESS = Harness(
    name="qwen",
    title="Qwen Code",
    # `node …/.bin/qwen` starts `node …/cli.js`, which starts the session's own `node …/cli.js`:
    # the first names the pane's agent; the last writes Qwen's record and runs the hooks.
    scripts=("qwen",),
    route="door",
    hooks_record=True,
    # Its shell tool's commands carry both (`QWEN_CODE=1` for every command it runs, and the
    # session's id); `--as person` refuses them.
    markers=("QWEN_CODE", "QWEN_CODE_SESSION_ID"),
    # Every payload names the session and its transcript; the transcript names the model.
    payload=PayloadFields(session="session_id", file="transcript_path"),
    shared_events=True,
    brief_as_hook_json=True,
    next_step="a new session picks it up",
    receive_help=(
        "Qwen Code runs them with --format qwen; a send wakes its idle session through its own\n"
        "cross-session socket, the frames themselves as the message."
    ),
    screen=Screen(
        # `>` at column 0 (history lines are `  > `), between two rules; a draft ends in U+200B.
        shape="rule_framed",
        prompt="> ",
        # Its tool confirmation, drawn in place of the composer.
        dialogs=(
            "Allow execution of",
            "Waiting for user confirmation",
            "No, suggest changes",
            "Switch to Default Mode and allow once",
        ),
        # Above the upper rule while a turn runs (`⠸ Counting electrons... (1s · esc to cancel)`),
        # and in its footer.
        busy=("esc to cancel", "Enter to steer"),
        # Drawn grey (foreground 103), not dim: always removed.
        placeholders=("Type your message or @path/to/file",),
        extra={"empty": (">",), "cursor": ("\u200b",)},
    ),
    # settings.json in `~/.qwen` (user settings load without folder trust; project settings need
    # it and are left to their owners).
    configs=(ConfigPlace(format="qwen_settings", folder=".qwen", file="settings.json"),),
)
