"""A message as its sender wrote it: the kind, the headline and body, and the values of --re,
--scope and --for, each validated, built once (`letter`) and carried whole to wherever it is filed:
this machine's mailboxes, or another machine's hail over ssh, which builds it again from the wire
with the same rules, since nothing another machine sends is trusted further [docs/commands.md
"Headline and body"]. Pure.
"""

from __future__ import annotations

from hail import envelope, ids, policy
from hail.errors import OverCapError, UsageError
from hail.output import note

_SPAN_UNIT = {"m": 60, "h": 3600, "d": 86400}

OLD_KIND_HINTS = {
    "ruling": ". A verdict leads the headline of a reply: hail {t} fyi --re <id> 'GO: land it', or an ask when you need an answer",
    "done": ". Report the outcome: hail {t} fyi --re <id> '<what was done>'",
    "stop": ". To stop someone now, send an announce ('STOP: …'); for a standing pause, a hold",
    "block": f". Send a hold (--for up to {policy.HOLD_MAX_DAYS}d)",
}
OLD_KIND_HINTS["go"] = OLD_KIND_HINTS["nogo"] = OLD_KIND_HINTS["ruling"]


class Draft:
    """A composed message: the sanitized (possibly folded) headline and the body, if any."""

    __slots__ = ("body", "headline")

    def __init__(self, headline: str, body: str | None) -> None:
        self.headline = headline
        self.body = body


class Letter:
    """What a send files: the kind, the composed draft, and the values of --re, --scope and --for
    (in seconds, and as written for another machine), all validated."""

    __slots__ = ("draft", "kind", "re", "scope", "span", "span_text")

    def __init__(
        self,
        kind: str,
        draft: Draft,
        re: str = "",
        scope: str = "",
        span: int | None = None,
        span_text: str = "",
    ) -> None:
        self.kind = kind
        self.draft = draft
        self.re = re
        self.scope = scope
        self.span = span
        self.span_text = span_text

    def __repr__(self) -> str:
        return f"Letter({self.kind!r}, {self.draft.headline!r})"


class Written:
    """A letter as written on a command line (or in a request from another machine): each value as
    given, not yet checked."""

    __slots__ = ("body", "headline", "kind", "re", "scope", "span", "target")

    def __init__(
        self,
        target: str,
        kind: str | None,
        headline: str | None,
        *,
        re: str | None = None,
        scope: str | None = None,
        span: str | None = None,
        body: str | None = None,
    ) -> None:
        self.target = target
        self.kind = kind
        self.headline = headline
        self.re = re
        self.scope = scope
        self.span = span
        self.body = body


def check(written: Written) -> tuple[str, str, int | None]:
    """The kind, the clean scope and the hold span in seconds; raises on any bad argument, before
    a body is read."""
    kind = validate_kind(written.target, written.kind)
    validate_re(written.re)
    if kind == "release" and not written.re:
        raise UsageError("release needs --re <hold id>; hail brief lists holds in effect")
    span: int | None = None
    if written.span is not None:
        if kind != "hold":
            raise UsageError(f"--for applies to hold, not {kind}")
        span = parse_span(written.span)
    return kind, validate_scope(written.scope), span


def letter(written: Written, stdin_text: str | None, cap: int) -> Letter:
    """The letter, built once: checked, its headline and body split from the arguments and stdin,
    composed to the headline cap."""
    kind, scope, span = check(written)
    raw_headline, body = split_input(written.headline, stdin_text)
    body = with_body_argument(written.body, body)
    draft = compose(kind, raw_headline, body, cap)
    return Letter(kind, draft, written.re or "", scope, span, written.span or "")


def validate_kind(target: str, kind: str | None) -> str:
    kinds = " ".join(policy.KINDS)
    if kind is None:
        raise UsageError(
            f"kind is missing: hail {target} <kind> '<headline>' ({kinds}). "
            "If you meant a command, 'hail help' lists them"
        )
    if kind not in policy.KINDS:
        hint = OLD_KIND_HINTS.get(kind, "").format(t=target)
        raise UsageError(
            f"'{kind}' is not a kind ({kinds}). Usage: hail {target} <kind> '<headline>'; "
            f"if '{target}' is a command, 'hail help' lists them{hint}"
        )
    return kind


def parse_span(span: str) -> int:
    number, unit = span[:-1], span[-1:]
    if unit not in _SPAN_UNIT or not (number.isascii() and number.isdigit()) or int(number) == 0:
        raise UsageError(f"--for {span}: a span such as 30m, 8h or 3d")
    seconds = int(number) * _SPAN_UNIT[unit]
    if seconds > policy.HOLD_MAX_SECONDS:
        raise UsageError(
            f"--for {span}: at most {policy.HOLD_MAX_DAYS}d; a hold is a person's decision, not a "
            "standing lock"
        )
    return seconds


def validate_scope(scope: str | None) -> str:
    if scope is None:
        return ""
    if "\n" in scope or "\r" in scope:
        raise UsageError("--scope must be one line")
    clean = envelope.sanitize(scope)
    if len(clean) > policy.SCOPE_MAX:
        raise UsageError(f"--scope is {len(clean)} characters; at most {policy.SCOPE_MAX}")
    return clean


def validate_re(value: str | None) -> str:
    """`--re` as given when it is a message id, "" when absent; exit 1 otherwise.

    It is written into the message, the hold record and the typed envelope: nothing else may pass.
    """
    if value is None:
        return ""
    if not ids.is_message_id(value):
        raise UsageError(
            "--re must be a message id, such as 1130T171200-a3f1: "
            "the id= line of the message you answer (hail inbox shows each id)"
        )
    return value


def split_input(headline_arg: str | None, stdin_text: str | None) -> tuple[str, str | None]:
    """The raw headline and body from the argument and stdin [docs/commands.md
    "Headline and body"]."""
    if headline_arg is not None:
        body = stdin_text.strip("\n") if stdin_text is not None else None
        if body is not None and not body.strip():
            body = None
        return headline_arg, body
    if stdin_text is None:
        raise UsageError(
            "no headline: pass it as an argument, or the headline then the body on stdin (heredoc)"
        )
    first, _, rest = stdin_text.partition("\n")
    if rest.startswith("\n"):
        rest = rest[1:]
    rest = rest.rstrip("\n")
    return first, rest or None


def with_body_argument(argument: str | None, stdin_body: str | None) -> str | None:
    """The body given as the argument after the headline, if any, else stdin's.

    Codex lets hail out of its sandbox only for a command of its own, which a heredoc is not; there
    a body can only be a (quoted, possibly multi-line) argument.
    """
    if argument is None:
        return stdin_body
    if stdin_body is not None:
        raise UsageError("two bodies: one after the headline and one on stdin; send one of them")
    body = argument.strip("\n")
    return body if body.strip() else None


def compose(kind: str, raw_headline: str, body: str | None, cap: int) -> Draft:
    headline = envelope.sanitize(raw_headline)
    if not headline:
        raise UsageError("empty headline: say the ask and the why in one line")
    if len(headline) > cap:
        if kind in policy.CONTROL_KINDS:
            raise OverCapError(
                f"headline is {len(headline)} characters; the cap is {cap}. A {kind} is complete "
                "in its envelope and has no body; shorten it."
            )
        folded = envelope.fold(headline, cap)
        note(
            f"headline folded to {len(folded)} characters (cap {cap}); the full text rides in the body"
        )
        body = headline + (f"\n\n{body}" if body else "")
        headline = folded
    if kind in policy.CONTROL_KINDS and body:
        raise UsageError(
            f"a {kind} has no body: it is complete in its headline (at most {cap} characters); "
            "drop the body, or send an ask or fyi"
        )
    return Draft(headline, body)
