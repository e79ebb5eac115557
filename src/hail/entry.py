"""The console-script entry point.

The verbs agents run constantly are parsed here by hand and dispatched before click, libtmux or
tomlkit is imported [SPEC §6.8]: the hook verbs (`deliver`, `brief`, `sent`, `await`) run on every
prompt and tool call, and a send should cost little more than its own file work. Everything else goes
to the click surface in `cli.py`.
"""

from __future__ import annotations

import os
import sys

from hail.errors import HailError, UsageError

FAST_VERBS = ("deliver", "brief", "sent", "await")
SEND_OPTIONS = ("--re", "--scope", "--for", "--no-submit", "--force", "--no-wake")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        code = dispatch(args)
    except BrokenPipeError:
        from hail.output import silence

        silence()
        code = 0
    except KeyboardInterrupt:
        code = 130
    if sys.stdout is not None:  # None when fd 1 was closed at startup (`hail deliver >&-`)
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            from hail.output import silence

            silence()
    return code


def dispatch(args: list[str]) -> int:
    wants_help = {"-h", "--help"} & set(args[: args.index("--")] if "--" in args else args)
    if args and not wants_help:
        if args[0] in FAST_VERBS:
            return _run_fast(args[0], args[1:])
        send_args = send_line(args)
        if send_args is not None:
            return _run_send(send_args)
    from hail.cli import run

    return run(args)


def send_line(args: list[str]) -> list[str] | None:
    """The arguments of a send (`hail <target> …` or `hail send …`), or None for another verb."""
    from hail.seat import REMOVED, VERBS

    first = args[0]
    if first == "send":
        return args[1:]
    if first.split("=", 1)[0] in (*SEND_OPTIONS, "--kind", "--body"):
        return (
            args  # options may come before the target too [§5.1]; --kind/--body are refused there
        )
    if first in VERBS or first in REMOVED or first.startswith("-"):
        return None
    return args


def fail(err: HailError) -> int:
    sys.stderr.write(f"error: {err.message}\n")
    return err.exit_code


def internal(exc: BaseException) -> int:
    return fail(HailError(f"internal error: {exc}; please report it"))


def _run_send(args: list[str]) -> int:
    if sys.stdout is None:
        # fd 1 closed: the send still types and reports its status; only `id=` goes nowhere.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (lives as long as the process)
    try:
        from hail.commands import send
        from hail.context import Ctx
        from hail.stdin import read_body

        parsed = send.parse_send(args)
        send.validate(parsed)  # before stdin is read: a bad line must not wait on a body
        return send.send(Ctx.from_env(), parsed, read_body())
    except HailError as err:
        return fail(err)
    except BrokenPipeError:
        raise
    except Exception as exc:
        return internal(exc)


class FastCall:
    """A parsed fast-verb line: what `_run_fast` needs, nothing run yet."""

    __slots__ = ("all_", "any_", "event", "fmt", "hook", "ids", "timeout")

    def __init__(self) -> None:
        self.fmt: str | None = None
        self.event = "UserPromptSubmit"
        self.all_ = False
        self.hook = False
        self.ids: list[str] = []
        self.timeout = 0.0
        self.any_ = False


def parse_fast(verb: str, args: list[str]) -> FastCall:
    """Parse a hook verb's arguments by hand (no click); UsageError on a bad line."""
    from hail import argv

    call = FastCall()
    if verb == "deliver":
        from hail.hooks.protocol import EVENTS, FORMATS

        p = argv.parse(verb, args, {"--format", "--event"}, set())
        argv.no_positionals(verb, p)
        call.fmt = argv.choice(p.values.get("--format"), FORMATS, "--format")
        call.event = argv.choice(p.values.get("--event"), EVENTS, "--event") or call.event
    elif verb == "brief":
        p = argv.parse(verb, args, set(), {"--all", "--hook"})
        argv.no_positionals(verb, p)
        call.all_, call.hook = "--all" in p.flags, "--hook" in p.flags
    elif verb == "sent":
        p = argv.parse(verb, args, set(), set())
        if len(p.positional) != 1:
            raise UsageError(f"sent takes one message id{argv.PARSER_TAIL}")
        call.ids = p.positional
    else:
        p = argv.parse(verb, args, {"--timeout"}, {"--any"})
        call.ids, call.any_ = p.positional, "--any" in p.flags
        call.timeout = _timeout(p.values.get("--timeout"))
    return call


def _run_fast(verb: str, args: list[str]) -> int:
    try:
        call = parse_fast(verb, args)
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

        if verb == "sent":
            return receive.sent(Ctx.from_env(), call.ids[0])
        return receive.await_(Ctx.from_env(), call.ids, call.timeout, any_=call.any_)
    except HailError as err:
        return fail(err)
    except BrokenPipeError:
        raise
    except Exception as exc:  # a fast verb must never show a traceback
        if verb == "deliver" or (verb == "brief" and "--hook" in args):
            return 0
        return internal(exc)


def _timeout(value: str | None) -> float:
    from hail import argv, policy

    if value is None:
        return policy.AWAIT_DEFAULT_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise UsageError(f"--timeout takes a number of seconds, not '{value}'{argv.PARSER_TAIL}")
    return seconds
