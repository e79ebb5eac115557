"""The send verb [docs/commands.md "send"]: the command line parsed and checked before stdin is
read, the letter filed by the pipeline (`send/pipeline.py`) as this directory's seat, then with
`--wait` the wait for the reply.
"""

from __future__ import annotations

from hail.errors import UsageError
from hail.letter import Written, check
from hail.reserved import ALL

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.letter import Letter
    from hail.send.authors import Author
    from hail.send.pipeline import Sent


class SendArgs:
    """A parsed send command line: the letter as written, how to deliver it, and whether to wait
    for the reply."""

    __slots__ = ("no_submit", "no_wake", "wait", "wait_timeout", "written")

    def __init__(
        self,
        written: Written,
        *,
        no_submit: bool = False,
        no_wake: bool = False,
        wait: bool = False,
        wait_timeout: float | None = None,
    ) -> None:
        self.written = written
        self.no_submit = no_submit
        self.no_wake = no_wake
        self.wait = wait
        self.wait_timeout = wait_timeout

    @property
    def target(self) -> str:
        return self.written.target


def validate(args: SendArgs) -> None:
    """Refuse a bad command line before stdin is read or anything is written."""
    kind, _, _ = check(args.written)
    if args.wait and kind != "ask":
        raise UsageError(f"--wait applies to an ask, not {kind}: only an ask expects a reply")
    if args.wait and args.target.split("@", 1)[0] == ALL:
        raise UsageError("--wait waits for one reply: ask each seat, or await --reply the ids")


def send(ctx: Ctx, args: SendArgs, letter: Letter, author: Author, target: str = "") -> int:
    """The pipeline (to `target`, else the command line's), then with `--wait` the wait for the
    reply, whose exit code replaces the send's once the ask is in the inbox (0 or 5); a send
    refused before filing returns its own code."""
    from hail.send.pipeline import file_and_wake

    target = target or args.target
    sent = file_and_wake(
        ctx, author, target, letter, no_wake=args.no_wake, no_submit=args.no_submit
    )
    return waited(ctx, args, sent)


def waited(ctx: Ctx, args: SendArgs, sent: Sent) -> int:
    """With `--wait`, the wait for the reply to the ask `sent` filed (here, or on another
    machine), whose exit code replaces the send's; else the send's."""
    asked = sent.waits_for_reply() if args.wait else None
    if asked is None:
        return sent.code
    from hail.commands import converse

    return converse.after_send(ctx, asked.asker, asked.id, asked.to, args.wait_timeout)
