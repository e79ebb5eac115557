"""hail's hooks told by their shape [docs/hooks.md "Merge rule"], in every config format.

A hail hook is told by the program and arguments it runs, never by a substring (`echo hail
deliver` is another tool's). An older hail line (0.3's `[ -n "$TMUX_PANE" ] || exit 0; hail
deliver …` included, or one naming another program) still counts, so a merge rewrites it where it
stands. Each format reads its own handlers; what a handler's command is, and whether it is hail's,
is the same for all.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping, MutableMapping, MutableSequence

from hail.install.hook_table import HarnessName, hook_specs

#: The verbs of hail's hooks, per the name of the program that runs them (`tmux-bridge` was
#: hail's name before 0.4) [docs/hooks.md "Merge rule"].
HAIL_VERBS: dict[str, tuple[str, ...]] = {"hail": ("deliver", "brief"), "tmux-bridge": ("deliver",)}


# 0.3 ran its hooks behind this guard; what follows it is the hook itself.
_GUARD = re.compile(r'\s*\[ -n "\$TMUX_PANE" \] \|\| exit 0;\s*')
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


#: How a format reads a group's handler list (None when it has none).
HandlersOf = Callable[[object], MutableSequence[object] | None]


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


def is_hail(cmd: str | None, programs: frozenset[str]) -> bool:
    return cmd is not None and is_hail_command(cmd, programs)


def runs_verb(cmd: str | None, verb: str, programs: frozenset[str]) -> bool:
    """Whether a hook command runs hail's `verb` (a hook told apart by its verb, `hail listen`)
    through a program named `hail` or one of `programs`."""
    argv = hook_argv(cmd) if cmd is not None else None
    if argv is None or argv[1] != verb:
        return False
    return argv[0] in programs or os.path.basename(argv[0]) == "hail"


def hail_programs(
    harness: HarnessName, hooks: Mapping[str, object], program: str, handlers_of: HandlersOf
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


def handler_command(handler: object) -> str | None:
    """A handler's command, for any mapping a format parses to (a TOML table's string made plain)."""
    if isinstance(handler, MutableMapping):
        cmd = handler.get("command")
        if isinstance(cmd, str):
            return str(cmd)
    return None


def holds_hail(
    harness: HarnessName, hooks: Mapping[str, object], program: str, handlers_of: HandlersOf
) -> bool:
    """Whether a config's `hooks` hold any of hail's hooks for the harness's events."""
    programs = hail_programs(harness, hooks, program, handlers_of)
    for event in dict.fromkeys(spec.event for spec in hook_specs(harness)):
        groups = hooks.get(event)
        for group in groups if isinstance(groups, MutableSequence) else ():
            for handler in handlers_of(group) or ():
                if is_hail(handler_command(handler), programs):
                    return True
    return False
