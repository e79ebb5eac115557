"""Install hail's hooks into Claude Code's and Codex's configs: pure text-to-text merges
[docs/hooks.md "Merge rule"].

Everything that is not a hail hook survives: unknown keys, other tools' hooks and groups, and in
Codex's TOML every comment and blank line. An older hail line (0.3's
`[ -n "$TMUX_PANE" ] || exit 0; hail deliver …` included) is rewritten where it stands, keeping
the entry's timeout and its group's matcher, so merging is idempotent: the merge of a merged text
is that text, byte for byte. No filesystem here; `commands/setup.py` reads, diffs and writes.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping, MutableSequence
from dataclasses import dataclass
from typing import cast

import tomlkit
import tomlkit.exceptions
from tomlkit.container import Container, OutOfOrderTableProxy
from tomlkit.items import AoT, Array, Item, Table
from tomlkit.toml_document import TOMLDocument

from hail.config_text import BY_HAND_FIX, TOO_DEEP, ExactJson, toml_comments
from hail.hook_table import DEFAULT_PROGRAM, Harness, HookSpec, hook_specs

#: The events hail hooks, in the order setup writes and reports them.
_HARNESSES: tuple[Harness, ...] = ("claude", "codex")
EVENTS = tuple(dict.fromkeys(s.event for h in _HARNESSES for s in hook_specs(h)))

#: Any hook command containing one of these is hail's (older forms included) [docs/hooks.md
#: "Merge rule"].
HAIL_MARKERS = ("hail deliver", "hail brief", "tmux-bridge deliver")

#: What Codex hashes for a handler that names no timeout (observed on 0.171) [docs/hooks.md
#: "Codex trust"].
CODEX_DEFAULT_TIMEOUT = 600

# Marks the start of a block this merge inserted into a TOML text; after rendering, whatever blank
# lines precede it become exactly one, so an insertion never doubles or drops the separation.
_INSERT = "\x00hail-insert\x00"


class MergeError(Exception):
    """A config hail cannot merge into: invalid JSON/TOML, or `hooks` of the wrong type.

    `why` is the reason alone; `parse` says whether the text did not parse at all. The caller adds
    the file name and the fix (see `error_text`).
    """

    def __init__(self, why: str, *, parse: bool, fix: str = "") -> None:
        super().__init__(why)
        self.why = why
        self.parse = parse
        self.fix = fix


def _unsafe(why: str) -> MergeError:
    """A valid config hail cannot edit without changing or dropping what it does not own."""
    return MergeError(why, parse=False, fix=BY_HAND_FIX)


def error_text(harness: Harness, path: str, err: MergeError) -> str:
    """The user-facing text for a config setup refuses to touch: names the file and the fix."""
    if err.fix:
        return f"{path} cannot be edited safely ({err.why}); {err.fix}, then rerun hail setup"
    if harness in ("claude", "gemini"):
        return f"{path} is not a JSON object ({err.why}); fix it, then rerun hail setup"
    if err.parse:
        return f"{path} is not valid TOML ({err.why}); fix it, then rerun hail setup"
    return f"{path} cannot take hail's hooks ({err.why}); fix it, then rerun hail setup"


def wanted_hooks(harness: Harness, program: str = DEFAULT_PROGRAM) -> dict[str, str]:
    """The hooks hail installs for a harness: event → command running `program`
    (`data/harness_hooks.json`)."""
    return {spec.event: spec.command(program) for spec in hook_specs(harness)}


def _spec(harness: Harness, event: str) -> HookSpec:
    return next(spec for spec in hook_specs(harness) if spec.event == event)


def is_hail_command(cmd: str) -> bool:
    """Whether a hook command is hail's, in any version's form."""
    return any(marker in cmd for marker in HAIL_MARKERS)


def snake_event(event: str) -> str:
    """`PostToolUse` → `post_tool_use`, the event spelling in Codex's trust keys."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def codex_trust_hash(
    event: str, command: str, *, matcher: str | None = None, timeout: int = CODEX_DEFAULT_TIMEOUT
) -> str:
    """The `trusted_hash` Codex records for one command handler [docs/hooks.md "Codex trust"].

    SHA-256 of the compact, sorted-key JSON of the event in snake case, the handler as Codex
    normalises it (not async, its timeout, 600 by default), and the group's matcher when it has one.
    """
    identity: dict[str, object] = {
        "event_name": snake_event(event),
        "hooks": [{"async": False, "command": command, "timeout": timeout, "type": "command"}],
    }
    if matcher is not None:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def codex_trust_key(config_path: str, event: str, group: int, handler: int) -> str:
    """The `[hooks.state."…"]` key Codex files a handler's trust under (zero-based indexes)."""
    return f"{config_path}:{snake_event(event)}:{group}:{handler}"


# --- the merge rule, shared by both formats ------------------------------------------------------

# How the rule reads and edits one format: a handler's command (None when it has none), rewriting a
# handler's command, and a group's handler list (None when it has none).
_CommandOf = Callable[[object], str | None]
_SetCommand = Callable[[object, str], None]
_HandlersOf = Callable[[object], MutableSequence[object] | None]


def _merge_event(
    groups: MutableSequence[object],
    wanted: str,
    command_of: _CommandOf,
    set_command: _SetCommand,
    handlers_of: _HandlersOf,
) -> bool:
    """Apply the merge rule [docs/hooks.md "Merge rule"] to one event's groups in place; False when
    a new group must be appended.

    Exactly one hail command equal to `wanted` ⇒ untouched. Otherwise the first hail command is
    rewritten in place (its other keys and its group kept), every other hail command is removed, and
    a group whose handler list that emptied is dropped.
    """
    found = [
        (gi, hi)
        for gi, group in enumerate(groups)
        for hi, handler in enumerate(handlers_of(group) or ())
        if _is_hail(command_of(handler))
    ]
    if len(found) == 1 and command_of(_handler_at(groups, handlers_of, found[0])) == wanted:
        return True
    if not found:
        return False
    set_command(_handler_at(groups, handlers_of, found[0]), wanted)
    emptied: set[int] = set()
    # Remove from the end so earlier indexes stay valid.
    for gi, hi in reversed(found[1:]):
        handlers = handlers_of(groups[gi])
        assert handlers is not None
        del handlers[hi]
        if len(handlers) == 0:
            emptied.add(gi)
    for gi in sorted(emptied, reverse=True):
        del groups[gi]
    return True


def _is_hail(cmd: str | None) -> bool:
    return cmd is not None and is_hail_command(cmd)


def _handler_at(
    groups: MutableSequence[object], handlers_of: _HandlersOf, at: tuple[int, int]
) -> object:
    handlers = handlers_of(groups[at[0]])
    assert handlers is not None
    return handlers[at[1]]


# --- Claude Code: settings.json -------------------------------------------------------------------


def _parse_claude(text: str) -> tuple[ExactJson | None, dict[str, object]]:
    """The loaded text (numbers kept as written) and its top-level object."""
    if not text.strip():
        return None, {}
    try:
        loaded = ExactJson(text)
    except ValueError as e:
        raise MergeError(str(e), parse=True) from None
    except RecursionError:
        raise _unsafe(TOO_DEEP) from None
    root = loaded.value
    if not isinstance(root, dict):
        kind = "a number" if loaded.is_number(root) else _json_type(root)
        raise MergeError(f"the top level is {kind}", parse=False)
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


def _claude_handlers(group: object) -> MutableSequence[object] | None:
    if isinstance(group, dict):
        handlers = group.get("hooks")
        if isinstance(handlers, list):
            return cast(list[object], handlers)
    return None


def _claude_hooks(root: dict[str, object]) -> dict[str, object]:
    hooks = root.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise MergeError(f'"hooks" is {_json_type(hooks)}, not an object', parse=False)
    return cast(dict[str, object], hooks)


def merge_claude(
    text: str,
    wanted: Mapping[str, str] | None = None,
    program: str = DEFAULT_PROGRAM,
    harness: Harness = "claude",
) -> str:
    """Merge hail's hooks into the text of Claude Code's settings.json (or of another harness's
    settings of the same shape: Gemini CLI's).

    Key order and unknown keys are kept. When nothing changes the input comes back unchanged (its
    own formatting included); otherwise the result is 2-space JSON, non-ASCII kept, newline-ended.
    """
    cmds = wanted_hooks(harness, program) if wanted is None else wanted
    loaded, root = _parse_claude(text)
    try:
        return _merge_claude_root(text, loaded, root, cmds, harness)
    except RecursionError:
        raise _unsafe(TOO_DEEP) from None


def _merge_claude_root(
    text: str,
    loaded: ExactJson | None,
    root: dict[str, object],
    cmds: Mapping[str, str],
    harness: Harness = "claude",
) -> str:
    before = json.loads(json.dumps(root))
    hooks = _claude_hooks(root)
    for event, cmd in cmds.items():
        groups = hooks.get(event)
        if not isinstance(groups, list):
            groups = hooks[event] = []
        groups = cast(list[object], groups)
        handled = _merge_event(
            groups,
            cmd,
            _claude_command,
            _claude_set_command,
            _claude_handlers,
        )
        if not handled:
            groups.append(_new_claude_group(_spec(harness, event), cmd))
    if root == before and text.strip():
        return text
    if loaded is None:
        return json.dumps(root, indent=2, ensure_ascii=False) + "\n"
    return loaded.dumps(root) + "\n"


def _new_claude_group(spec: HookSpec, command: str) -> dict[str, object]:
    # A group without a matcher matches every tool.
    group: dict[str, object] = {} if spec.matcher is None else {"matcher": spec.matcher}
    group["hooks"] = [{"type": "command", "command": command}]
    return group


# --- Codex: config.toml ---------------------------------------------------------------------------

_TomlMap = Table | OutOfOrderTableProxy | Container


def _parse_codex(text: str) -> TOMLDocument:
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as e:
        raise MergeError(str(e), parse=True) from None
    except RecursionError:
        raise _unsafe(TOO_DEEP) from None


def _keep_comments(original: str, merged: str) -> str:
    """`merged`, unless it lost a comment of `original` (hail's own `# hail:` lines aside)."""
    left = toml_comments(merged)
    for comment in toml_comments(original):
        if comment in left:
            left.remove(comment)
        elif not comment.startswith("# hail:"):
            raise _unsafe(
                f"hail's edit would drop the comment {comment!r}, which sits inside an inline "
                "array of hooks; write those hooks as [[hooks.<Event>]] tables"
            )
    return merged


def _codex_command(handler: object) -> str | None:
    if isinstance(handler, MutableMapping):
        cmd = handler.get("command")
        if isinstance(cmd, str):
            return str(cmd)
    return None


def _codex_set_command(handler: object, command: str) -> None:
    cast(MutableMapping[str, object], handler)["command"] = command


def _codex_handlers(group: object) -> MutableSequence[object] | None:
    """A group's handlers: `[[hooks.<Event>.hooks]]` sub-tables or an inline array; both read."""
    if isinstance(group, MutableMapping):
        handlers = group.get("hooks")
        if isinstance(handlers, AoT | Array):
            return cast(MutableSequence[object], handlers)
    return None


def _codex_hooks_table(doc: TOMLDocument) -> _TomlMap:
    hooks = doc.get("hooks")
    if hooks is None:
        # An implicit super table: only `[[hooks.<Event>]]` headers are printed, never `[hooks]`.
        table = tomlkit.table(is_super_table=True)
        doc.add("hooks", table)
        return table
    if not isinstance(hooks, Table | OutOfOrderTableProxy):
        raise MergeError("hooks is not a table", parse=False)
    return hooks


def _event_groups(hooks: _TomlMap, event: str) -> AoT:
    """`hooks.<Event>` as an array of tables, created when missing or of another type.

    An inline array of tables (`SessionStart = [{ … }]`) is rewritten as `[[hooks.SessionStart]]`
    groups with the same content, so other tools' groups survive.
    """
    value = hooks.get(event)
    if isinstance(value, AoT):
        return value
    aot = tomlkit.aot()
    if isinstance(value, Array):
        for item in value:
            if isinstance(item, Mapping):
                group = tomlkit.table()
                for key, sub in cast(Mapping[str, object], item).items():
                    group.add(key, cast(Item, sub))
                aot.append(group)
    if value is not None:
        del hooks[event]
    hooks[event] = aot
    fresh = hooks.get(event)
    assert isinstance(fresh, AoT)
    return fresh


def _new_codex_group(spec: HookSpec, command: str) -> Table:
    group = tomlkit.table()
    if spec.matcher is not None:
        group.add("matcher", spec.matcher)
    handler = tomlkit.table()
    handler.add("type", "command")
    handler.add("command", command)
    handler.add(tomlkit.nl())
    handlers = tomlkit.aot()
    handlers.append(handler)
    group.add("hooks", handlers)
    # Set last: tomlkit indents keys added later by the spaces it finds in the table's indent.
    group.trivia.indent = _INSERT + f"# hail: {spec.note}\n"
    return group


def _ensure_features(doc: TOMLDocument) -> None:
    features = doc.get("features")
    if features is None:
        table = tomlkit.table()
        table.trivia.indent = _INSERT
        table.add("hooks", True)
        table.add(tomlkit.nl())
        doc.add("features", table)
        return
    if not isinstance(features, Table | OutOfOrderTableProxy):
        raise MergeError("features is not a table", parse=False)
    if features.get("hooks") is not True:
        features["hooks"] = True


@dataclass(frozen=True)
class CodexHook:
    """Where one of hail's wanted handlers sits in a Codex config, and what Codex would hash."""

    event: str
    group: int
    handler: int
    command: str
    matcher: str | None
    timeout: int

    def key(self, config_path: str) -> str:
        return codex_trust_key(config_path, self.event, self.group, self.handler)

    def trusted_hash(self) -> str:
        return codex_trust_hash(
            self.event, self.command, matcher=self.matcher, timeout=self.timeout
        )


def _wanted_codex_hooks(hooks: _TomlMap, program: str) -> Iterator[CodexHook]:
    """Each of hail's wanted handlers present in the config (exact command), with its place."""
    for event, cmd in wanted_hooks("codex", program).items():
        groups = hooks.get(event)
        if not isinstance(groups, AoT | Array):
            continue
        for gi, group in enumerate(groups):
            for hi, handler in enumerate(_codex_handlers(group) or ()):
                if _codex_command(handler) != cmd:
                    continue
                assert isinstance(group, MutableMapping)
                matcher = group.get("matcher")
                timeout = cast(MutableMapping[str, object], handler).get("timeout")
                yield CodexHook(
                    event=event,
                    group=gi,
                    handler=hi,
                    command=cmd,
                    matcher=str(matcher) if isinstance(matcher, str) else None,
                    timeout=(
                        int(timeout)
                        if isinstance(timeout, int) and not isinstance(timeout, bool)
                        else CODEX_DEFAULT_TIMEOUT
                    ),
                )


def _state_table(hooks: _TomlMap, *, create: bool) -> _TomlMap | None:
    state = hooks.get("state")
    if state is None:
        if not create:
            return None
        table = tomlkit.table(is_super_table=True)
        hooks["state"] = table
        return table
    if not isinstance(state, Table | OutOfOrderTableProxy):
        raise MergeError("hooks.state is not a table", parse=False)
    return state


def _trust(hooks: _TomlMap, config_path: str, program: str) -> None:
    present = list(_wanted_codex_hooks(hooks, program))
    if not present:
        return
    state = _state_table(hooks, create=True)
    assert state is not None
    for hook in present:
        key, digest = hook.key(config_path), hook.trusted_hash()
        entry = state.get(key)
        if isinstance(entry, Table | OutOfOrderTableProxy):
            if entry.get("trusted_hash") != digest:
                entry["trusted_hash"] = digest
            continue
        table = tomlkit.table()
        table.trivia.indent = _INSERT
        table.add("trusted_hash", digest)
        table.add(tomlkit.nl())
        if entry is not None:
            del state[key]
        state[key] = table


def _render_codex(doc: TOMLDocument, original: str) -> str:
    out = tomlkit.dumps(doc)
    if out == original:
        return out
    # Exactly one blank line before each inserted block (none at the top of the file).
    out = re.sub(r"\n*" + re.escape(_INSERT), "\n\n", out)
    out = out.removeprefix("\n\n")
    # Removing a handler or appending a block can leave blank lines at the end: keep the
    # original's ending instead.
    tail = original[len(original.rstrip()) :]
    return out.rstrip() + (tail if "\n" in tail else "\n")


def merge_codex(text: str, config_path: str, trust: bool, program: str = DEFAULT_PROGRAM) -> str:
    """Merge hail's hooks into the text of Codex's config.toml, comments and layout kept.

    Ensures `[features] hooks = true`, then applies the merge rule per event. With `trust`, also
    records Codex's `trusted_hash` for hail's own three handlers under `[hooks.state."<key>"]`,
    keyed by `config_path` as Codex spells it.
    """
    doc = _parse_codex(text)
    try:
        return _keep_comments(text, _merge_codex_doc(doc, text, config_path, trust, program))
    except RecursionError:
        raise _unsafe(TOO_DEEP) from None


def _merge_codex_doc(
    doc: TOMLDocument, text: str, config_path: str, trust: bool, program: str
) -> str:
    _ensure_features(doc)
    hooks = _codex_hooks_table(doc)
    for event, cmd in wanted_hooks("codex", program).items():
        groups = _event_groups(hooks, event)
        handled = _merge_event(
            cast(MutableSequence[object], groups),
            cmd,
            _codex_command,
            _codex_set_command,
            _codex_handlers,
        )
        if not handled:
            groups.append(_new_codex_group(_spec("codex", event), cmd))
    if trust:
        _trust(hooks, config_path, program)
    return _render_codex(doc, text)


def codex_untrusted(text: str, config_path: str, program: str = DEFAULT_PROGRAM) -> list[str]:
    """The events whose hail hook in this config Codex has not trusted (no matching hash)."""
    doc = _parse_codex(text)
    hooks = doc.get("hooks")
    if not isinstance(hooks, Table | OutOfOrderTableProxy):
        return []
    state = _state_table(hooks, create=False)
    untrusted: list[str] = []
    for hook in _wanted_codex_hooks(hooks, program):
        entry = state.get(hook.key(config_path)) if state is not None else None
        recorded = entry.get("trusted_hash") if isinstance(entry, Mapping) else None
        if recorded != hook.trusted_hash() and hook.event not in untrusted:
            untrusted.append(hook.event)
    return untrusted
