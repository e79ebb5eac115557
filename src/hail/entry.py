"""The console-script entry point.

Hook verbs (`deliver`, `brief`, `sent`, `await`) run on every prompt and tool call, so they are parsed
here by hand and dispatched before click, libtmux or tomlkit is imported [SPEC §6.8]. Everything else
goes to the click surface in `cli.py`.
"""

from __future__ import annotations

import os
import sys

from hail.errors import HailError, UsageError

FAST_VERBS = ("deliver", "brief", "sent", "await")
PARSER_TAIL = ". 'hail help' lists every command"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        if args and args[0] in FAST_VERBS and not {"-h", "--help"} & set(args):
            code = _run_fast(args[0], args[1:])
        else:
            from hail.cli import run

            code = run(args)
    except BrokenPipeError:
        _silence_stdout()
        code = 0
    except KeyboardInterrupt:
        code = 130
    if sys.stdout is not None:  # None when fd 1 was closed at startup (`hail deliver >&-`)
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
    return code


def _silence_stdout() -> None:
    """A closed pipe ends output quietly: later writes (and the flush at exit) go nowhere."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except OSError:
        pass


def fail(err: HailError) -> int:
    sys.stderr.write(f"error: {err.message}\n")
    return err.exit_code


class _Args:
    """A tiny parser for the fast verbs: `--opt value`, `--opt=value`, flags, positionals, `--`."""

    def __init__(self, verb: str, args: list[str], valued: set[str], flags: set[str]) -> None:
        self.values: dict[str, str] = {}
        self.flags: set[str] = set()
        self.positional: list[str] = []
        it = iter(args)
        for arg in it:
            if arg == "--":
                self.positional.extend(it)
                break
            if arg.startswith("--") and len(arg) > 2:
                name, eq, value = arg.partition("=")
                if name in valued:
                    if not eq:
                        try:
                            value = next(it)
                        except StopIteration:
                            raise UsageError(
                                f"option {name} requires a value{PARSER_TAIL}"
                            ) from None
                    self.values[name] = value
                elif name in flags and not eq:
                    self.flags.add(name)
                else:
                    raise UsageError(f"no such option for {verb}: {name}{PARSER_TAIL}")
            elif arg.startswith("-") and len(arg) > 1 and not _is_number(arg):
                raise UsageError(f"no such option for {verb}: {arg}{PARSER_TAIL}")
            else:
                self.positional.append(arg)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _choice(value: str | None, choices: tuple[str, ...], option: str) -> str | None:
    if value is not None and value not in choices:
        raise UsageError(
            f"invalid value for {option}: '{value}' is not one of {', '.join(choices)}{PARSER_TAIL}"
        )
    return value


def _no_positionals(verb: str, parsed: _Args) -> None:
    if parsed.positional:
        raise UsageError(f"unexpected argument '{parsed.positional[0]}' for {verb}{PARSER_TAIL}")


def _run_fast(verb: str, args: list[str]) -> int:
    try:
        if verb == "deliver":
            from hail.hooks import protocol

            p = _Args(verb, args, {"--format", "--event"}, set())
            _no_positionals(verb, p)
            fmt = _choice(p.values.get("--format"), protocol.FORMATS, "--format")
            event = _choice(p.values.get("--event"), protocol.EVENTS, "--event")
            from hail.hooks.deliver import deliver

            return deliver(fmt, event or "UserPromptSubmit")
        if verb == "brief":
            p = _Args(verb, args, set(), {"--all", "--hook"})
            _no_positionals(verb, p)
            from hail.hooks import brief

            if "--hook" in p.flags:
                return brief.brief_hook(all_="--all" in p.flags)
            from hail.context import Ctx

            return brief.brief(Ctx.from_env(), all_="--all" in p.flags)
        from hail.commands import receive
        from hail.context import Ctx

        if verb == "sent":
            p = _Args(verb, args, set(), set())
            if len(p.positional) != 1:
                raise UsageError(f"sent takes one message id{PARSER_TAIL}")
            return receive.sent(Ctx.from_env(), p.positional[0])
        p = _Args(verb, args, {"--timeout"}, {"--any"})
        timeout = _timeout(p.values.get("--timeout"))
        return receive.await_(Ctx.from_env(), p.positional, timeout, any_="--any" in p.flags)
    except HailError as err:
        return fail(err)
    except Exception as exc:  # a fast verb must never show a traceback
        if verb == "deliver" or (verb == "brief" and "--hook" in args):
            return 0
        return fail(HailError(f"internal error: {exc}; please report it"))


def _timeout(value: str | None) -> float:
    from hail import policy

    if value is None:
        return policy.AWAIT_DEFAULT_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise UsageError(f"--timeout takes a number of seconds, not '{value}'{PARSER_TAIL}")
    return seconds
