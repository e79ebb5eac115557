"""The peer protocol: what one hail says to another over ssh [docs/seats.md "Other machines"].

A request is a message file (`key: value` headers, a blank line, a body) on the far hail's stdin;
the answer is one on its stdout whose first header is `hail-peer: <version>`. Nothing of a message
is ever a word of the command line ssh runs: that is the fixed `hail remote-peer`. Pure.
"""

from __future__ import annotations

from hail.message import Message, parse, render
from hail.seat import is_host_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: The protocol version both ends must speak; a far hail of another version refuses the request.
PROTOCOL = "1"
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
