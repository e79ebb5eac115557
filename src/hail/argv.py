"""hail's command line: the one verb table, the early parse that names a line's verb, the value
rules, and the hand parser of the verbs agents run most.

Every command line is parsed from `TABLE`: its verbs, their arguments and options, each option's
value rule and the help map's lines. The lean verbs (the hooks, receipts, inbox, the send) are
parsed here by hand, so they run before click, libtmux or tomlkit is imported; `cli.py` builds the
click commands of the other verbs from the same table and the same value rules. Parsing: `--opt
value`, `--opt=value`, flags, positionals in any order, and `--` ending the options. Errors read
like click's, exit 1.
"""

from __future__ import annotations

from hail.errors import UsageError
from hail.harnesses import registry
from hail.reserved import PERSON

PARSER_TAIL = ". 'hail help' lists every command"

#: The verbs `hail --as person <verb>` runs as the person: sending, reading and waiting.
AS_PERSON_VERBS = ("send", "sent", "await", "inbox", "show", "brief", "whoami")

#: Value rules: what an option's value must be, and how the refusal names it.
TEXT, SECONDS, DAYS, LINES, OFFSET = "text", "seconds", "days", "lines", "offset"
_RULE_WORDS = {
    SECONDS: "a number of seconds",
    DAYS: "a whole number of days",
    LINES: "a number of lines",
    OFFSET: "a byte offset",
}


class Opt:
    """One option: `--name`, its value rule (None: a flag; a tuple: one of those words), the
    metavar the help shows, and whether its value may be left out (`--wait [S]`)."""

    __slots__ = ("metavar", "name", "optional", "rule")

    def __init__(
        self,
        name: str,
        rule: str | tuple[str, ...] | None = None,
        metavar: str = "",
        *,
        optional: bool = False,
    ) -> None:
        self.name = name
        self.rule = rule
        self.metavar = metavar
        self.optional = optional

    @property
    def key(self) -> str:
        """The name a verb's run reads it by: `--trust-codex` is `trust_codex`."""
        return self.name[2:].replace("-", "_")


class Arg:
    """One positional: its name, whether it must be given, and whether it takes the rest."""

    __slots__ = ("label", "many", "name", "required", "rule")

    def __init__(
        self,
        name: str,
        *,
        required: bool = True,
        many: bool = False,
        rule: str = TEXT,
        label: str = "",
    ) -> None:
        self.name = name
        self.required = required
        self.many = many
        self.rule = rule
        self.label = label or name


class Verb:
    """One verb: its arguments, options, help-map lines and group, and how it is parsed.

    `lean` verbs are parsed here without click. `literal` verbs take their text after the target
    as it is, even a word that starts with `-` (`hail type %3 -v`).
    """

    __slots__ = ("args", "group", "help", "lean", "literal", "name", "opts", "refused")

    def __init__(
        self,
        name: str,
        group: str,
        help_lines: tuple[tuple[str, str], ...],
        args: tuple[Arg, ...] = (),
        opts: tuple[Opt, ...] = (),
        *,
        lean: bool = False,
        literal: bool = False,
        refused: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.name = name
        self.group = group
        self.help = help_lines
        self.args = args
        self.opts = opts
        self.lean = lean
        self.literal = literal
        self.refused = dict(refused)

    def opt(self, name: str) -> Opt | None:
        return next((o for o in self.opts if o.name == name), None)


_SEND_USAGE = (
    "Usage: hail <seat> <kind> '<headline>', or hail <seat> <kind> <<'EOF' with the headline "
    "on the first line and the body after it"
)
KINDS_WORDS = "ask fyi announce hold release"
#: `deliver --format`: the harnesses whose hook output hail prints; `--event`: the events it reads
#: (mail on the first three; PreToolUse only answers a permission question: `hooks/allow.py`).
DELIVER_FORMATS = registry.NAMES
DELIVER_EVENTS = registry.DELIVERED_EVENTS
#: `listen --format`: the harnesses whose waiter hook hail runs (Claude Code's asyncRewake).
LISTEN_FORMATS = registry.LISTENING

#: Every verb, in the help map's order. None of these names can be a seat.
TABLE: tuple[Verb, ...] = (
    Verb(
        "send",
        "Send",
        (
            ("hail <seat> <kind> '<headline>'", f"kinds: {KINDS_WORDS}"),
            ("hail <seat> <kind> <<'EOF'", "headline on the first line, body after it"),
            (
                "hail <seat> ask --wait '<headline>'",
                "ask, then wait for the reply (hail help talk)",
            ),
        ),
        (
            Arg("target", label="the target seat"),
            Arg("kind", required=False),
            Arg("headline", required=False),
            Arg("body", required=False),
        ),
        (
            Opt("--re", TEXT, "<id>"),
            Opt("--scope", TEXT, "<s>"),
            Opt("--for", TEXT, "<span>"),
            Opt("--no-submit"),
            Opt("--no-wake"),
            Opt("--wait", SECONDS, "[S]", optional=True),
        ),
        lean=True,
        refused=(
            (
                "--kind",
                "--kind is not an option: the kind is the word after the seat "
                f"({KINDS_WORDS}). {_SEND_USAGE}",
            ),
            (
                "--body",
                "--body is not an option: the body goes on stdin after the headline line,"
                f" or in the argument after the headline. {_SEND_USAGE}",
            ),
            (
                # It typed into a dialog, whose own keys the envelope's bytes pressed.
                "--force",
                "--force is gone: typing into a permission dialog answers it. Wait until its user"
                " resolves it, then resend, or resend with --no-wake: the message waits in the"
                " inbox and the hooks deliver it after the dialog",
            ),
        ),
    ),
    Verb(
        "sent",
        "Send",
        (("sent <id>...", "receipt: delivered, injected, read or inline; replies"),),
        (Arg("ids", many=True),),
        lean=True,
    ),
    Verb(
        "await",
        "Send",
        (
            ("await <id>... [--timeout S] [--any]", "wait for receipts"),
            ("await --reply <id>... [--timeout S]", "wait for the replies to my asks, print them"),
        ),
        (Arg("ids", required=False, many=True),),
        (Opt("--timeout", SECONDS, "S"), Opt("--any"), Opt("--reply")),
        lean=True,
    ),
    Verb(
        "nudge",
        "Send",
        (("nudge <seat>", "wake a seat again for the mail that sits unread in it"),),
        (Arg("target"),),
    ),
    Verb(
        "inbox",
        "Receive",
        (("inbox [--peek] [--all]", "print (and claim) my unread messages"),),
        opts=(Opt("--peek"), Opt("--all")),
        lean=True,
    ),
    Verb(
        "show",
        "Receive",
        (("show <id> [--from N]", "print any message by id (its body from byte N)"),),
        (Arg("id"),),
        (Opt("--from", OFFSET, "N"),),
        lean=True,
    ),
    Verb(
        "brief",
        "Receive",
        (("brief [--all]", "my standing state: unread, late sends, holds"),),
        opts=(Opt("--all"), Opt("--hook"), Opt("--format", DELIVER_FORMATS, "<harness>")),
        lean=True,
    ),
    Verb(
        "deliver",
        "Receive",
        (("deliver --format <harness>", "the hook (run by the harness, not by you)"),),
        opts=(
            Opt("--format", DELIVER_FORMATS, "<harness>"),
            Opt("--event", DELIVER_EVENTS, "<event>"),
        ),
        lean=True,
    ),
    Verb(
        "listen",
        "Receive",
        (
            (
                f"listen --format {LISTEN_FORMATS[0]}",
                "Claude Code's waiter hook: wakes an idle session for a send",
            ),
        ),
        opts=(Opt("--format", LISTEN_FORMATS, LISTEN_FORMATS[0]),),
        lean=True,
    ),
    Verb(
        "whoami", "Seats", (("whoami", "this directory's seat"),), opts=(Opt("--json"),), lean=True
    ),
    Verb(
        "seats",
        "Seats",
        (
            ("seats [seat] [--json]", "seats, their agents, unread, hook age, context, task"),
            ("seats @<host>", "the seats of another machine (over ssh)"),
        ),
        (Arg("seat", required=False),),
        (Opt("--json"),),
    ),
    Verb(
        "watch",
        "Seats",
        (("watch [seat] [--once|--json]", "a live view of every seat, message, wait and hold"),),
        (Arg("seat", required=False),),
        (Opt("--once"), Opt("--json")),
    ),
    Verb(
        "read",
        "Panes",
        (("read <pane|seat> [N]", "the last N lines of a pane (default {READ})"),),
        (Arg("target"), Arg("lines", required=False, rule=LINES)),
    ),
    Verb(
        "type",
        "Panes",
        (("type <pane|seat> '<text>'", "type one line, no Enter (after read)"),),
        (Arg("target"), Arg("text")),
        literal=True,
    ),
    Verb(
        "keys",
        "Panes",
        (("keys <pane|seat> <key>...", "Enter, Escape, C-c, Up … (after read)"),),
        (Arg("target"), Arg("keys", many=True)),
        literal=True,
    ),
    Verb(
        "setup",
        "Tool",
        (
            (
                "setup [--check] [--yes] [--trust-codex]",
                "install hail's hooks into each agent's config",
            ),
        ),
        opts=(Opt("--check"), Opt("--yes"), Opt("--trust-codex"), Opt("--program", TEXT, "PATH")),
    ),
    Verb(
        "doctor",
        "Tool",
        (
            ("doctor", "check the install and the mail nobody reads"),
            ("doctor <host>", "check the route to another machine: ssh, its hail, versions"),
        ),
        (Arg("host", required=False),),
    ),
    Verb(
        "remote-peer",
        "Tool",
        (("remote-peer", "another machine's hail, over ssh (run by hail, not by you)"),),
        lean=True,
    ),
    Verb(
        "gc",
        "Tool",
        (("gc [--days N]", "archive old read mail"),),
        opts=(Opt("--days", DAYS, "N"),),
    ),
    Verb("demo", "Tool", (("demo", "a real end-to-end run on a scratch tmux server"),)),
    Verb(
        "version",
        "Tool",
        (("version [--json]", "hail's version"),),
        opts=(Opt("--json"),),
        lean=True,
    ),
    Verb(
        "help",
        "Tool",
        (("help [topic]", "topics: {TOPICS}"),),
        (Arg("topic", required=False),),
        lean=True,
    ),
)

VERB: dict[str, Verb] = {v.name: v for v in TABLE}

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

_HELP_FLAGS = ("-h", "--help")


def speaker(args: list[str]) -> tuple[list[str], bool]:
    """The line without a leading `--as person`, and whether it was given [docs/seats.md "The
    person"]. Only `person` may follow `--as`, and only first on the line."""
    options = args[: args.index("--")] if "--" in args else args
    given = [i for i, a in enumerate(options) if a == "--as" or a.startswith("--as=")]
    if not given:
        return args, False
    if given != [0]:
        raise UsageError(f"--as goes first: hail --as {PERSON} <verb> …{PARSER_TAIL}")
    if args[0].startswith("--as="):
        who, rest = args[0][len("--as=") :], args[1:]
    else:
        who, rest = (args[1] if len(args) > 1 else ""), args[2:]
    if who != PERSON:
        raise UsageError(
            f"--as takes '{PERSON}', not '{who}': a seat is its directory, and only the person "
            f"may be spoken for{PARSER_TAIL}"
        )
    return rest, True


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
    if first in VERB:
        return first, args[1:]
    send = VERB["send"]
    name = first.split("=", 1)[0]
    if send.opt(name) is not None or name in send.refused:
        return "send", args
    if first.startswith("-"):
        raise UsageError(f"no such option: {first}{PARSER_TAIL}")
    return "send", args


# --- value rules ---------------------------------------------------------------------------------


def value(rule: str | tuple[str, ...], text: str, name: str) -> object:
    """`text` under `rule` for the option or argument `name`; UsageError naming what it takes."""
    if isinstance(rule, tuple):
        if text not in rule:
            raise UsageError(
                f"invalid value for {name}: '{text}' is not one of {', '.join(rule)}{PARSER_TAIL}"
            )
        return text
    if rule == TEXT:
        return text
    if rule == SECONDS:
        number: float | None = _seconds(text)
    elif rule == OFFSET:
        number = int(text) if text.isascii() and text.isdigit() else None  # 0 included
    else:
        number = _whole(text)
    if number is None:
        raise UsageError(f"{name} takes {_RULE_WORDS[rule]}, not '{text}'{PARSER_TAIL}")
    return number


def _seconds(text: str) -> float | None:
    """A finite number of seconds ≥ 0, written as digits with at most one point (`.5`, `2`)."""
    whole, _, part = text.partition(".")
    digits = whole + part
    if not digits or not (digits.isascii() and digits.isdigit()):
        return None
    return float(text)


def _whole(text: str) -> int | None:
    if not (text.isascii() and text.isdigit()) or int(text) == 0:
        return None
    return int(text)


# --- the hand parser -------------------------------------------------------------------------------


class Call:
    """A parsed command line: the verb, and each option and argument by its key."""

    __slots__ = ("values", "verb")

    def __init__(self, verb: str, values: dict[str, object]) -> None:
        self.verb = verb
        self.values = values

    def flag(self, key: str) -> bool:
        return bool(self.values.get(key))

    def text(self, key: str) -> str | None:
        got = self.values.get(key)
        return got if isinstance(got, str) else None

    def texts(self, key: str) -> list[str]:
        got = self.values.get(key)
        return [str(x) for x in got] if isinstance(got, list) else []

    def number(self, key: str) -> float | None:
        got = self.values.get(key)
        return float(got) if isinstance(got, (int, float)) and not isinstance(got, bool) else None

    def given(self, key: str) -> bool:
        return key in self.values


def parse(verb: Verb, args: list[str]) -> Call:
    """`args` under `verb`'s table entry: options, flags and positionals, every value checked."""
    values: dict[str, object] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            positional.extend(args[i:])
            break
        if verb.literal and positional:  # the text after the target is taken as it is
            positional.extend(args[i - 1 :])
            break
        if arg.startswith("--") and len(arg) > 2:
            i = _option(verb, arg, args, i, values)
        elif arg.startswith("-") and len(arg) > 1 and _seconds(arg[1:]) is None:
            raise UsageError(f"no such option: {arg}{PARSER_TAIL}")
        else:
            positional.append(arg)
    _positionals(verb, positional, values)
    return Call(verb.name, values)


def _option(verb: Verb, arg: str, args: list[str], i: int, values: dict[str, object]) -> int:
    """One option at `args[i - 1]` into `values`; the index of the next word to parse."""
    name, eq, given = arg.partition("=")
    if name in verb.refused:
        raise UsageError(verb.refused[name])
    opt = verb.opt(name)
    if opt is None:
        raise UsageError(f"no such option: {name}{PARSER_TAIL}")
    if opt.rule is None:
        if eq:
            raise UsageError(f"option {name} does not take a value{PARSER_TAIL}")
        values[opt.key] = True
        return i
    if opt.optional:
        # `--wait [S]`: a following number is its value; any other word is left to the parse.
        values[opt.key] = True
        if not eq and i < len(args) and _seconds(args[i]) is not None:
            given, eq, i = args[i], "=", i + 1
        if eq:
            values[opt.key + "_value"] = value(opt.rule, given, name)
        return i
    if not eq:
        if i >= len(args):
            raise UsageError(f"option {name} requires a value{PARSER_TAIL}")
        given, i = args[i], i + 1
    values[opt.key] = value(opt.rule, given, name)
    return i


def _positionals(verb: Verb, positional: list[str], values: dict[str, object]) -> None:
    words = list(positional)
    for spec in verb.args:
        if spec.many:
            if spec.required and not words:
                raise UsageError(_missing(verb, spec))
            values[spec.name] = [value(spec.rule, w, verb.name) for w in words]
            words = []
            break
        if not words:
            if spec.required:
                raise UsageError(_missing(verb, spec))
            continue
        values[spec.name] = _positional_value(verb, spec, words.pop(0))
    if words:
        after = f" after the {verb.args[-1].name}" if verb.args else f" for {verb.name}"
        raise UsageError(f"unexpected argument '{words[0]}'{after}{PARSER_TAIL}")


def _positional_value(verb: Verb, spec: Arg, word: str) -> object:
    if spec.rule == TEXT:
        return word
    return value(spec.rule, word, verb.name)


def _missing(verb: Verb, spec: Arg) -> str:
    if spec.many:
        return f"{verb.name} takes one or more {_plural(spec.name)}{PARSER_TAIL}"
    return f"missing argument: {spec.label}{PARSER_TAIL}"


def _plural(name: str) -> str:
    return {"ids": "message ids", "keys": "keys"}.get(name, name)
