"""The click layer: the verbs off the hot path, parsed by click from the one verb table.

`argv.TABLE` names each verb's arguments and options and the rule for each value; this module
turns an entry into a click command whose values go through the same rules (`argv.value`), so a
value means the same to every verb. click's own usage errors become `UsageError` (exit 1: 2 means
"control headline over the cap") with one line and no usage block.
"""

from __future__ import annotations

import click

from hail import argv
from hail.errors import UsageError

SETTINGS = {"help_option_names": [], "max_content_width": 100}

TYPE_CHECKING = False
if TYPE_CHECKING:
    _ParamType = click.ParamType[object]
else:  # click before 8.2 has no type parameter
    _ParamType = click.ParamType


class _Rule(_ParamType):
    """A value rule of the table; a refusal is hail's own `UsageError`, worded as the hand
    parser words it."""

    def __init__(self, rule: str | tuple[str, ...], name: str) -> None:
        self.rule = rule
        self.name = name

    def convert(
        self, value: object, _param: click.Parameter | None, _ctx: click.Context | None
    ) -> object:
        return argv.value(self.rule, str(value), self.name)


def command(verb: argv.Verb) -> click.Command:
    """The click command of a table entry; its callback is never run (values are read from the
    parsed context)."""
    params: list[click.Parameter] = [
        click.Argument(
            [arg.name],
            required=arg.required,
            nargs=-1 if arg.many else 1,
            type=_Rule(arg.rule, verb.name),
        )
        for arg in verb.args
    ]
    for opt in verb.opts:
        if opt.rule is None:
            params.append(click.Option([opt.name, opt.key], is_flag=True))
        else:
            params.append(click.Option([opt.name, opt.key], type=_Rule(opt.rule, opt.name)))
    settings: dict[str, object] = dict(SETTINGS)
    if verb.literal:
        settings.update(ignore_unknown_options=True, allow_interspersed_args=False)
    return click.Command(verb.name, params=params, context_settings=settings)


def parse(verb: str, args: list[str]) -> argv.Call:
    """The parsed line of a verb that click parses; UsageError on a bad line."""
    try:
        ctx = command(argv.VERB[verb]).make_context(verb, args)
    except click.ClickException as err:
        raise UsageError(f"{_click_message(err)}{argv.PARSER_TAIL}") from None
    values: dict[str, object] = {}
    for key, got in ctx.params.items():
        if got is None or got is False or got == ():
            continue
        values[key] = list(got) if isinstance(got, tuple) else got
    return argv.Call(verb, values)


def _click_message(err: click.ClickException) -> str:
    """click's message as one plain clause (its "Did you mean" suggestions are left out)."""
    if isinstance(err, click.NoSuchOption):
        return f"no such option: {err.option_name}"
    text = err.format_message().rstrip(".")
    return text[:1].lower() + text[1:] if text else "bad arguments"
