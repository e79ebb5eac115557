"""The peer protocol: what one hail says to another over a channel (ssh) [docs/seats.md "Other
machines"].

A request is a message file (`key: value` headers, a blank line, a body) on the far hail's stdin;
the answer is one on its stdout whose first header is `hail-peer: <version>`. Nothing of a message
is ever a word of the command line the channel runs: that is the fixed `hail remote-peer`. A send
crosses as one schema both ends read and write (`SendRequest`), and the far side answers with
fields (`Answered`: its exit status, what it filed, its notes, its error), never text for the near
side to pick apart. Pure, but for this machine's name.
"""

from __future__ import annotations

from hail.letter import Written
from hail.message import Message, parse, render
from hail.seat import is_host_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hail.letter import Letter

#: The protocol version both ends must speak; a far hail of another version refuses the request.
#: 2: answers carry their notes and error as fields.
PROTOCOL = "2"
MARK = "hail-peer"
#: The exit statuses a far hail answers with (`errors.py`: 0 to WAIT_CYCLE); an answer with any
#: other `code:` is none of hail's.
CODES = frozenset("0123456")


def request(op: str, fields: Mapping[str, str], body: str = "") -> bytes:
    text = f"{MARK}: {PROTOCOL}\nop: {op}\n" + render(dict(fields), body)
    return text.encode("utf-8", "surrogateescape")


def answer(code: int, fields: Mapping[str, str], body: str = "") -> str:
    return f"{MARK}: {PROTOCOL}\ncode: {code}\n" + render(dict(fields), body)


def read(data: bytes) -> Message | None:
    """A request or an answer, or None when it is none of hail's (no `hail-peer:` header first)."""
    text = data.decode("utf-8", "replace")
    if not text.startswith(f"{MARK}: "):
        return None
    return parse(text)


def answer_in(data: bytes) -> tuple[Message | None, bytes]:
    """The answer in what the far command printed, and what came before it: the answer starts at
    the first line that begins `hail-peer: ` (a far shell's startup files may print first). None
    when no line does."""
    if not holds_answer(data):
        return None, data
    at = 0 if data.startswith(f"{MARK}: ".encode()) else data.find(f"\n{MARK}: ".encode()) + 1
    return parse(data[at:].decode("utf-8", "replace")), data[:at]


def holds_answer(data: bytes) -> bool:
    """Whether what the far command printed has an answer in it (`answer_in` would find one)."""
    head = f"{MARK}: ".encode()
    return data.startswith(head) or b"\n" + head in data


def code_of(got: Message) -> int | None:
    """The answer's exit status, when it is one a far hail returns: one ASCII digit of CODES."""
    code = got.get("code")
    return int(code) if code in CODES else None


def pack(texts: list[str]) -> str:
    """Several texts in one body: each as its length in characters, a newline, then the text."""
    return "".join(f"{len(t)}\n{t}" for t in texts)


def unpack(body: str) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(body):
        end = body.find("\n", i)
        size = body[i:end]
        if end < 0 or not (size.isascii() and size.isdigit()):
            break
        out.append(body[end + 1 : end + 1 + int(size)])
        i = end + 1 + int(size)
    return out


def own_host(env: Mapping[str, str]) -> str:
    """This machine's name in addresses: HAIL_HOST, else the short host name."""
    import os

    given = env.get("HAIL_HOST", "")
    if given and not is_host_name(given):
        from hail.errors import UsageError

        raise UsageError(
            f"HAIL_HOST={given} is not a host name: set it to the ssh alias other machines reach "
            "this one by (letters, digits, . _ -)"
        )
    name = given or os.uname().nodename.split(".", 1)[0]
    return name if is_host_name(name) else "localhost"


def address(mailbox: str, host: str) -> str:
    return f"{mailbox}@{host}"


# --- a send, as it crosses -----------------------------------------------------------------------


class SendRequest:
    """A send to a seat of another machine: the letter as its sender wrote it (checked again by
    the far side, with its own rules and cap), who signs it (`from-seat` of `from-host`; the far
    side pins the host it knows), the id its sender chose, and how to deliver it."""

    __slots__ = ("body", "from_host", "from_seat", "id", "no_submit", "no_wake", "written")

    def __init__(
        self,
        msg_id: str,
        written: Written,
        body: str | None,
        from_seat: str,
        from_host: str,
        *,
        no_wake: bool = False,
        no_submit: bool = False,
    ) -> None:
        self.id = msg_id
        self.written = written
        self.body = body
        self.from_seat = from_seat
        self.from_host = from_host
        self.no_wake = no_wake
        self.no_submit = no_submit

    @classmethod
    def of_letter(
        cls,
        msg_id: str,
        to: str,
        letter: Letter,
        sender: tuple[str, str],
        *,
        no_wake: bool,
        no_submit: bool,
    ) -> SendRequest:
        """The request for `letter` to the mailbox `to` there, from (seat, host) `sender`."""
        draft = letter.draft
        written = Written(
            to,
            letter.kind,
            draft.headline,
            re=letter.re or None,
            scope=letter.scope or None,
            span=letter.span_text or None,
        )
        seat, host = sender
        return cls(msg_id, written, draft.body, seat, host, no_wake=no_wake, no_submit=no_submit)

    def fields(self) -> dict[str, str]:
        w = self.written
        return {
            "id": self.id,
            "to": w.target,
            "from-seat": self.from_seat,
            "from-host": self.from_host,
            "kind": w.kind or "",
            "ask": w.headline or "",
            "re": w.re or "",
            "scope": w.scope or "",
            "for": w.span or "",
            "no-wake": "yes" if self.no_wake else "",
            "no-submit": "yes" if self.no_submit else "",
            "has-body": "yes" if self.body is not None else "",
        }

    def encode(self) -> bytes:
        return request("send", self.fields(), self.body or "")

    @classmethod
    def decode(cls, req: Message) -> SendRequest:
        written = Written(
            req.get("to"),
            req.get("kind"),
            req.get("ask"),
            re=req.get("re") or None,
            scope=req.get("scope") or None,
            span=req.get("for") or None,
        )
        return cls(
            req.get("id"),
            written,
            req.body if req.get("has-body") == "yes" else None,
            req.get("from-seat"),
            req.get("from-host"),
            no_wake=req.get("no-wake") == "yes",
            no_submit=req.get("no-submit") == "yes",
        )


# --- what the far side answers -------------------------------------------------------------------


class Answered:
    """A far answer as fields: its exit status (one a hail returns), what the far side said it
    filed (`yes`, `no`, `duplicate`: a send's), the receipt of a duplicate, what it printed (a
    listing's text), its notes (each a `hail:` line there, without the prefix) and its error."""

    __slots__ = ("code", "error", "filed", "notes", "output", "receipt")

    def __init__(
        self,
        code: int,
        *,
        filed: str = "",
        receipt: str = "",
        output: str = "",
        notes: list[str] | None = None,
        error: str = "",
    ) -> None:
        self.code = code
        self.filed = filed
        self.receipt = receipt
        self.output = output
        self.notes = notes or []
        self.error = error

    def encode(self) -> str:
        fields = {"filed": self.filed, "receipt": self.receipt, "error": self.error}
        return answer(self.code, fields, pack([self.output, *self.notes]))

    @classmethod
    def decode(cls, got: Message) -> Answered:
        """The fields of an answer whose code `code_of` let through."""
        output, *notes = [*unpack(got.body)] or [""]
        return cls(
            code_of(got) or 0,
            filed=got.get("filed"),
            receipt=got.get("receipt"),
            output=output,
            notes=[n for n in notes if n.strip()],
            error=got.get("error"),
        )
