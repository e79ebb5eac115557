"""The console-script entry point: one parse, one dispatch, and errors reported in one place.

`argv.early` names the verb and `argv.TABLE` says how it is parsed: the lean verbs (hooks,
receipts, inbox, the send) by `argv`'s own parser, before click, libtmux or tomlkit is imported,
since they run on every prompt and tool call; the rest by click (`cli.py`), from the same table.
`verbs.RUNS` runs the parsed line. Only `dispatch` prints `error: …` and chooses the exit status.
"""

from __future__ import annotations

import gc
import os
import sys

from hail.errors import HailError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Run = Callable[[], int]


def main(args: list[str] | None = None) -> int:
    """The process's exit status, once its output is flushed; the process ends next.

    A hail process is short-lived and keeps nothing that needs the cyclic collector: collecting
    while the modules are imported costs a hook call about 1% of an interpreter start, so it is
    off for the run.
    """
    gc.disable()
    code = dispatch(sys.argv[1:] if args is None else args)
    if sys.stdout is not None:  # None when fd 1 was closed at startup (`hail deliver >&-`)
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            from hail.output import silence

            silence()
    # At exit the interpreter runs collections that walk every object still alive, the imported
    # modules' included: about a seventh of an interpreter start on a hook call. Frozen objects
    # are not walked, and nothing here needs collecting: files are closed, output is flushed.
    gc.freeze()
    return code


def dispatch(args: list[str]) -> int:
    """Parse the line, run its verb, and turn every error into `error: …` and an exit code."""
    try:
        return parse(args)()
    except HailError as err:
        return fail(err)
    except BrokenPipeError:
        from hail.output import silence

        silence()
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a hook never fails the agent's session
        if args[:1] in (["deliver"], ["listen"]) or (args[:1] == ["brief"] and "--hook" in args):
            from hail.hooks.protocol import log_error

            log_error(None, args[0], exc)
            return 0
        return internal(exc)


def fail(err: HailError) -> int:
    from hail.output import shown

    sys.stderr.write(f"error: {shown(err.message)}\n")
    return err.exit_code


def internal(exc: BaseException) -> int:
    """An unexpected error: one `error: …` line, below its traceback when HAIL_DEBUG asks for it."""
    from hail.errors import debugging, traceback_of
    from hail.sandbox import denied_write

    if debugging(os.environ):
        sys.stderr.write(traceback_of(exc))

    denied = denied_write(exc)  # a sandbox, not a bug: say how to get out of it
    if denied is not None:
        return fail(HailError(denied))
    return fail(HailError(f"internal error: {exc}; please report it"))


def parse(args: list[str]) -> Run:
    """The verb's run for a command line, its arguments checked; UsageError on a bad line.

    Nothing is read or written before the run is called, so a bad line never waits on stdin.
    """
    hook = hook_line(args)
    if hook is not None:
        return hook
    from hail import argv

    # Arguments are bytes the shell passed: invalid UTF-8 is replaced, as it is on stdin.
    words, as_person = argv.speaker([from_argv(arg) for arg in args])
    verb, rest = argv.early(words)
    if as_person and verb not in argv.AS_PERSON_VERBS and verb != "help":
        from hail.errors import UsageError

        raise UsageError(
            f"--as person runs {', '.join(argv.AS_PERSON_VERBS)}, not {verb}{argv.PARSER_TAIL}"
        )
    spec = argv.VERB[verb]
    if spec.lean:
        call = argv.parse(spec, rest)
    else:
        from hail import cli

        call = cli.parse(verb, rest)
    if as_person:
        call.values["as_person"] = True
    from hail import verbs

    if verb == "send":
        verbs.send_args(call)  # a bad send is refused before stdin is read
    run = verbs.RUNS[verb]
    return lambda: run(call)


def hook_line(args: list[str]) -> Run | None:
    """The run of a hook line as `hail setup` writes it, or None for any other line, which the verb
    table parses.

    `deliver` runs on every prompt, tool call and turn end of every agent, `brief --hook` at every
    session's start: their lines are read here without importing the table of every verb and every
    verb's run (about 4% of an interpreter start).
    """
    called = hook_call(args)
    if called is None:
        return None
    verb, fmt, event = called
    if verb == "brief":
        from hail.hooks.brief import brief_hook

        return lambda: brief_hook(all_=False, fmt=fmt)
    from hail.hooks.deliver import deliver

    return lambda: deliver(fmt, event)


def hook_call(args: list[str]) -> tuple[str, str | None, str] | None:
    """The verb, harness and event of a hook line exactly as `install/hook_table.py` writes it
    (`deliver --format <harness> [--event <event>]`, `brief --hook [--format <harness>]`), or None.
    A line that differs in any way, even a valid one, takes the table's road, so the table stays
    the one judge of what a line means; tests/unit/test_entry.py holds the two to the same call
    for every hook line setup writes."""
    from hail.harnesses import registry

    events = registry.DELIVERED_EVENTS
    if args[:2] == ["brief", "--hook"] and len(args) in (2, 4):
        fmt = args[3] if len(args) == 4 and args[2] == "--format" else None
        if len(args) == 4 and fmt not in registry.NAMES:
            return None
        return "brief", fmt, ""
    if len(args) not in (3, 5) or args[:2] != ["deliver", "--format"]:
        return None
    if len(args) == 5 and args[3] != "--event":
        return None
    fmt, event = args[2], args[4] if len(args) == 5 else events[0]
    if fmt not in registry.NAMES or event not in events:
        return None
    return "deliver", fmt, event


def from_argv(text: str) -> str:
    """An argument as valid text: undecodable bytes (surrogate escapes) become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
