"""The click surface: verbs, options, help and version [SPEC §5.0].

`run(args)` is the one place that turns errors into `error: …` and an exit code. click's own usage
errors become exit 1 (2 means "control headline over the cap") with one line and no usage block.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from hail import __version__
from hail import help as pages
from hail.argv import PARSER_TAIL
from hail.entry import fail
from hail.errors import HailError, UsageError

REMOVED = {
    "message": "'{w}' is gone: a send is hail <seat> <kind> [headline] with the body on stdin (hail help send)",
    "note": "'note' is gone: hail talks to no issue tracker; post there directly, or send an fyi",
    "migrate": "'migrate' is gone: import 0.3 state with hail 0.5.x first (nix run github:flowerornament/hail/v0.5.5 -- migrate); this hail ignores it",
    "list": "'{w}' is gone: hail seats [seat] lists seats and their agent panes",
    "id": "'id' is gone: echo $TMUX_PANE prints this pane",
    "name": "'{w}' is gone: a seat is named by its directory; hail whoami shows it",
}
REMOVED["msg"] = REMOVED["message"]
REMOVED["who"] = REMOVED["resolve"] = REMOVED["list"]
REMOVED["hello"] = REMOVED["name"]

SETTINGS = {"help_option_names": [], "max_content_width": 100}


# --- verbs -------------------------------------------------------------------------------------


@click.command("whoami", context_settings=SETTINGS)
def whoami_cmd() -> int:
    from hail.commands import panes
    from hail.context import Ctx

    return panes.whoami(Ctx.from_env())


@click.command("seats", context_settings=SETTINGS)
@click.argument("seat", required=False)
def seats_cmd(seat: str | None) -> int:
    from hail.commands import panes
    from hail.context import Ctx

    return panes.seats(Ctx.from_env(), seat)


@click.command("inbox", context_settings=SETTINGS)
@click.option("--peek", is_flag=True)
@click.option("--all", "all_", is_flag=True)
def inbox_cmd(peek: bool, all_: bool) -> int:
    from hail.commands import receive
    from hail.context import Ctx

    return receive.inbox(Ctx.from_env(), peek=peek, all_=all_)


@click.command("show", context_settings=SETTINGS)
@click.argument("msg_id", metavar="<id>")
def show_cmd(msg_id: str) -> int:
    from hail.commands import receive
    from hail.context import Ctx

    return receive.show(Ctx.from_env(), msg_id)


@click.command("read", context_settings=SETTINGS)
@click.argument("target")
@click.argument("lines", required=False)
def read_cmd(target: str, lines: str | None) -> int:
    from hail import policy
    from hail.commands import panes
    from hail.context import Ctx

    n = policy.READ_DEFAULT_LINES
    if lines is not None:
        if not lines.isdigit() or int(lines) < 1:
            raise UsageError(f"read takes a number of lines, not '{lines}'{PARSER_TAIL}")
        n = int(lines)
    return panes.read(Ctx.from_env(), target, n)


@click.command("type", context_settings={**SETTINGS, "ignore_unknown_options": True})
@click.argument("target")
@click.argument("text")
def type_cmd(target: str, text: str) -> int:
    from hail.commands import panes
    from hail.context import Ctx

    return panes.type_(Ctx.from_env(), target, text)


@click.command(
    "keys",
    context_settings={**SETTINGS, "ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("target")
@click.argument("keys", nargs=-1, required=True)
def keys_cmd(target: str, keys: tuple[str, ...]) -> int:
    from hail.commands import panes
    from hail.context import Ctx

    return panes.keys(Ctx.from_env(), target, list(keys))


@click.command("setup", context_settings=SETTINGS)
@click.option("--check", is_flag=True)
@click.option("--yes", is_flag=True)
@click.option("--trust-codex", is_flag=True)
def setup_cmd(check: bool, yes: bool, trust_codex: bool) -> int:
    import os

    from hail.commands.setup import run_setup

    return run_setup(os.environ, check, yes, trust_codex, sys.stdout, sys.stderr, sys.stdin)


@click.command("doctor", context_settings=SETTINGS)
def doctor_cmd() -> int:
    from hail.commands import doctor
    from hail.context import Ctx

    return doctor.doctor(Ctx.from_env())


@click.command("gc", context_settings=SETTINGS)
@click.option("--days", default=None)
def gc_cmd(days: str | None) -> int:
    from hail import policy
    from hail.commands import gc
    from hail.context import Ctx

    n = policy.GC_DEFAULT_DAYS if days is None else gc.parse_days(days)
    return gc.gc(Ctx.from_env(), n)


@click.command("demo", context_settings=SETTINGS)
def demo_cmd() -> int:
    import os

    from hail.commands.demo import demo

    return demo(os.environ)


@click.command("version", context_settings=SETTINGS)
@click.option("--json", "as_json", is_flag=True)
def version_cmd(as_json: bool) -> int:
    if as_json:
        click.echo(f'{{"name":"hail","version":"{__version__}"}}')
    else:
        click.echo(f"hail {__version__}")
    return 0


@click.command("help", context_settings=SETTINGS)
@click.argument("topic", required=False)
def help_cmd(topic: str | None) -> int:
    text = pages.page(topic)
    if text is None:
        raise UsageError(f"no help for '{topic}'. Topics: {' '.join(pages.TOPICS)}")
    click.echo(text, nl=False)
    return 0


COMMANDS: dict[str, click.Command] = {
    "whoami": whoami_cmd,
    "seats": seats_cmd,
    "inbox": inbox_cmd,
    "show": show_cmd,
    "read": read_cmd,
    "type": type_cmd,
    "keys": keys_cmd,
    "setup": setup_cmd,
    "doctor": doctor_cmd,
    "gc": gc_cmd,
    "demo": demo_cmd,
    "version": version_cmd,
    "help": help_cmd,
}


# --- dispatch ----------------------------------------------------------------------------------


def check(args: list[str]) -> None:
    """Parse a command line without running it (the help and skill examples are checked so)."""
    from hail.entry import FAST_VERBS, send_line

    if args[0] in FAST_VERBS:
        from hail.entry import parse_fast

        parse_fast(args[0], args[1:])
        return
    rest = send_line(args)
    if rest is not None:
        from hail.commands import send

        send.validate(send.parse_send(rest))
        return
    _context(args)


def _context(args: list[str]) -> click.Context:
    first = args[0]
    if first not in COMMANDS:
        raise UsageError(f"no such option: {first}{PARSER_TAIL}")
    cmd = COMMANDS[first]
    try:
        return cmd.make_context(cmd.name or "hail", args[1:])
    except click.UsageError as err:
        raise UsageError(f"{_click_message(err)}{PARSER_TAIL}") from None


def _click_message(err: click.ClickException) -> str:
    """click's message as one plain clause (its "Did you mean" suggestions are left out)."""
    if isinstance(err, click.NoSuchOption):
        return f"no such option: {err.option_name}"
    text = err.format_message().rstrip(".")
    return text[:1].lower() + text[1:] if text else "bad arguments"


def _help_page(args: list[str]) -> int:
    first = args[0]
    text = pages.page(first)
    if text is None:
        raise UsageError(f"no help for '{first}'. Topics: {' '.join(pages.TOPICS)}")
    click.echo(text, nl=False)
    return 0


def _dispatch(args: list[str]) -> int:
    if not args or args[0] in ("-h", "--help"):
        click.echo(pages.MAP, nl=False)
        return 0
    if args[0] in ("-V", "--version"):
        click.echo(f"hail {__version__}")
        return 0
    before_dashdash = args[: args.index("--")] if "--" in args else args
    if {"-h", "--help"} & set(before_dashdash[1:]):
        return _help_page(args)
    if args[0] in REMOVED:
        raise UsageError(REMOVED[args[0]].format(w=args[0]))
    from hail.entry import FAST_VERBS, send_line

    if args[0] in FAST_VERBS or send_line(args) is not None:
        from hail.entry import dispatch

        return dispatch(args)
    ctx = _context(args)
    runner: Callable[..., int] | None = ctx.command.callback
    assert runner is not None
    with ctx:
        return ctx.invoke(runner, **ctx.params)


def run(args: list[str]) -> int:
    try:
        return _dispatch(args)
    except HailError as err:
        return fail(err)
    except click.ClickException as err:
        return fail(UsageError(f"{_click_message(err)}{PARSER_TAIL}"))
    except BrokenPipeError:
        raise
    except Exception as exc:
        return fail(HailError(f"internal error: {exc}; please report it"))
