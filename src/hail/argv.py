"""hail's command line without click: the one verb table, the early parse, and the small option
parser of the hand-parsed verbs.

The verbs agents run constantly (the hooks and the send) are parsed here by hand, so they run before
click, libtmux or tomlkit is imported. Parsing: `--opt value`, `--opt=value`, flags, positionals in
any order, and `--` ending the options. Errors read like click's, exit 1.
"""

from __future__ import annotations

from hail.errors import UsageError

PARSER_TAIL = ". 'hail help' lists every command"

#: Parsed here by hand and run without click: the hook verbs (`listen` is Claude Code's waiter), the
#: receipt verbs and the send.
HAND_PARSED = ("send", "deliver", "brief", "sent", "await", "listen")
#: Parsed by click in `cli.py`.
CLICK_PARSED = (
    *("whoami", "seats", "inbox", "show", "read", "type", "keys"),
    *("setup", "doctor", "gc", "demo", "version", "help"),
)
#: Every verb: none of these can name a seat.
VERBS = HAND_PARSED + CLICK_PARSED

#: Spellings of older hails, each refused with what to run instead.
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

#: The send's options (valued, then flags), and the two older ones it refuses by name.
SEND_VALUED = ("--re", "--scope", "--for")
SEND_FLAGS = ("--no-submit", "--force", "--no-wake")
SEND_REFUSED = ("--kind", "--body")
#: `ask --wait [S]`: its value is optional, so it is taken out before the send's parse.
SEND_WAIT = "--wait"

_HELP_FLAGS = ("-h", "--help")


def early(args: list[str]) -> tuple[str, list[str]]:
    """The verb a command line runs and that verb's own arguments; UsageError for no verb.

    `hail <target> …` (options may come first) is a send; `-h`/`--help` anywhere before `--` asks
    for the help page of the first word.
    """
    if not args or args[0] in _HELP_FLAGS:
        return "help", []
    if args[0] in ("-V", "--version"):
        return "version", []
    first = args[0]
    options = args[: args.index("--")] if "--" in args else args
    if set(_HELP_FLAGS) & set(options[1:]):
        return "help", [
            "--",
            first,
        ]  # the first word is the topic, even one that looks like an option
    if first in REMOVED:
        raise UsageError(REMOVED[first].format(w=first))
    if first in VERBS:
        return first, args[1:]
    if first.split("=", 1)[0] in (*SEND_VALUED, *SEND_FLAGS, *SEND_REFUSED, SEND_WAIT):
        return "send", args
    if first.startswith("-"):
        raise UsageError(f"no such option: {first}{PARSER_TAIL}")
    return "send", args


class Parsed:
    """Options by name (`--re`), flags given, and positionals in order."""

    __slots__ = ("flags", "positional", "values")

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.flags: set[str] = set()
        self.positional: list[str] = []


def parse(args: list[str], valued: tuple[str, ...], flags: tuple[str, ...]) -> Parsed:
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
