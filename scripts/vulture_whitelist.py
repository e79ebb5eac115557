"""Code the dead-code check (`vulture src scripts` in `just lint`) cannot see used.

Keep it short: code that only tests use is deleted, not listed here.
"""

from __future__ import annotations

from tomlkit.items import Trivia

from hail.hook_table import hook_groups

_ = (
    Trivia.indent,  # setup_merge sets it on a new table; tomlkit reads it when rendering
    hook_groups,  # the Python side of the Nix module's agreement test (tests/unit/test_hook_table.py)
)
