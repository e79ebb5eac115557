"""The harness set, written once, and each harness's record by name.

`NAMES` is the one list of the harnesses hail knows, in the order it reports them. `get` imports
only the module of the harness asked for (`hail.harnesses.<name>`), so a hook run for one harness
loads no other's.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hail.harnesses.base import Harness

#: Every harness hail knows: each is a module of this package holding its `HARNESS` record.
NAMES = ("claude", "codex", "gemini", "opencode", "qwen", "copilot")
#: The harnesses hail's waiter (`hail listen --format <name>`) runs as a hook of: the verb table
#: reads it with no record loaded (a test checks it against the hook table's `listen` rows).
LISTENING = ("claude",)
#: The events `hail deliver --event` reads, in the harnesses' shared (Claude Code's) names: the
#: verb table and the hook line's own road (`entry.hook_call`) read them with no record loaded.
#: PreToolUse delivers nothing: it only answers a permission question (`hooks/allow.py`).
DELIVERED_EVENTS = ("UserPromptSubmit", "PostToolUse", "Stop", "PreToolUse")


def get(name: str) -> Harness:
    """The record of the harness `name`; KeyError for a name hail does not know."""
    if name not in NAMES:
        raise KeyError(name)
    module = __import__(f"hail.harnesses.{name}", fromlist=["HARNESS"])
    found: Harness = module.HARNESS
    return found


def every() -> tuple[Harness, ...]:
    """Every harness's record, in `NAMES`' order."""
    return tuple(get(name) for name in NAMES)


def by_script(script: str) -> Harness | None:
    """The harness a JavaScript runtime runs when it runs `script` (the last part of its path)."""
    return next((h for h in every() if script in h.scripts), None)


def agent_commands(env: Mapping[str, str]) -> list[str]:
    """HAIL_AGENT_COMMANDS as a list; unset or blank means the agents hail knows (`NAMES`)."""
    names = [n.strip() for n in env.get("HAIL_AGENT_COMMANDS", "").split(",") if n.strip()]
    return names or list(NAMES)
