"""Another machine, as this one reaches it [docs/seats.md "Other machines"]: `Far`, one object per
host, whose every exchange is one `<program> remote-peer` run there through the channel
(`remote/channel.py`: ssh, or loopback) with the request on its stdin (`remote/wire.py`).

A send to `<seat>@<host>`: the sender chooses the id and keeps the message as sent
(`remote/<id>.md`); the far side files it at most once, so a call whose connection dropped is
tried again with the same id and tells whether the first one landed. Its receipts and the replies
it kept for this machine (filed here only when they answer this machine's asks there), the waits
of its seats, its seats, and how it answers `hello` (`hail doctor <host>`).
"""

from __future__ import annotations

import os
import time

from hail import ids, policy
from hail.errors import NOT_WOKEN, HailError, StateError
from hail.message import render
from hail.output import emit, flush, note
from hail.remote import channel, wire
from hail.remote.channel import Unreachable
from hail.remote.wire import Answered, SendRequest
from hail.send.pipeline import Sent
from hail.store import remote
from hail.text import clip_value, printable_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.letter import Letter
    from hail.message import Message
    from hail.remote.channel import Outcome
    from hail.seat_rows import SeatRow

#: Characters a configured far program may hold: it is a word of the far shell's command line.
_PROGRAM_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-~")


class Dropped(StateError):
    """The connection dropped before the far side answered, on every attempt (exit 1)."""


class Unreadable(Dropped):
    """The far command may have run, but what came back is no answer of this protocol: as after
    a drop, what ran there cannot be told from here (exit 1)."""


class FarError(HailError):
    """The far side refused or failed the request; its exit code is the far one."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.exit_code = code


def program(ctx: Ctx, host: str) -> str:
    """The far command's program: `hosts` in hail's config directory (`<host> <program>` lines,
    `*` for any host), else `hail` from the far login PATH."""
    from hail.store import fs
    from hail.store.store import config_root

    text = fs.read_text(os.path.join(config_root(ctx.env), "hosts")) or ""
    found = "hail"
    for line in text.split("\n"):
        words = line.split()
        if len(words) == 2 and words[0] in (host, "*") and set(words[1]) <= _PROGRAM_CHARS:
            found = words[1]
            if words[0] == host:
                break
    return found


class Far:
    """One other machine: its name (an ssh alias, or any name the channel reaches), the channel,
    and this machine's context."""

    __slots__ = ("channel", "ctx", "host")

    def __init__(self, ctx: Ctx, host: str) -> None:
        self.ctx = ctx
        self.host = host
        self.channel = channel.of(ctx.env)

    def __repr__(self) -> str:
        return f"Far({self.host!r}, {self.channel.name})"

    # --- one exchange ----------------------------------------------------------------------------

    def exchange(
        self, op: str, fields: dict[str, str], body: str = "", *, within: float
    ) -> Message:
        """One request and its answer, within `within` seconds (the caller's time). Unreachable
        when it never got there; Dropped when it may have (a send's retry with the same id files
        nothing twice); Unreadable when it got there and the answer is none of hail's."""
        return self.answer(self.reach(wire.request(op, fields, body), within))

    def reach(self, data: bytes, within: float) -> Outcome:
        """What the far command printed for `data`, tried again once when the connection
        dropped."""
        host = self.host
        far = program(self.ctx, host)
        deadline = time.monotonic() + within
        if within <= 0:
            raise Dropped(f"no time was left to ask {host}")
        maybe = False
        for _ in range(policy.SSH_ATTEMPTS):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            outcome = self.channel.call(self.ctx.env, host, far, data, left)
            if outcome.overflow:
                raise Unreadable(
                    f"{host} answered with more than"
                    f" {policy.PEER_MAX_BYTES + policy.PEER_NOISE_BYTES} bytes, more than the peer"
                    " protocol allows"
                )
            refused = self.channel.refusal(host, outcome)
            if refused is not None and not maybe:
                raise refused
            if refused is None and not outcome.dropped:
                return outcome
            maybe = True
            if outcome.timed_out:
                raise Dropped(f"{host} did not answer within {within:.3g} s")
        raise Dropped(f"the connection to {host} dropped before it answered")

    def answer(self, outcome: Outcome) -> Message:
        """The answer in what came back: hail's, of this protocol, its exit status one of hail's."""
        host = self.host
        got, _ = wire.answer_in(outcome.out)
        if got is None:
            err = outcome.err.decode("utf-8", "replace")
            said = channel.last_line(err if err.strip() else outcome.out.decode("utf-8", "replace"))
            raise Unreadable(
                f"{host} answered, but not as a hail that speaks peer protocol {wire.PROTOCOL} (it"
                f" said: {said}); install this hail version there (hail version on both machines)"
            )
        if got.get(wire.MARK) != wire.PROTOCOL:
            raise Unreachable(
                f"{host} speaks peer protocol {clip_value(printable_line(got.get(wire.MARK)), 20)},"
                f" this hail {wire.PROTOCOL}: install the same hail version on both machines"
            )
        if wire.code_of(got) is None:
            code = clip_value(printable_line(got.get("code")), 20)
            raise Unreadable(
                f"{host}'s answer breaks peer protocol {wire.PROTOCOL}: its exit status '{code}'"
                " is none a hail returns"
            )
        return got

    def said(self, answered: Answered) -> str:
        """Print the far side's notices as `hail: <host>: …`; its error, if any, is returned,
        the `hail seats` it names pointed at that machine."""
        for line in answered.notes:
            note(f"{self.host}: {printable_line(line)}")
        error = printable_line(answered.error)
        return error.replace("hail seats lists", f"hail seats @{self.host} lists")

    # --- a send ------------------------------------------------------------------------------------

    def send(self, mailbox: str, letter: Letter, *, no_wake: bool, no_submit: bool) -> Sent:
        """File `letter` for `mailbox` there and wake its seat there; the far exit status."""
        ctx, host = self.ctx, self.host
        mine = ctx.reading_mailboxes(ctx.require_seat())[0]
        to = wire.address(mailbox, host)
        now = ctx.now()
        ctx.store.ensure()
        msg_id = ctx.store.reserve_id(to, now)  # the link names `<mailbox>@<host>`: no mailbox here
        draft = letter.draft
        headers = {"from": mine, "reply": mine, "kind": letter.kind, "id": msg_id}
        headers.update(
            time=ids.iso(now), re=letter.re, scope=letter.scope, ask=draft.headline, to=to
        )
        remote.record_sent(ctx.store.root, msg_id, render(headers, draft.body or draft.headline))
        sender = (mine, wire.own_host(ctx.env))
        request = SendRequest.of_letter(
            msg_id, mailbox, letter, sender, no_wake=no_wake, no_submit=no_submit
        )
        try:
            got = self.answer(self.reach(request.encode(), policy.SSH_CALL_TIMEOUT))
        except Dropped as e:
            emit(f"id={msg_id}")
            raise self._cannot_tell(msg_id, e.message) from None
        except Unreachable as e:
            if _is_reply(ctx, letter, mine, to):
                return Sent(self._keep(request, e.message))
            remote.forget_sent(ctx.store.root, msg_id)
            raise StateError(
                f"{e.message}. Nothing was sent: fix the route (hail doctor {host}), then send"
                " again"
            ) from None
        return self._landed(msg_id, Answered.decode(got), (mine, to))

    def _cannot_tell(self, msg_id: str, why: str) -> StateError:
        """The send may have landed there: its `id=` is out, its record kept, and this says how
        to find out (exit 1, never "Nothing was sent")."""
        return StateError(
            f"{why}, so hail cannot tell whether {msg_id} landed. hail sent {msg_id} asks"
            f" {self.host}: unknown means it did not land (send it again); any other answer means"
            " it did: do not resend"
        )

    def _landed(self, msg_id: str, got: Answered, mailboxes: tuple[str, str]) -> Sent:
        from hail.send.filing import Filed

        host = self.host
        if got.filed == "no":
            remote.forget_sent(self.ctx.store.root, msg_id)
            error = self.said(got)
            raise FarError(f"{host}: {error or 'the send was refused there'}", got.code or 1)
        emit(f"id={msg_id}")
        flush()
        if got.filed == "duplicate" and got.receipt == "unknown":
            # The id is taken there with no message under it: a first attempt killed between.
            raise self._cannot_tell(msg_id, f"{host} holds the id {msg_id} but no message")
        filed = Filed(msg_id, *mailboxes)
        if got.filed == "duplicate":
            receipt = remote.receipt_line(got.receipt)
            note(
                f"{host} already holds {msg_id} ({receipt}): the first attempt landed, and it is"
                " filed once"
            )
            return Sent(0, filed)
        self.said(got)
        return Sent(got.code, filed)

    def _keep(self, request: SendRequest, why: str) -> int:
        """A reply whose asker's machine cannot be reached: kept here until that machine fetches
        it."""
        root, host = self.ctx.store.root, self.host
        remote.hold(root, host, request.id, request.encode().decode("utf-8", "surrogateescape"))
        emit(f"id={request.id}")
        asker = wire.address(request.written.target, host)
        note(
            f"{why}. The reply is kept here, and {asker}'s hail fetches it (its await --reply,"
            " ask --wait, sent and inbox ask this machine): do not resend"
        )
        return NOT_WOKEN

    # --- receipts, and the replies it kept for this machine ---------------------------------------

    def status(self, asked: list[str], deadline: float) -> dict[str, str]:
        """The receipts it holds for these ids (far text, made one clean line each), and what it
        kept for this machine filed; by `deadline` (monotonic)."""
        got = self.exchange(
            "status",
            {"ids": " ".join(asked), "from-host": wire.own_host(self.ctx.env)},
            within=deadline - time.monotonic(),
        )
        parts = wire.unpack(got.body)
        lines = {}
        for line in (parts[0] if parts else "").split("\n"):
            msg_id, _, how = line.partition(" ")
            if msg_id in asked:
                lines[msg_id] = remote.receipt_line(how)
        self.take_kept(parts[1:], deadline)
        return lines

    def take_kept(self, requests: list[str], deadline: float) -> None:
        """File the replies it kept for this machine, as if it had pushed them, and drop (noted)
        what is no reply to this machine's asks there; then tell it to let both go."""
        if not requests:
            return
        from hail.remote import far

        ctx, host = self.ctx, self.host
        done, dropped = [], 0
        for text in requests:
            req = wire.read(text.encode("utf-8", "surrogateescape"))
            if req is None or req.get("op") != "send" or not ids.is_message_id(req.get("id")):
                dropped += 1
                continue
            if not os.path.lexists(ctx.store.id_path(req.get("id"))) and not is_kept_reply(
                ctx, host, req
            ):
                dropped += 1
                done.append(req.get("id"))  # never to be filed here: the far side may let it go
                continue
            answered = far.accept(ctx, req, pinned=host)  # signed as the machine we reached
            if answered.filed in ("yes", "duplicate"):
                done.append(req.get("id"))
        if dropped:
            note(
                f"{host} kept {dropped} requests for this machine that are no replies to its asks"
                f" there (or past {policy.REMOTE_REPLIES_PER_ASK} replies to one ask): dropped,"
                " not filed"
            )
        left = deadline - time.monotonic()
        if done and left > 0:
            ack = {"ids": " ".join(done), "from-host": wire.own_host(ctx.env)}
            self.exchange("ack", ack, within=left)

    # --- its waits, its seats, hello ---------------------------------------------------------------

    def waits(self, seat: str, on: str, within: float) -> list[str]:
        """The asks a wait of `seat` there waits on from `on` (a seat of this machine)."""
        got = self.exchange("waits", {"seat": seat, "on": on}, within=within)
        return got.get("asks").split()

    def seat_rows(self, now: float) -> tuple[SeatRow, ...]:
        """`hail seats @<host>`: its seat rows, each checked as another machine's word, kept for
        `hail watch` (`remote/seats/<host>`)."""
        from hail import seat_rows

        got = Answered.decode(self.exchange("seats", {}, within=policy.REMOTE_LOOK_SECONDS))
        error = self.said(got)
        if error:
            raise FarError(f"{self.host}: {error}", got.code or 1)
        try:
            rows, dropped = seat_rows.rows_from_text(got.output, now)
        except seat_rows.NotARow as e:
            raise Unreadable(
                f"{self.host}'s seats break peer protocol {wire.PROTOCOL}: {e}"
            ) from None
        if dropped:
            note(f"{self.host} sent {dropped} seat rows that are none: left out")
        remote.note_seats(self.ctx.store.root, self.host, seat_rows.rows_text(rows))
        return rows

    def hello(self) -> tuple[Message, str]:
        """Its answer to `hello`, and what its shell printed before it."""
        outcome = self.reach(wire.request("hello", {}), policy.REMOTE_LOOK_SECONDS)
        got = self.answer(outcome)
        return got, wire.answer_in(outcome.out)[1].decode("utf-8", "replace")

    def doctor(self) -> int:
        """`hail doctor <host>`: the route to it (the channel, the far hail, both versions)."""
        from hail import __version__
        from hail.output import table

        host = self.host
        start = time.monotonic()
        try:
            got, noise = self.hello()
        except HailError as e:
            emit(f"FIX  {e.message}")
            return 1
        took = time.monotonic() - start
        version = clip_value(printable_line(got.get("version")), 40)  # far text, as all peer text
        how = f"{self.channel.name} reaches {host} ({took:.2f} s)"
        rows = [
            ["ok", f"{how} and runs {program(self.ctx, host)} there"],
            ["ok", f"hail {version} there speaks peer protocol {wire.PROTOCOL}"],
        ]
        if noise.strip():
            rows.append(["note", self._noise_line(noise)])
        if version != __version__:
            rows.append(["note", f"this machine runs hail {__version__}"])
        far = clip_value(printable_line(got.get("host")), 80)
        me = wire.own_host(self.ctx.env)
        rows.append(["ok", f"{host} calls itself {far}; this machine signs as {me}"])
        if far != host:
            rows.append(
                ["note", f"replies from there sign as @{far}: make {far} an ssh alias here"]
            )
        for line in table(rows):
            emit(line)
        return 0

    def _noise_line(self, noise: str) -> str:
        """What the far shell printed before hail's answer, and where that likely comes from."""
        first = next(line for line in noise.split("\n") if line.strip())
        return (
            f"{self.host}'s shell prints before hail's answer:"
            f" {clip_value(printable_line(first), 80)} ({self.channel.noise_source()}); hail"
            " skips it, but make them print only when interactive"
        )


def _is_reply(ctx: Ctx, letter: Letter, mine: str, to: str) -> bool:
    from hail.store import conversation

    return bool(letter.re) and conversation.thread_of(ctx.store, letter.re, mine, to).is_reply


def is_kept_reply(ctx: Ctx, host: str, req: Message) -> bool:
    """Whether a request `host` kept for this machine may be filed here [docs/seats.md "Trust
    boundary"]: an ask or fyi answering an ask this machine sent to `host`, to that ask's reply
    mailbox, from the seat it went to, and within REMOTE_REPLIES_PER_ASK replies to that ask. A
    machine this one only reaches holds no key here: it may answer, nothing more."""
    from hail.store.conversation import replies_of, seat_of_mailbox

    ask = remote.sent(ctx.store.root, req.get("re"))
    if ask is None or ask.kind != "ask" or req.get("kind") not in ("ask", "fyi"):
        return False
    target, there = remote.split_address(ask.get("to"))
    return (
        there == host
        and req.get("to") == ask.get("reply")
        and seat_of_mailbox(req.get("from-seat")) == seat_of_mailbox(target)
        and len(replies_of(ctx.store, req.get("re"))) < policy.REMOTE_REPLIES_PER_ASK
    )
