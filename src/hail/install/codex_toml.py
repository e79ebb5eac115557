"""Codex's config.toml: the pure merge of hail's hooks and trust into its text [docs/hooks.md
"Merge rule", "Codex trust"], every comment and blank line kept. The one module that imports
tomlkit.

An unchanged config comes back byte for byte; a merge that would drop a comment is refused. When
hail's hooks are in hooks.json (`HooksElsewhere`), config.toml keeps none of them, only their
trust. No filesystem here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping, MutableSequence
from typing import cast

import tomlkit
import tomlkit.exceptions
from tomlkit.container import Container, OutOfOrderTableProxy
from tomlkit.items import AoT, Array, Item, Table
from tomlkit.toml_document import TOMLDocument

from hail.harnesses.codex import HARNESS as CODEX
from hail.install.codex_hooks_json import HooksElsewhere
from hail.install.codex_trust import CodexHook, wanted_codex_hooks
from hail.install.config_text import TOO_DEEP, toml_comments
from hail.install.hook_table import DEFAULT_PROGRAM, HookSpec, hook_spec, wanted_hooks
from hail.install.merge_rule import MergeError, merge_event, unsafe
from hail.install.recognise import hail_programs, handler_command, holds_hail

# Marks the start of a block this merge inserted into a TOML text; after rendering, whatever blank
# lines precede it become exactly one, so an insertion never doubles or drops the separation.
_INSERT = "\x00hail-insert\x00"


_TomlMap = Table | OutOfOrderTableProxy | Container


def _parse_codex(text: str) -> TOMLDocument:
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as e:
        raise MergeError(str(e), parse=True, expected="valid TOML") from None
    except RecursionError:
        raise unsafe(TOO_DEEP) from None


def _keep_comments(original: str, merged: str) -> str:
    """`merged`, unless it lost a comment of `original` (hail's own `# hail:` lines aside)."""
    left = toml_comments(merged)
    for comment in toml_comments(original):
        if comment in left:
            left.remove(comment)
        elif not comment.startswith("# hail:"):
            raise unsafe(
                f"hail's edit would drop the comment {comment!r}, which sits inside an inline "
                "array of hooks; write those hooks as [[hooks.<Event>]] tables"
            )
    return merged


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


def codex_toml_holds_hail(text: str, program: str = DEFAULT_PROGRAM) -> bool:
    """Whether the text of Codex's config.toml holds any of hail's hooks."""
    hooks = _parse_codex(text).get("hooks")
    return isinstance(hooks, Table | OutOfOrderTableProxy) and holds_hail(
        CODEX.name, hooks, program, _codex_handlers
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
        raise unsafe(TOO_DEEP) from None


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
    programs = hail_programs(CODEX.name, hooks, program, _codex_handlers)
    for event, cmd in wanted_hooks(CODEX.name, program).items():
        groups = _event_groups(hooks, event)
        handled = merge_event(
            cast(MutableSequence[object], groups),
            cmd,
            handler_command,
            _codex_set_command,
            _codex_handlers,
            programs,
        )
        if not handled:
            groups.append(_new_codex_group(hook_spec(CODEX.name, event), cmd))
    if trust:
        _trust(hooks, list(wanted_codex_hooks(hooks, program, _codex_handlers)), config_path)
    return _render_codex(doc, text)


def _drop_codex_hooks(doc: TOMLDocument, program: str) -> None:
    """Remove every hail hook from config.toml, and an event left with no group."""
    hooks = doc.get("hooks")
    if hooks is None:
        return
    if not isinstance(hooks, Table | OutOfOrderTableProxy):
        raise MergeError("hooks is not a table", parse=False)
    programs = hail_programs(CODEX.name, hooks, program, _codex_handlers)
    for event in wanted_hooks(CODEX.name, program):
        groups = hooks.get(event)
        if not isinstance(groups, AoT | Array):
            continue
        mutable = cast(MutableSequence[object], groups)
        merge_event(mutable, None, handler_command, _codex_set_command, _codex_handlers, programs)
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
        present, key_path = list(wanted_codex_hooks(hooks, program, _codex_handlers)), config_path
    else:
        return []
    untrusted: list[str] = []
    for hook in present:
        entry = state.get(hook.key(key_path)) if state is not None else None
        recorded = entry.get("trusted_hash") if isinstance(entry, Mapping) else None
        if recorded != hook.trusted_hash() and hook.event not in untrusted:
            untrusted.append(hook.event)
    return untrusted
