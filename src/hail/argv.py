"""A small hand-written command-line parser for the verbs that must not import click [SPEC §6.8]:
the hook verbs and the send, which agents run constantly. `--opt value`, `--opt=value`, flags,
positionals in any order, and `--` ending the options. Errors read like click's, exit 1.
"""

from __future__ import annotations

from hail.errors import UsageError

PARSER_TAIL = ". 'hail help' lists every command"


class Parsed:
    """Options by name (`--re`), flags given, and positionals in order."""

    __slots__ = ("flags", "positional", "values")

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.flags: set[str] = set()
        self.positional: list[str] = []


def parse(verb: str, args: list[str], valued: set[str], flags: set[str]) -> Parsed:
    out = Parsed()
    it = iter(args)
    for arg in it:
        if arg == "--":
            out.positional.extend(it)
            break
        if arg.startswith("--") and len(arg) > 2:
            name, eq, value = arg.partition("=")
            if name in valued:
                if not eq:
                    try:
                        value = next(it)
                    except StopIteration:
                        raise UsageError(f"option {name} requires a value{PARSER_TAIL}") from None
                out.values[name] = value
            elif name in flags and not eq:
                out.flags.add(name)
            elif name in flags:
                raise UsageError(f"option {name} does not take a value{PARSER_TAIL}")
            else:
                raise UsageError(f"no such option: {name}{PARSER_TAIL}")
        elif arg.startswith("-") and len(arg) > 1 and not _is_number(arg):
            raise UsageError(f"no such option: {arg}{PARSER_TAIL}")
        else:
            out.positional.append(arg)
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def choice(value: str | None, choices: tuple[str, ...], option: str) -> str | None:
    if value is not None and value not in choices:
        raise UsageError(
            f"invalid value for {option}: '{value}' is not one of {', '.join(choices)}{PARSER_TAIL}"
        )
    return value


def no_positionals(verb: str, parsed: Parsed) -> None:
    if parsed.positional:
        raise UsageError(f"unexpected argument '{parsed.positional[0]}' for {verb}{PARSER_TAIL}")
