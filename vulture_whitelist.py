"""Names the dead-code check (`vulture src scripts vulture_whitelist.py` in `just lint`) cannot see
used, in vulture's own whitelist form (not imported, not type-checked).

Keep it short: code that only tests use is deleted, not listed here.
"""

from __future__ import annotations

_.indent  # install/codex_toml sets a new table's trivia.indent; tomlkit reads it when rendering
hook_groups  # the Python side of the Nix module's agreement test (tests/unit/test_hook_table.py)
_.repeats_headline  # scripts/context_cost.py's measurement that tests/cli/test_context_cost.py checks
_.convert  # click calls a parameter type's convert (cli._Rule)
# Textual reads these by name: class settings, event handlers (on_*) and key actions (action_*).
_.BINDINGS
_.DEFAULT_CSS
_.CSS
_.TITLE
_.ENABLE_COMMAND_PALETTE
_.border_title
_.on_mount
_.on_data_table_row_selected
_.action_dismiss
_.action_help
_.action_only
_.action_all
_.action_select
_.action_write
_.action_reply
_.action_holds
_.action_nudge
_.action_inbox
_.action_dialogs
_.action_yes
_.action_no
_.action_send
_.action_drop
_.action_close
_.action_release
_.action_answer
# json's C scanner reads its decoder's settings by name (transport/codex_daemon._Decoding).
_.strict
_.object_hook
_.object_pairs_hook
_.parse_float
_.parse_int
_.parse_constant
# gauge/choose.reader imports each client's reader by its class name.
ClaudeReader
CodexReader
GeminiReader
OpencodeReader
QwenReader
CopilotReader
# A seat row read back from another machine's `hail seats` (seat_rows.row_from_json): the far side
# of `seats @<host>` sends the rows as data once the remote package carries them.
row_from_json
