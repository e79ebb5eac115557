"""The merge rule [docs/hooks.md "Merge rule"], shared by every format, and the refusal of a config
hail cannot merge into.

Everything that is not a hail hook survives: unknown keys, other tools' hooks and groups. hail's
own hook is rewritten where it stands, keeping the entry's other keys and its group's matcher, so
merging is idempotent: the merge of a merged text is that text, byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, MutableSequence

from hail.install.config_text import BY_HAND_FIX
from hail.install.hook_table import HarnessName
from hail.install.recognise import HandlersOf, is_hail


class MergeError(Exception):
    """A config hail cannot merge into: invalid JSON/TOML, or `hooks` of the wrong type.

    `why` is the reason alone; `parse` says whether the text did not parse at all; `expected`, in
    the words of the format that refused it, what the text is not ("a JSON object", "valid TOML").
    The caller adds the file name and the fix (see `error_text`).
    """

    def __init__(self, why: str, *, parse: bool, fix: str = "", expected: str = "") -> None:
        super().__init__(why)
        self.why = why
        self.parse = parse
        self.fix = fix
        self.expected = expected


def unsafe(why: str) -> MergeError:
    """A valid config hail cannot edit without changing or dropping what it does not own."""
    return MergeError(why, parse=False, fix=BY_HAND_FIX)


def error_text(harness: HarnessName, path: str, err: MergeError) -> str:
    """The user-facing text for a config setup refuses to touch: names the file and the fix."""
    if err.fix:
        return f"{path} cannot be edited safely ({err.why}); {err.fix}, then rerun hail setup"
    if err.expected:
        return f"{path} is not {err.expected} ({err.why}); fix it, then rerun hail setup"
    return f"{path} cannot take hail's hooks ({err.why}); fix it, then rerun hail setup"


# How the rule reads and edits one format: a handler's command (None when it has none), and
# rewriting a handler's command; a group's handler list is read by a `HandlersOf`.
CommandOf = Callable[[object], str | None]
SetCommand = Callable[[object, str], None]


def merge_event(
    groups: MutableSequence[object],
    wanted: str | None,
    command_of: CommandOf,
    set_command: SetCommand,
    handlers_of: HandlersOf,
    programs: frozenset[str],
    is_ours: Callable[[str | None], bool] | None = None,
) -> bool:
    """Apply the merge rule [docs/hooks.md "Merge rule"] to one event's groups in place; False when
    a new group must be appended. A hail command is one `is_hail_command` accepts with `programs`.

    Exactly one hail command equal to `wanted` ⇒ untouched. Otherwise the first hail command is
    rewritten in place (its other keys and its group kept), every other hail command is removed, and
    a group whose handler list that emptied is dropped. `wanted` None (hail's hooks are in another
    file) removes every hail command. `is_ours` names the commands of a hook told apart by its verb
    instead (`hail listen`).
    """
    found = [
        (gi, hi)
        for gi, group in enumerate(groups)
        for hi, handler in enumerate(handlers_of(group) or ())
        if (is_ours(command_of(handler)) if is_ours else is_hail(command_of(handler), programs))
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
    groups: MutableSequence[object], handlers_of: HandlersOf, found: list[tuple[int, int]]
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


def _handler_at(
    groups: MutableSequence[object], handlers_of: HandlersOf, at: tuple[int, int]
) -> object:
    handlers = handlers_of(groups[at[0]])
    assert handlers is not None
    return handlers[at[1]]
