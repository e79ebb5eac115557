"""Claude Code's settings.json: the pure merge of hail's hooks into its text [docs/hooks.md "Merge
rule"]. Codex's hooks.json has the same shape (`{"hooks": {"<Event>": [groups]}}`), so its merge
(`codex_hooks_json`) is this one.

Key order, unknown keys and numbers as written are kept; an unchanged config comes back byte for
byte. No filesystem here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, MutableSequence
from typing import cast

from hail.harnesses.claude import HARNESS as CLAUDE
from hail.install.config_text import TOO_DEEP, ExactJson
from hail.install.hook_table import (
    DEFAULT_PROGRAM,
    HarnessName,
    HookSpec,
    beside_specs,
    hook_spec,
    wanted_hooks,
)
from hail.install.merge_rule import MergeError, merge_event, unsafe
from hail.install.recognise import hail_programs, runs_verb

#: What a text this format cannot read is not, in its refusal.
EXPECTED = "a JSON object"


def parse_json(text: str) -> tuple[ExactJson | None, dict[str, object]]:
    """The loaded text (numbers kept as written) and its top-level object."""
    if not text.strip():
        return None, {}
    try:
        loaded = ExactJson(text)
    except ValueError as e:
        raise MergeError(str(e), parse=True, expected=EXPECTED) from None
    except RecursionError:
        raise unsafe(TOO_DEEP) from None
    root = loaded.value
    if not isinstance(root, dict):
        kind = "a number" if loaded.is_number(root) else _json_type(root)
        raise MergeError(f"the top level is {kind}", parse=False, expected=EXPECTED)
    return loaded, cast(dict[str, object], root)


def _json_type(value: object) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", int: "a number"}
    names[float] = "a number"
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _claude_command(handler: object) -> str | None:
    if isinstance(handler, dict):
        cmd = handler.get("command")
        if isinstance(cmd, str):
            return cmd
    return None


def _claude_set_command(handler: object, command: str) -> None:
    cast(dict[str, object], handler)["command"] = command


def claude_handlers(group: object) -> MutableSequence[object] | None:
    if isinstance(group, dict):
        handlers = group.get("hooks")
        if isinstance(handlers, list):
            return cast(list[object], handlers)
    return None


def _claude_hooks(root: dict[str, object]) -> dict[str, object]:
    hooks = root.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise MergeError(
            f'"hooks" is {_json_type(hooks)}, not an object', parse=False, expected=EXPECTED
        )
    return cast(dict[str, object], hooks)


def merge_claude(
    text: str,
    wanted: Mapping[str, str] | None = None,
    program: str = DEFAULT_PROGRAM,
    harness: HarnessName = CLAUDE.name,
) -> str:
    """Merge hail's hooks into the text of Claude Code's settings.json (or of another harness's
    settings of the same shape: Gemini CLI's).

    Key order and unknown keys are kept. When nothing changes the input comes back unchanged (its
    own formatting included); otherwise the result is 2-space JSON, non-ASCII kept, newline-ended.
    """
    cmds = wanted_hooks(harness, program) if wanted is None else wanted
    return merge_json(harness, text, cmds, program, beside=wanted is None)


def merge_json(
    harness: HarnessName, text: str, cmds: Mapping[str, str], program: str, *, beside: bool = False
) -> str:
    """The merge of `cmds` (event → command); with `beside`, also the table's hooks that run
    beside them (`hail listen`)."""
    loaded, root = parse_json(text)
    try:
        return _merge_json_root(harness, text, loaded, root, cmds, program, beside)
    except RecursionError:
        raise unsafe(TOO_DEEP) from None


def _merge_json_root(
    harness: HarnessName,
    text: str,
    loaded: ExactJson | None,
    root: dict[str, object],
    cmds: Mapping[str, str],
    program: str,
    beside: bool,
) -> str:
    before = json.loads(json.dumps(root))
    hooks = _claude_hooks(root)
    programs = hail_programs(harness, hooks, program, claude_handlers)
    for event, cmd in cmds.items():
        groups = hooks.get(event)
        if not isinstance(groups, list):
            groups = hooks[event] = []
        groups = cast(list[object], groups)
        handled = merge_event(
            groups,
            cmd,
            _claude_command,
            _claude_set_command,
            claude_handlers,
            programs,
        )
        if not handled:
            groups.append(_new_claude_group(hook_spec(harness, event), cmd))
    for spec in beside_specs(harness) if beside else ():
        _merge_beside(hooks, spec, program, programs, loaded)
    if root == before and text.strip():
        return text
    if loaded is None:
        return json.dumps(root, indent=2, ensure_ascii=False) + "\n"
    return loaded.dumps(root) + "\n"


def _new_claude_group(spec: HookSpec, command: str) -> dict[str, object]:
    # A group without a matcher matches every tool.
    group: dict[str, object] = {} if spec.matcher is None else {"matcher": spec.matcher}
    group["hooks"] = [{"type": "command", "command": command, **dict(spec.handler)}]
    return group


def _merge_beside(
    hooks: dict[str, object],
    spec: HookSpec,
    program: str,
    programs: frozenset[str],
    loaded: ExactJson | None,
) -> None:
    """The merge rule for a hook told apart by its verb (`hail listen`): exactly one handler of
    that verb in the event, with the table's command and keys (`asyncRewake`, `timeout`, …); its
    other keys and its group kept, as for the other hooks."""
    groups = hooks.get(spec.event)
    if not isinstance(groups, list):
        groups = hooks[spec.event] = []
    groups = cast(list[object], groups)
    wanted = spec.command(program)

    def ours(cmd: str | None) -> bool:
        return runs_verb(cmd, spec.args[0], programs)

    handled = merge_event(
        groups, wanted, _claude_command, _claude_set_command, claude_handlers, programs, ours
    )
    if not handled:
        groups.append(_new_claude_group(spec, wanted))
        return
    for group in groups:
        for handler in claude_handlers(group) or ():
            if ours(_claude_command(handler)):
                keys = cast(dict[str, object], handler)
                for key, value in spec.handler:
                    if not _same_json(keys.get(key), value, loaded):
                        keys[key] = value


def _same_json(found: object, wanted: object, loaded: ExactJson | None) -> bool:
    """Whether a loaded value is the wanted one (a number as written, `true` never `1`)."""
    number = loaded.number_text(found) if loaded is not None else None
    if number is not None:
        return not isinstance(wanted, bool) and number == json.dumps(wanted)
    return found == wanted and type(found) is type(wanted)
