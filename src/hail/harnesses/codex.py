"""Codex [docs/hooks.md "Codex"]: hooks in `$CODEX_HOME/config.toml` (or its hooks.json), trusted
by hash; commands run from one shared daemon; a send queues on its thread (`codex queue`); its
composer is the last `› ` line at the bottom (Codex 0.171; the captures in tests/data/screens)."""

from __future__ import annotations

from hail.harnesses.base import ConfigPlace, Harness, PayloadFields, Screen

#: Its config file, where its hooks and their trust are (hail's rule names the hail they run).
CONFIG = "config.toml"

HARNESS = Harness(
    name="codex",
    # Every command its model runs gets its thread and session, and, sandboxed, CODEX_SANDBOX.
    markers=("CODEX_THREAD_ID", "CODEX_SESSION_ID", "CODEX_SANDBOX"),
    title="Codex",
    route="queue",
    hooks_record=True,
    # Every payload names the thread, its rollout and the model.
    payload=PayloadFields(session="session_id", file="transcript_path", model="model"),
    shared_events=True,
    shared_daemon=True,
    first_hook_at_prompt=True,
    silent_fix=(
        "hail setup --trust-codex (Codex runs new hooks once trusted, the first at its first prompt)"
    ),
    next_step=(
        "run hail setup --trust-codex (or /hooks in Codex) once to trust the changed hooks;"
        " a new session picks them up"
    ),
    screen=Screen(
        shape="last_prompt",
        prompt="› ",
        dialogs=(
            # seen on 0.171
            "Press enter to confirm or esc to cancel",
            "Would you like to run the following command?",
            "Would you like to make the following edits?",
            "Would you like to grant these permissions?",
            "Would you like to proceed",
            "Yes, proceed",
            "Yes, just this once",
            "No, and tell Codex what to do",
        ),
        # Its working line (or its network retry) just above its composer.
        busy=("esc to interrupt", "Reconnecting... waiting for network"),
        queued=("Messages to be submitted after next tool call",),
        placeholders=("Ask Codex to do anything",),
        extra={
            # Its footer while a turn runs and a draft is in its composer.
            "busy_footer": ("tab to queue message",),
            # Its status line names the model, then ` · ` and the working directory.
            "status": (" · /", " · ~"),
            "footers": ("for shortcuts",),
        },
    ),
    # config.toml in `$CODEX_HOME`, else in `~/.codex` (its format reads hooks.json beside it), and
    # hail's rule in the `rules/` folder there.
    configs=(
        ConfigPlace(format="codex_config", folder=".codex", file=CONFIG, variable="CODEX_HOME"),
        ConfigPlace(
            format="codex_rule", folder=".codex", file="rules/hail.rules", variable="CODEX_HOME"
        ),
    ),
)
