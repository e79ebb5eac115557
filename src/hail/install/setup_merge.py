"""Install hail's hooks into Claude Code's and Codex's configs: pure text-to-text merges
[docs/hooks.md "Merge rule"].

Everything that is not a hail hook survives: unknown keys, other tools' hooks and groups, and in
Codex's TOML every comment and blank line. A hail hook is told by its shape, the program and
arguments it runs, never by a substring (`echo hail deliver` is another tool's). An older hail line
(0.3's `[ -n "$TMUX_PANE" ] || exit 0; hail deliver …` included, or one naming another program) is
rewritten where it stands, keeping the entry's timeout and its group's matcher, so merging is
idempotent: the merge of a merged text is that text, byte for byte. No filesystem here;
`commands/setup.py` reads, diffs and writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from collections.abc import Callable, Iterator, Mapping, MutableMapping, MutableSequence
from dataclasses import dataclass
from typing import cast

import tomlkit
import tomlkit.exceptions
from tomlkit.container import Container, OutOfOrderTableProxy
from tomlkit.items import AoT, Array, Item, Table
from tomlkit.toml_document import TOMLDocument

from hail.install.config_text import BY_HAND_FIX, TOO_DEEP, ExactJson, toml_comments
from hail.install.hook_table import DEFAULT_PROGRAM, Harness, HookSpec, hook_specs

#: The events hail hooks, in the order setup writes and reports them.
_HARNESSES: tuple[Harness, ...] = ("claude", "codex")
EVENTS = tuple(dict.fromkeys(s.event for h in _HARNESSES for s in hook_specs(h)))

#: The verbs of hail's hooks, per the name of the program that runs them (`tmux-bridge` was
#: hail's name before 0.4) [docs/hooks.md "Merge rule"].
HAIL_VERBS: dict[str, tuple[str, ...]] = {"hail": ("deliver", "brief"), "tmux-bridge": ("deliver",)}

# 0.3 ran its hooks behind this guard; what follows it is the hook itself.
_GUARD = re.compile(r'\s*\[ -n "\$TMUX_PANE" \] \|\| exit 0;\s*')
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")

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
    if harness == "claude" or path.endswith(".json"):
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


def hook_argv(cmd: str) -> list[str] | None:
    """The words of a hook command as the shell would run them (0.3's guard and leading `NAME=value`
    assignments skipped), or None when it is no single simple command of a program and a verb."""
    guard = _GUARD.match(cmd)
    if guard is not None:
        cmd = cmd[guard.end() :]
    try:
        argv = shlex.split(cmd)
    except ValueError:  # an unclosed quote: no command hail wrote
        return None
    while argv and _ASSIGNMENT.match(argv[0]):
        del argv[0]
    return argv if len(argv) >= 2 else None


def is_hail_command(cmd: str, programs: frozenset[str] = frozenset()) -> bool:
    """Whether a hook command is hail's, in any version's form: `<program> deliver …` or
    `<program> brief …`, where the program's file name is `hail` or it is one of `programs`
    (paths known to run hail, see `hail_programs`)."""
    argv = hook_argv(cmd)
    if argv is None:
        return False
    program, verb = argv[0], argv[1]
    if program in programs:
        return verb in HAIL_VERBS["hail"]
    return verb in HAIL_VERBS.get(os.path.basename(program), ())


def hail_programs(
    harness: Harness, hooks: Mapping[str, object], program: str, handlers_of: _HandlersOf
) -> frozenset[str]:
    """The programs that run hail in a config's `hooks`, whatever their file name: `program` (a
    shell word), and each program a handler runs with exactly the arguments of hail's hook for
    that event (what `setup --program` wrote earlier). Their `deliver` and `brief` lines are hail's."""
    found = {_unquoted(program)}
    for spec in hook_specs(harness):
        groups = hooks.get(spec.event)
        for group in groups if isinstance(groups, MutableSequence) else ():
            for handler in handlers_of(group) or ():
                cmd = handler.get("command") if isinstance(handler, Mapping) else None
                argv = hook_argv(str(cmd)) if isinstance(cmd, str) else None
                if argv is not None and tuple(argv[1:]) == spec.args:
                    found.add(argv[0])
    return frozenset(found)


def _unquoted(program: str) -> str:
    """The path a program's shell word names (`hook_program` quotes one that needs it)."""
    try:
        words = shlex.split(program)
    except ValueError:
        return program
    return words[0] if len(words) == 1 else program


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
    wanted: str | None,
    command_of: _CommandOf,
    set_command: _SetCommand,
    handlers_of: _HandlersOf,
    programs: frozenset[str],
) -> bool:
    """Apply the merge rule [docs/hooks.md "Merge rule"] to one event's groups in place; False when
    a new group must be appended. A hail command is one `is_hail_command` accepts with `programs`.

    Exactly one hail command equal to `wanted` ⇒ untouched. Otherwise the first hail command is
    rewritten in place (its other keys and its group kept), every other hail command is removed, and
    a group whose handler list that emptied is dropped. `wanted` None (hail's hooks are in another
    file) removes every hail command.
    """
    found = [
        (gi, hi)
        for gi, group in enumerate(groups)
        for hi, handler in enumerate(handlers_of(group) or ())
        if _is_hail(command_of(handler), programs)
    ]
    if wanted is None:
        _remove(groups, handlers_of, found)
        return True
    if len(found) == 1 and command_of(_handler_at(groups, handlers_of, found[0])) == wanted:
        return True
    if not found:
        return False
    set_command(_handler_at(groups, handlers_of, found[0]), wanted)
    _remove(groups, handlers_of, found[1:])
    return True


def _remove(
    groups: MutableSequence[object], handlers_of: _HandlersOf, found: list[tuple[int, int]]
) -> None:
    """Remove the handlers at `found`, dropping the groups left without one."""
    emptied: set[int] = set()
    # Remove from the end so earlier indexes stay valid.
    for gi, hi in reversed(found):
        handlers = handlers_of(groups[gi])
        assert handlers is not None
        del handlers[hi]
        if len(handlers) == 0:
            emptied.add(gi)
    for gi in sorted(emptied, reverse=True):
        del groups[gi]


def _is_hail(cmd: str | None, programs: frozenset[str]) -> bool:
    return cmd is not None and is_hail_command(cmd, programs)


def _handler_at(
    groups: MutableSequence[object], handlers_of: _HandlersOf, at: tuple[int, int]
) -> object:
    handlers = handlers_of(groups[at[0]])
    assert handlers is not None
    return handlers[at[1]]


# --- Claude Code: settings.json -------------------------------------------------------------------


def _parse_json(text: str) -> tuple[ExactJson | None, dict[str, object]]:
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
    text: str, wanted: Mapping[str, str] | None = None, program: str = DEFAULT_PROGRAM
) -> str:
    """Merge hail's hooks into the text of Claude Code's settings.json.

    Key order and unknown keys are kept. When nothing changes the input comes back unchanged (its
    own formatting included); otherwise the result is 2-space JSON, non-ASCII kept, newline-ended.
    """
    cmds = wanted_hooks("claude", program) if wanted is None else wanted
    return _merge_json("claude", text, cmds, program)


def merge_codex_json(text: str, program: str = DEFAULT_PROGRAM) -> str:
    """Merge hail's hooks into the text of Codex's hooks.json: Codex's groups, in Claude Code's
    JSON shape (`{"hooks": {"<Event>": [groups]}}`), kept as `merge_claude` keeps settings.json."""
    return _merge_json("codex", text, wanted_hooks("codex", program), program)


def _merge_json(harness: Harness, text: str, cmds: Mapping[str, str], program: str) -> str:
    loaded, root = _parse_json(text)
    try:
        return _merge_json_root(harness, text, loaded, root, cmds, program)
    except RecursionError:
        raise _unsafe(TOO_DEEP) from None


def _merge_json_root(
    harness: Harness,
    text: str,
    loaded: ExactJson | None,
    root: dict[str, object],
    cmds: Mapping[str, str],
    program: str,
) -> str:
    before = json.loads(json.dumps(root))
    hooks = _claude_hooks(root)
    programs = hail_programs(harness, hooks, program, _claude_handlers)
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
            programs,
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


def _wanted_codex_hooks(
    hooks: Mapping[str, object], program: str, handlers_of: _HandlersOf = _codex_handlers
) -> Iterator[CodexHook]:
    """Each of hail's wanted handlers present in `hooks` (exact command), with its place: the
    `hooks` of config.toml, or with `_claude_handlers` those of hooks.json loaded as plain JSON."""
    for event, cmd in wanted_hooks("codex", program).items():
        groups = hooks.get(event)
        if not isinstance(groups, MutableSequence):
            continue
        for gi, group in enumerate(groups):
            for hi, handler in enumerate(handlers_of(group) or ()):
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


@dataclass(frozen=True)
class HooksElsewhere:
    """hail's Codex hooks kept in hooks.json beside config.toml [docs/hooks.md "Codex"]: that
    file's text, and its path as Codex spells it in the trust keys it files in config.toml."""

    text: str
    trust_path: str

    def present(self, program: str) -> list[CodexHook]:
        """hail's wanted handlers in the file, with their places (none when it is unreadable)."""
        try:
            root = json.loads(self.text) if self.text.strip() else {}
        except (ValueError, RecursionError):
            return []
        hooks = root.get("hooks") if isinstance(root, dict) else None
        if not isinstance(hooks, dict):
            return []
        return list(_wanted_codex_hooks(hooks, program, _claude_handlers))


def codex_json_holds_hail(text: str, program: str = DEFAULT_PROGRAM) -> bool:
    """Whether the text of Codex's hooks.json holds any of hail's hooks (then hail's hooks go
    there, not into config.toml). Raises MergeError for a text that is no JSON object."""
    _, root = _parse_json(text)
    hooks = root.get("hooks")
    return isinstance(hooks, dict) and _holds_hail(
        cast(Mapping[str, object], hooks), program, _claude_handlers
    )


def codex_toml_holds_hail(text: str, program: str = DEFAULT_PROGRAM) -> bool:
    """Whether the text of Codex's config.toml holds any of hail's hooks."""
    hooks = _parse_codex(text).get("hooks")
    return isinstance(hooks, Table | OutOfOrderTableProxy) and _holds_hail(
        hooks, program, _codex_handlers
    )


def _holds_hail(hooks: Mapping[str, object], program: str, handlers_of: _HandlersOf) -> bool:
    programs = hail_programs("codex", hooks, program, handlers_of)
    for event in dict.fromkeys(spec.event for spec in hook_specs("codex")):
        groups = hooks.get(event)
        for group in groups if isinstance(groups, MutableSequence) else ():
            for handler in handlers_of(group) or ():
                if _is_hail(_codex_command(handler), programs):
                    return True
    return False


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


def _trust(hooks: _TomlMap, present: list[CodexHook], key_path: str) -> None:
    """Record Codex's trust for each of `present`, keyed by the path of the file holding them."""
    if not present:
        return
    state = _state_table(hooks, create=True)
    assert state is not None
    for hook in present:
        key, digest = hook.key(key_path), hook.trusted_hash()
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


def merge_codex(
    text: str,
    config_path: str,
    trust: bool,
    program: str = DEFAULT_PROGRAM,
    elsewhere: HooksElsewhere | None = None,
) -> str:
    """Merge hail's hooks into the text of Codex's config.toml, comments and layout kept.

    Ensures `[features] hooks = true`, then applies the merge rule per event. With `trust`, also
    records Codex's `trusted_hash` for hail's own handlers under `[hooks.state."<key>"]`, keyed by
    `config_path` as Codex spells it. With `elsewhere`, hail's hooks are in hooks.json: every hail
    hook is removed from config.toml (Codex runs the hooks of both files, so each would run twice),
    and the trust recorded is that of hail's handlers in hooks.json.
    """
    doc = _parse_codex(text)
    try:
        merged = _merge_codex_doc(doc, text, config_path, trust, program, elsewhere)
        return _keep_comments(text, merged)
    except RecursionError:
        raise _unsafe(TOO_DEEP) from None


def _merge_codex_doc(
    doc: TOMLDocument,
    text: str,
    config_path: str,
    trust: bool,
    program: str,
    elsewhere: HooksElsewhere | None,
) -> str:
    _ensure_features(doc)
    if elsewhere is not None:
        _drop_codex_hooks(doc, program)
        present = elsewhere.present(program) if trust else []
        if present:
            _trust(_codex_hooks_table(doc), present, elsewhere.trust_path)
        return _drop_notes(_render_codex(doc, text))
    hooks = _codex_hooks_table(doc)
    programs = hail_programs("codex", hooks, program, _codex_handlers)
    for event, cmd in wanted_hooks("codex", program).items():
        groups = _event_groups(hooks, event)
        handled = _merge_event(
            cast(MutableSequence[object], groups),
            cmd,
            _codex_command,
            _codex_set_command,
            _codex_handlers,
            programs,
        )
        if not handled:
            groups.append(_new_codex_group(_spec("codex", event), cmd))
    if trust:
        _trust(hooks, list(_wanted_codex_hooks(hooks, program)), config_path)
    return _render_codex(doc, text)


def _drop_codex_hooks(doc: TOMLDocument, program: str) -> None:
    """Remove every hail hook from config.toml, and an event left with no group."""
    hooks = doc.get("hooks")
    if hooks is None:
        return
    if not isinstance(hooks, Table | OutOfOrderTableProxy):
        raise MergeError("hooks is not a table", parse=False)
    programs = hail_programs("codex", hooks, program, _codex_handlers)
    for event in wanted_hooks("codex", program):
        groups = hooks.get(event)
        if not isinstance(groups, AoT | Array):
            continue
        mutable = cast(MutableSequence[object], groups)
        _merge_event(mutable, None, _codex_command, _codex_set_command, _codex_handlers, programs)
        if len(mutable) == 0:
            del hooks[event]


def _drop_notes(text: str) -> str:
    """`text` without the `# hail: …` lines setup wrote above its groups, now that config.toml holds
    none (tomlkit keeps a comment with the table before it, so one can outlive its group)."""
    kept: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("# hail:"):
            continue
        if not line.strip() and kept and not kept[-1].strip():
            continue  # the note's blank line: keep one
        kept.append(line)
    out = "".join(kept).rstrip()
    out += text[len(text.rstrip()) :] if out else ""
    # Only comments may go: a line like a note inside a multi-line string stays.
    if tomlkit.parse(out).unwrap() != tomlkit.parse(text).unwrap():
        return text
    return out


def codex_untrusted(
    text: str,
    config_path: str,
    program: str = DEFAULT_PROGRAM,
    elsewhere: HooksElsewhere | None = None,
) -> list[str]:
    """The events whose hail hook Codex has not trusted (no matching hash in this config): the
    hooks in config.toml, or with `elsewhere` those in hooks.json."""
    doc = _parse_codex(text)
    hooks = doc.get("hooks")
    state = (
        _state_table(hooks, create=False)
        if isinstance(hooks, Table | OutOfOrderTableProxy)
        else None
    )
    if elsewhere is not None:
        present, key_path = elsewhere.present(program), elsewhere.trust_path
    elif isinstance(hooks, Table | OutOfOrderTableProxy):
        present, key_path = list(_wanted_codex_hooks(hooks, program)), config_path
    else:
        return []
    untrusted: list[str] = []
    for hook in present:
        entry = state.get(hook.key(key_path)) if state is not None else None
        recorded = entry.get("trusted_hash") if isinstance(entry, Mapping) else None
        if recorded != hook.trusted_hash() and hook.event not in untrusted:
            untrusted.append(hook.event)
    return untrusted
