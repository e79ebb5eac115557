"""The click layer: the verbs that are not on the hot path, their options, help and version.

`entry.py` names the verb (`argv.early`) and reports errors; this module parses a verb's arguments
with click and returns its run. click's usage errors become `UsageError` (exit 1: 2 means "control
headline over the cap") with one line and no usage block.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from hail import __version__
from hail import help as pages
from hail.argv import PARSER_TAIL
from hail.errors import UsageError

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
@click.option("--program", metavar="PATH", default=None)
def setup_cmd(check: bool, yes: bool, trust_codex: bool, program: str | None) -> int:
    import os

    from hail.commands.setup import run_setup

    return run_setup(os.environ, check, yes, trust_codex, sys.stdout, sys.stdin, program)


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


@click.command("watch", context_settings=SETTINGS)
@click.argument("seat", required=False)
@click.option("--once", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
def watch_cmd(seat: str | None, once: bool, as_json: bool) -> int:
    from hail.context import Ctx

    if once or as_json:
        from hail.commands import watch

        return watch.once(Ctx.from_env(), seat, as_json=as_json)
    from hail import watch_app  # the full-screen view: the only module that imports textual

    return watch_app.run(Ctx.from_env(), seat)


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
    "watch": watch_cmd,
}


# --- parse and run ------------------------------------------------------------------------------


def parse(verb: str, args: list[str]) -> Callable[[], int]:
    """The run of a click verb with its arguments parsed; UsageError on a bad line."""
    cmd = COMMANDS[verb]
    try:
        ctx = cmd.make_context(verb, args)
    except click.UsageError as err:
        raise UsageError(f"{_click_message(err)}{PARSER_TAIL}") from None
    runner: Callable[..., int] | None = ctx.command.callback
    assert runner is not None

    def run() -> int:
        try:
            with ctx:
                return ctx.invoke(runner, **ctx.params)
        except click.ClickException as err:
            raise UsageError(f"{_click_message(err)}{PARSER_TAIL}") from None

    return run


def _click_message(err: click.ClickException) -> str:
    """click's message as one plain clause (its "Did you mean" suggestions are left out)."""
    if isinstance(err, click.NoSuchOption):
        return f"no such option: {err.option_name}"
    text = err.format_message().rstrip(".")
    return text[:1].lower() + text[1:] if text else "bad arguments"
