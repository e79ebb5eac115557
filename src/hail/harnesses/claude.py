"""Claude Code [docs/hooks.md "Claude Code"]: hooks in `~/.claude/settings.json` (and
`$CLAUDE_CONFIG_DIR`), hail's waiter (`hail listen`) as its asyncRewake hook, and a composer
between two `─` rules (Claude Code 2.1.332; the captures in tests/data/screens)."""

from __future__ import annotations

from hail.harnesses.base import ConfigPlace, Harness, PayloadFields, Screen

HARNESS = Harness(
    name="claude",
    # Its Bash tool runs every command with CLAUDECODE=1.
    markers=("CLAUDECODE",),
    title="Claude Code",
    route="waiter",
    # Every payload names the session and its transcript; only SessionStart's the model (with
    # `[1m]` when the person chose the 1M window), which the waiter's hook records.
    payload=PayloadFields(session="session_id", file="transcript_path", model="model"),
    shared_events=True,
    next_step="a new session picks it up",
    screen=Screen(
        # Its input line opens with `❯` + NBSP (history uses a plain space), up to the rule below.
        shape="between_rules",
        prompt="❯\u00a0",
        dialogs=(
            "Do you want to proceed",
            "Yes, and don't ask again",
            "Esc to cancel",
            "No, and tell Claude what to do",
        ),
        # Its footer while a turn runs.
        busy=("esc to interrupt",),
        # A message typed during a turn: above its composer, then as the composer's placeholder.
        queued=("Queued · ctrl+x ctrl+s to send now", "Press up to edit queued messages"),
        placeholders=("Press up to edit queued messages",),
        extra={"empty": ("❯",)},
    ),
    # settings.json in `~/.claude`, and in `$CLAUDE_CONFIG_DIR` too when that names another folder.
    configs=(
        ConfigPlace(
            format="claude_settings",
            folder=".claude",
            file="settings.json",
            also_variable="CLAUDE_CONFIG_DIR",
        ),
    ),
)
