"""The console-script entry point: one parse, one dispatch, and errors reported in one place.

`argv.early` names the verb. The hand-parsed verbs are parsed here and run before click, libtmux or
tomlkit is imported: the hook verbs (`deliver`, `brief`, `sent`, `await`) run on every prompt and
tool call, and a send should cost little more than its own file work. Every other verb is parsed
and run by the click layer, `cli.py`. Only `dispatch` prints `error: …` and chooses the exit status.
"""

from __future__ import annotations

import gc
import os
import sys

from hail import argv
from hail.errors import HailError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hail.commands.send import SendArgs

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
    except Exception as exc:  # never a traceback; a hook never fails the agent's session
        if args[:1] in (["deliver"], ["listen"]) or (args[:1] == ["brief"] and "--hook" in args):
            return 0
        return internal(exc)


def fail(err: HailError) -> int:
    from hail.output import shown

    sys.stderr.write(f"error: {shown(err.message)}\n")
    return err.exit_code


def internal(exc: BaseException) -> int:
    from hail.sandbox import denied_write

    denied = denied_write(exc)  # a sandbox, not a bug: say how to get out of it
    if denied is not None:
        return fail(HailError(denied))
    return fail(HailError(f"internal error: {exc}; please report it"))


def parse(args: list[str]) -> Run:
    """The verb's run for a command line, its arguments checked; UsageError on a bad line.

    Nothing is read or written before the run is called, so a bad line never waits on stdin.
    """
    verb, rest = argv.early(args)
    if verb == "send":
        send_args = parse_send(rest)
        return lambda: _run_send(send_args)
    if verb in argv.HAND_PARSED:
        call = parse_fast(verb, rest)
        return lambda: _run_fast(verb, call)
    from hail import cli

    return cli.parse(verb, rest)


# --- the send ----------------------------------------------------------------------------------


def parse_send(args: list[str]) -> SendArgs:
    """`<target> <kind> [headline [body]]` and the send options, in any order; validated."""
    from hail.commands import send

    # Arguments are bytes the shell passed: invalid UTF-8 is replaced, as it is on stdin.
    args = [from_argv(arg) for arg in args]
    refuse_legacy_flags(args)
    wait, wait_timeout = False, None
    if any(arg.partition("=")[0] == argv.SEND_WAIT for arg in args):
        from hail.commands.converse import take_wait_option

        args, wait, wait_timeout = take_wait_option(args)
    p = argv.parse(args, argv.SEND_VALUED, argv.SEND_FLAGS)
    pos = p.positional
    if not pos:
        raise UsageError(f"missing argument: the target seat{argv.PARSER_TAIL}")
    if len(pos) > 4:
        raise UsageError(f"unexpected argument '{pos[4]}' after the body")
    parsed = send.SendArgs(
        target=pos[0],
        kind=pos[1] if len(pos) > 1 else None,
        headline=pos[2] if len(pos) > 2 else None,
        re=p.values.get("--re"),
        scope=p.values.get("--scope"),
        span=p.values.get("--for"),
        no_submit="--no-submit" in p.flags,
        force="--force" in p.flags,
        no_wake="--no-wake" in p.flags,
        body=pos[3] if len(pos) > 3 else None,
        wait=wait,
        wait_timeout=wait_timeout,
    )
    send.validate(parsed)
    return parsed


def from_argv(text: str) -> str:
    """An argument as valid text: undecodable bytes (surrogate escapes) become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def refuse_legacy_flags(args: list[str]) -> None:
    """`--kind` and `--body` are refused before stdin is read or anything is written."""
    from hail import policy

    usage = (
        "Usage: hail <seat> <kind> '<headline>', or hail <seat> <kind> <<'EOF' with the headline "
        "on the first line and the body after it"
    )
    for arg in args:
        if arg == "--":
            break
        name = arg.split("=", 1)[0]
        if name == "--kind":
            raise UsageError(
                "--kind is not an option: the kind is the word after the seat "
                f"({' '.join(policy.KINDS)}). {usage}"
            )
        if name == "--body":
            raise UsageError(
                "--body is not an option: the body goes on stdin after the headline line,"
                f" or in the argument after the headline. {usage}"
            )


def _run_send(args: SendArgs) -> int:
    if sys.stdout is None:
        # fd 1 closed: the send still types and reports its status; only `id=` goes nowhere.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (lives as long as the process)
    from hail.commands import send
    from hail.context import Ctx
    from hail.stdin import read_body

    return send.send(Ctx.from_env(), args, read_body())


# --- the hook and receipt verbs ----------------------------------------------------------------


class FastCall:
    """A parsed hook or receipt verb line: what `_run_fast` needs, nothing run yet."""

    __slots__ = ("all_", "any_", "event", "fmt", "hook", "ids", "reply", "timeout")

    def __init__(self) -> None:
        self.fmt: str | None = None
        self.event = "UserPromptSubmit"
        self.all_ = False
        self.hook = False
        self.ids: list[str] = []
        self.timeout: float | None = None
        self.any_ = False
        self.reply = False


#: The harnesses with a waiter hook: Claude Code's asyncRewake (Codex has none).
LISTEN_FORMATS = ("claude",)


def parse_fast(verb: str, args: list[str]) -> FastCall:
    """Parse a hook or receipt verb's arguments by hand (no click); UsageError on a bad line."""
    call = FastCall()
    if verb == "deliver":
        from hail.hooks.protocol import EVENTS, FORMATS

        p = argv.parse(args, ("--format", "--event"), ())
        argv.no_positionals(verb, p)
        call.fmt = argv.choice(p.values.get("--format"), FORMATS, "--format")
        call.event = argv.choice(p.values.get("--event"), EVENTS, "--event") or call.event
    elif verb == "brief":
        p = argv.parse(args, (), ("--all", "--hook"))
        argv.no_positionals(verb, p)
        call.all_, call.hook = "--all" in p.flags, "--hook" in p.flags
    elif verb == "listen":
        p = argv.parse(args, ("--format",), ())
        argv.no_positionals(verb, p)
        call.fmt = argv.choice(p.values.get("--format"), LISTEN_FORMATS, "--format")
        if call.fmt is None:
            raise UsageError(f"listen needs --format claude (it is a hook){argv.PARSER_TAIL}")
    elif verb == "sent":
        p = argv.parse(args, (), ())
        if not p.positional:
            raise UsageError(f"sent takes one or more message ids{argv.PARSER_TAIL}")
        call.ids = p.positional
    else:
        p = argv.parse(args, ("--timeout",), ("--any", "--reply"))
        call.ids, call.any_ = p.positional, "--any" in p.flags
        call.reply = "--reply" in p.flags
        given = p.values.get("--timeout")
        call.timeout = None if given is None else _timeout(given)
    return call


def _run_fast(verb: str, call: FastCall) -> int:
    if verb == "listen":
        from hail.hooks.listen import listen

        return listen()
    if verb == "deliver":
        from hail.hooks.deliver import deliver

        return deliver(call.fmt, call.event)
    if verb == "brief":
        from hail.hooks import brief

        if call.hook:
            return brief.brief_hook(all_=call.all_)
        from hail.context import Ctx

        return brief.brief(Ctx.from_env(), all_=call.all_)
    from hail.commands import receive
    from hail.context import Ctx

    ctx = Ctx.from_env()
    if verb == "sent":
        return receive.sent(ctx, call.ids)
    from hail.commands import converse

    if call.reply:
        return converse.await_replies(ctx, call.ids, call.timeout, any_=call.any_)
    timeout = converse.default_timeout(ctx) if call.timeout is None else call.timeout
    return receive.await_(ctx, call.ids, timeout, any_=call.any_)


def _timeout(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise UsageError(f"--timeout takes a number of seconds, not '{value}'{argv.PARSER_TAIL}")
    return seconds
