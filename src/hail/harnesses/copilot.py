"""GitHub Copilot CLI [docs/hooks.md "Copilot CLI"]: hail's own hooks file in
`~/.copilot/hooks/hail.json` (or `$COPILOT_HOME/hooks`) under its camelCase event names, its
output a top-level `additionalContext`; run by node as `…/bin/copilot`, which starts a native
`copilot`; typed into, as a plain `copilot` has no door; its composer is `❯` between two `─` rules,
as Claude Code's, with a plain space after it (Copilot CLI 1.0.102).

Its hooks run in the git root, not in the session's directory: they take their seat from the
payload's `cwd` (`PayloadFields.cwd`). Its sessionStart hook runs at the first prompt, not as it
starts.
"""

from __future__ import annotations

from hail.harnesses.base import TOP_CONTEXT, ConfigPlace, Harness, PayloadFields, Screen

HARNESS = Harness(
    name="copilot",
    # Every command its model runs gets COPILOT_AGENT_SESSION_ID; no hook gets it.
    markers=("COPILOT_AGENT_SESSION_ID",),
    title="Copilot CLI",
    # `node …/bin/copilot` (the npm loader), which runs the native `copilot` under it: the
    # pane's process is found by its script, the native one by its name.
    scripts=("copilot",),
    route="composer",
    output=TOP_CONTEXT,
    # camelCase events get camelCase payloads; only agentStop's names the transcript, which
    # carries each call's usage (the gauge finds it by the session instead).
    payload=PayloadFields(
        session="sessionId",
        cwd="cwd",
        file="transcriptPath",
        file_event="Stop",
        tool="toolName",
        shell="bash",
    ),
    event_names={
        "SessionStart": "sessionStart",
        "UserPromptSubmit": "userPromptSubmitted",
        "PreToolUse": "preToolUse",
        "PostToolUse": "postToolUse",
        "Stop": "agentStop",
    },
    brief_as_hook_json=True,
    first_hook_at_prompt=True,
    silent_fix=(
        "hail setup, then restart it (Copilot CLI reads hooks files as it starts and runs the first"
        " at its first prompt)"
    ),
    next_step="a new session picks it up",
    receive_help=(
        "Copilot CLI runs the same as sessionStart, userPromptSubmitted, postToolUse and agentStop"
        " with --format copilot,\nand deliver --event PreToolUse on preToolUse only to let a plain hail command past"
        " its permission prompt."
    ),
    screen=Screen(
        # `❯` alone, or `❯ ` and a draft, in column 0 between two rules; history lines are
        # ` ❯ text` (indented), a dialog's chosen option `│ ❯ 1. Yes` (boxed).
        shape="between_rules",
        prompt="❯ ",
        dialogs=(
            "Do you want to run this command?",
            "No, and tell Copilot what to do differently",
            "Confirm folder trust",
        ),
        # Its footer while a turn runs, after a glyph that cycles through `◉ ● ◎ ○`:
        # `Working esc esc edit prompt` during a model call, `Working · 79 B esc esc interrupt`
        # in a tool.
        busy=("Working esc esc", "esc esc interrupt"),
        # Its input line sits just below a rule; a Claude Code history line `❯ text` does not.
        extra={"empty": ("❯",), "above": ("─",)},
    ),
    # hail's own file among the user's hooks files, in `$COPILOT_HOME`, else in `~/.copilot`.
    configs=(
        ConfigPlace(
            format="copilot_hooks",
            folder=".copilot",
            file="hooks/hail.json",
            variable="COPILOT_HOME",
        ),
    ),
)
