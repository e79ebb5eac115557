"""Gemini CLI [docs/hooks.md "Gemini CLI"]: hooks in `~/.gemini/settings.json` under its own event
names, its SessionStart brief as hook JSON; run by node as `…/bin/gemini`; typed into, as there
is no native route; its composer is the first ` > ` line below the last `─` rule (0.61)."""

from __future__ import annotations

from hail.harnesses.base import ConfigPlace, Harness, PayloadFields, Screen

HARNESS = Harness(
    name="gemini",
    # Its shell tool runs commands with GEMINI_CLI=1.
    markers=("GEMINI_CLI",),
    title="Gemini CLI",
    scripts=("gemini", "gemini.js"),
    route="composer",
    # Every payload names the session and its session file; none the model (the file does).
    payload=PayloadFields(session="session_id", file="transcript_path"),
    event_names={
        "SessionStart": "SessionStart",
        "UserPromptSubmit": "BeforeAgent",
        "PostToolUse": "AfterTool",
        "Stop": "AfterAgent",
    },
    brief_as_hook_json=True,
    next_step="a new session picks it up",
    screen=Screen(
        # History prompts, also ` > `, sit above the rule.
        shape="below_rule",
        prompt=" > ",
        # Its tool confirmation replaces the composer.
        dialogs=(
            "Allow execution of",
            "Allow for this session",
            "No, suggest changes",
            "Do you trust the files in this folder?",
        ),
        # Above the rule while a turn runs; its `(esc to cancel, Ns)` may be cut off by a long
        # hook name, and a Braille spinner glyph opens the line.
        busy=("(esc to cancel",),
        queued=("Queued (press ↑ to edit)",),
        # Drawn grey, not dim: always removed.
        placeholders=("Type your message or @path/to/file",),
        extra={
            # Below the composer: the footer naming the workspace.
            "footer": ("workspace (/directory)",),
            "spinner": ("\u2800", "\u28ff"),
        },
    ),
    # settings.json in `.gemini` under `$GEMINI_CLI_HOME` (its own home for its files), else under
    # the user's home (user settings; project and system settings are left to their owners).
    configs=(
        ConfigPlace(
            format="gemini_settings",
            folder=".gemini",
            file="settings.json",
            parent_variable="GEMINI_CLI_HOME",
        ),
    ),
)
