"""Seats on other machines, the near side [docs/seats.md "Other machines"]: a send to
`<seat>@<host>`, its receipts, replies kept there and fetched from here, waits across machines,
`seats @<host>` and `doctor <host>`.

Every exchange is one `hail remote-peer` run on the host over ssh (transport/ssh.py) with the request on
its stdin (wire.py). The sender chooses the id and keeps the message as sent (`remote/<id>.md`);
the far side files it at most once, so a call whose connection dropped is tried again with the same
id and tells whether the first one landed.
"""

from __future__ import annotations

import os
import sys

from hail import ids, policy, wire
from hail.context import Ctx
from hail.errors import NOT_WOKEN, HailError, StateError
from hail.message import Message, render
from hail.output import emit, flush, note
from hail.send.pipeline import Sent
from hail.store import remote
from hail.text import clip_value, printable_line
from hail.transport import ssh

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

    from hail.commands.send import SendArgs
    from hail.letter import Letter
    from hail.seat import Addr

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


def exchange(
    ctx: Ctx, host: str, op: str, fields: dict[str, str], body: str = "", *, within: float
) -> Message:
    """One request to `host` and its answer, within `within` seconds (the caller's time).
    Unreachable when it never got there; Dropped when it may have (a send's retry with the same
    id files nothing twice); Unreadable when it got there and the answer is none of hail's."""
    return _answer(host, _reach(ctx, host, wire.request(op, fields, body), within))


def _reach(ctx: Ctx, host: str, data: bytes, within: float) -> ssh.Outcome:
    """What the far command printed for `data`, tried again once when the connection dropped."""
    import time

    far = program(ctx, host)
    deadline = time.monotonic() + within
    if within <= 0:
        raise Dropped(f"no time was left to ask {host}")
    maybe = False
    for _ in range(policy.SSH_ATTEMPTS):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        outcome = ssh.call(ctx.env, host, far, data, left)
        if outcome.overflow:
            raise Unreadable(
                f"{host} answered with more than {policy.PEER_MAX_BYTES + policy.PEER_NOISE_BYTES}"
                " bytes, more than the peer protocol allows"
            )
        refused = ssh.refusal(host, outcome)
        if refused is not None and not maybe:
            raise refused
        if refused is None and not outcome.dropped:
            return outcome
        maybe = True
        if outcome.timed_out:
            raise Dropped(f"{host} did not answer within {within:.3g} s")
    raise Dropped(f"the connection to {host} dropped before it answered")


def _answer(host: str, outcome: ssh.Outcome) -> Message:
    got, _ = wire.answer_in(outcome.out)
    if got is None:
        err = outcome.err.decode("utf-8", "replace")
        said = ssh.last_line(err if err.strip() else outcome.out.decode("utf-8", "replace"))
        raise Unreadable(
            f"{host} answered, but not as a hail that speaks peer protocol {wire.PROTOCOL} (it "
            f"said: {said}); install this hail version there (hail version on both machines)"
        )
    if got.get(wire.MARK) != wire.PROTOCOL:
        raise ssh.Unreachable(
            f"{host} speaks peer protocol {clip_value(printable_line(got.get(wire.MARK)), 20)}, "
            f"this hail {wire.PROTOCOL}: install the same hail version on both machines"
        )
    if wire.code_of(got) is None:
        code = clip_value(printable_line(got.get("code")), 20)
        raise Unreadable(
            f"{host}'s answer breaks peer protocol {wire.PROTOCOL}: its exit status '{code}' is "
            "none a hail returns"
        )
    return got


def relay(host: str, said: str) -> str:
    """Print the far side's notices as `hail: <host>: …`; its error line, if any, is returned,
    with the `hail seats` it names pointed at that machine."""
    error = ""
    for line in said.split("\n"):
        if line.startswith("hail: "):
            note(f"{host}: {line[6:]}")
        elif line.startswith("error: "):
            error = line[7:].replace("hail seats lists", f"hail seats @{host} lists")
    return error


# --- send --------------------------------------------------------------------------------------


def send(ctx: Ctx, args: SendArgs, letter: Letter) -> int:
    """The send to `<seat>@<host>`, then with `--wait` the wait for its reply (as `send.send`)."""
    from hail.commands import send as local
    from hail.seat import parse_target
    from hail.send.authors import Local

    addr = parse_target(args.target)
    if addr.host == wire.own_host(ctx.env):  # this machine's own name: a local send
        return local.send(ctx, args, letter, Local(ctx), target=addr.mailbox)
    return local.waited(ctx, args, file_there(ctx, args, addr, letter), far=_this)


def _this() -> ModuleType:
    return sys.modules[__name__]


def file_there(ctx: Ctx, args: SendArgs, addr: Addr, letter: Letter) -> Sent:
    """File the message on `addr.host` and wake its seat there; the far exit code."""
    mine = ctx.reading_mailboxes(ctx.require_seat())[0]
    me = wire.own_host(ctx.env)
    to = wire.address(addr.mailbox, addr.host)
    now = ctx.now()
    ctx.store.ensure()
    msg_id = ctx.store.reserve_id(to, now)  # the link names `<mailbox>@<host>`: no mailbox here
    draft = letter.draft
    headers = {"from": mine, "reply": mine, "kind": letter.kind, "id": msg_id, "time": ids.iso(now)}
    headers.update(re=letter.re, scope=letter.scope, ask=draft.headline, to=to)
    remote.record_sent(ctx.store.root, msg_id, render(headers, draft.body or draft.headline))
    fields = {
        "id": msg_id,
        "to": addr.mailbox,
        "from-seat": mine,
        "from-host": me,
        "kind": letter.kind,
        "ask": draft.headline,
        "re": letter.re,
        "scope": letter.scope,
        "for": letter.span_text,
        "no-wake": "yes" if args.no_wake else "",
        "no-submit": "yes" if args.no_submit else "",
        "has-body": "yes" if draft.body is not None else "",
    }
    data_body = draft.body or ""
    try:
        got = exchange(ctx, addr.host, "send", fields, data_body, within=policy.SSH_CALL_TIMEOUT)
    except Dropped as e:
        emit(f"id={msg_id}")
        raise _cannot_tell(addr.host, msg_id, e.message) from None
    except ssh.Unreachable as e:
        if _is_reply(ctx, letter, mine, to):
            return Sent(_keep(ctx, addr.host, msg_id, fields, data_body, e.message))
        remote.forget_sent(ctx.store.root, msg_id)
        raise StateError(
            f"{e.message}. Nothing was sent: fix the route (hail doctor {addr.host}), then send again"
        ) from None
    return _landed(ctx, addr, msg_id, got, mine)


def _cannot_tell(host: str, msg_id: str, why: str) -> StateError:
    """The send may have landed there: its `id=` is out, its record kept, and this says how to
    find out (exit 1, never "Nothing was sent")."""
    return StateError(
        f"{why}, so hail cannot tell whether {msg_id} landed. hail sent {msg_id} asks {host}: "
        "unknown means it did not land (send it again); any other answer means it did: do not "
        "resend"
    )


def _landed(ctx: Ctx, addr: Addr, msg_id: str, got: Message, mine: str) -> Sent:
    from hail.send.filing import Filed

    code = wire.code_of(got) or 0  # `_answer` let through only a code a hail returns
    parts = [*wire.unpack(got.body), "", ""]
    if got.get("filed") == "no":
        remote.forget_sent(ctx.store.root, msg_id)
        error = relay(addr.host, parts[1])
        raise FarError(f"{addr.host}: {error or 'the send was refused there'}", code or 1)
    emit(f"id={msg_id}")
    flush()
    if got.get("filed") == "duplicate" and got.get("receipt") == "unknown":
        # The id is taken there with no message under it: a first attempt killed between the two.
        raise _cannot_tell(addr.host, msg_id, f"{addr.host} holds the id {msg_id} but no message")
    filed = Filed(msg_id, mine, wire.address(addr.mailbox, addr.host))
    if got.get("filed") == "duplicate":
        note(
            f"{addr.host} already holds {msg_id} ({got.get('receipt')}): the first attempt landed, "
            "and it is filed once"
        )
        return Sent(0, filed)
    relay(addr.host, parts[1])
    return Sent(code, filed)


def _is_reply(ctx: Ctx, letter: Letter, mine: str, to: str) -> bool:
    from hail.store import conversation

    return bool(letter.re) and conversation.thread_of(ctx.store, letter.re, mine, to).is_reply


def _keep(ctx: Ctx, host: str, msg_id: str, fields: dict[str, str], body: str, why: str) -> int:
    """A reply whose asker's machine cannot be reached: kept here until that machine fetches it."""
    remote.hold(
        ctx.store.root,
        host,
        msg_id,
        wire.request("send", fields, body).decode("utf-8", "surrogateescape"),
    )
    emit(f"id={msg_id}")
    asker = wire.address(fields["to"], host)
    note(
        f"{why}. The reply is kept here, and {asker}'s hail fetches it (its await --reply, "
        "ask --wait, sent and inbox ask this machine): do not resend"
    )
    return NOT_WOKEN


# --- receipts and kept replies -------------------------------------------------------------------


def host_of(ctx: Ctx, msg_id: str) -> str:
    """The machine a message sent from here went to, or ""."""
    sent = remote.sent(ctx.store.root, msg_id)
    return remote.split_address(sent.get("to"))[1] if sent is not None else ""


def statuses(
    ctx: Ctx, msg_ids: list[str], *, quiet: bool = False, within: float = policy.REMOTE_LOOK_SECONDS
) -> dict[str, str]:
    """`hail sent` of ids sent to other machines: each machine asked once (and what it kept for
    this one fetched), all within `within` seconds; an unreachable machine is noted unless
    `quiet` (a wait asks again)."""
    import time

    by_host: dict[str, list[str]] = {}
    for msg_id in msg_ids:
        host = host_of(ctx, msg_id)
        if host:
            by_host.setdefault(host, []).append(msg_id)
    deadline = time.monotonic() + within
    lines: dict[str, str] = {}
    for host, asked in by_host.items():
        kept = [i for i in asked if remote.is_held(ctx.store.root, host, i)]
        lines.update((i, f"held (kept here until {host} fetches it)") for i in kept)
        try:
            answered = _status(ctx, host, [i for i in asked if i not in kept], deadline)
        except HailError as e:  # unreachable, or no answer: nothing is known of its receipts
            if not quiet:
                note(e.message)
            answered = {}
        for i in asked:
            if i in answered:
                remote.note_receipt(ctx.store.root, i, answered[i])
            lines.setdefault(i, answered.get(i, "unknown (unreachable)"))
    return lines


def _status(ctx: Ctx, host: str, asked: list[str], deadline: float) -> dict[str, str]:
    """The receipts `host` holds for these ids (far text, made one clean line each), and what it
    kept for this machine filed; by `deadline` (monotonic)."""
    import time

    got = exchange(
        ctx,
        host,
        "status",
        {"ids": " ".join(asked), "from-host": wire.own_host(ctx.env)},
        within=deadline - time.monotonic(),
    )
    parts = wire.unpack(got.body)
    lines = {}
    for line in (parts[0] if parts else "").split("\n"):
        msg_id, _, how = line.partition(" ")
        if msg_id in asked:
            lines[msg_id] = remote.receipt_line(how)
    take_kept(ctx, host, parts[1:], deadline)
    return lines


def take_kept(ctx: Ctx, host: str, requests: list[str], deadline: float) -> None:
    """File the replies `host` kept for this machine, as if it had pushed them, and drop (noted)
    what is no reply to this machine's asks there; then tell it to let both go."""
    import time

    if not requests:
        return
    from hail.commands import peer

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
        _, fields, _ = peer.accept(ctx, req, pinned=host)  # signed as the machine we reached
        if fields.get("filed") in ("yes", "duplicate"):
            done.append(req.get("id"))
    if dropped:
        note(
            f"{host} kept {dropped} requests for this machine that are no replies to its asks "
            f"there (or past {policy.REMOTE_REPLIES_PER_ASK} replies to one ask): dropped, not "
            "filed"
        )
    left = deadline - time.monotonic()
    if done and left > 0:
        ack = {"ids": " ".join(done), "from-host": wire.own_host(ctx.env)}
        exchange(ctx, host, "ack", ack, within=left)


def is_kept_reply(ctx: Ctx, host: str, req: Message) -> bool:
    """Whether a request `host` kept for this machine may be filed here [docs/seats.md "Trust
    boundary"]: an ask or fyi answering an ask this machine sent to `host`, to that ask's reply
    mailbox, from the seat it went to, and within REMOTE_REPLIES_PER_ASK replies to that ask. A
    machine this one only ssh's to holds no key here: it may answer, nothing more."""
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


def fetch(
    ctx: Ctx, hosts: list[str], *, backoff: bool = False, within: float = policy.REMOTE_LOOK_SECONDS
) -> None:
    """Fetch what these machines kept for this one, within `within` seconds; a machine out of
    reach is skipped. With `backoff`, a machine found out of reach within REMOTE_RETRY_SECONDS is
    not tried again."""
    import time

    root = ctx.store.root
    deadline = time.monotonic() + min(within, policy.REMOTE_LOOK_SECONDS)
    for host in hosts:
        since = remote.unreachable_since(root, host) if backoff else None
        if since is not None and ctx.now() - since < policy.REMOTE_RETRY_SECONDS:
            continue
        if deadline <= time.monotonic():
            return  # the caller's time is up: the next fetch asks
        try:
            _status(ctx, host, [], deadline)
        except HailError:
            if backoff:
                remote.note_unreachable(root, host, reached=False)
            continue
        if backoff and since is not None:
            remote.note_unreachable(root, host, reached=True)


def open_asks(ctx: Ctx) -> dict[str, list[str]]:
    """Asks sent to other machines within REMOTE_OPEN_SECONDS that have no reply here yet, by
    host."""
    from hail.store import fs
    from hail.store.conversation import replies_of

    out: dict[str, list[str]] = {}
    where = remote.sent_dir(ctx.store.root)
    for name in fs.list_names(where):
        msg_id = name[:-3] if name.endswith(".md") else ""
        t = fs.mtime(os.path.join(where, name))
        if not msg_id or t is None or ctx.now() - t > policy.REMOTE_OPEN_SECONDS:
            continue
        msg = remote.sent(ctx.store.root, msg_id)
        host = remote.split_address(msg.get("to"))[1] if msg is not None else ""
        if msg is not None and msg.kind == "ask" and host and not replies_of(ctx.store, msg_id):
            out.setdefault(host, []).append(msg_id)
    return out


def fetch_open(ctx: Ctx) -> None:
    """Fetch kept replies to this machine's open asks to other machines (`inbox`)."""
    if os.path.isdir(remote.sent_dir(ctx.store.root)):
        fetch(ctx, sorted(open_asks(ctx)), backoff=True)


def crossing(ctx: Ctx, waiter: str, targets: list[str], *, within: float) -> tuple[str, str] | None:
    """(target, ask) when a seat this wait waits on, on another machine, waits on this waiter;
    each machine asked within what is left of `within` seconds (the wait's own time)."""
    import time

    from hail.store.conversation import seat_of_mailbox

    me = wire.address(seat_of_mailbox(waiter), wire.own_host(ctx.env))
    deadline = time.monotonic() + within
    for target in targets:
        mailbox, host = remote.split_address(target)
        left = deadline - time.monotonic()
        if not host or left <= 0:
            continue
        try:
            asked = {"seat": seat_of_mailbox(mailbox), "on": me}
            got = exchange(ctx, host, "waits", asked, within=left)
        except HailError:
            continue  # out of reach: the wait still ends at its deadline
        asks = got.get("asks").split()
        if asks:
            return target, asks[0]
    return None


# --- seats and doctor ----------------------------------------------------------------------------


def seats(ctx: Ctx, host: str) -> int:
    got = exchange(ctx, host, "seats", {}, within=policy.REMOTE_LOOK_SECONDS)
    parts = [*wire.unpack(got.body), "", ""]
    for line in parts[0].rstrip("\n").split("\n"):
        emit(line)
    error = relay(host, parts[1])
    if error:
        raise FarError(f"{host}: {error}", wire.code_of(got) or 1)
    return 0


def doctor(ctx: Ctx, host: str) -> int:
    """The route to `host`: ssh, the far hail, both versions."""
    import time

    from hail import __version__
    from hail.output import table

    start = time.monotonic()
    try:
        outcome = _reach(ctx, host, wire.request("hello", {}), policy.REMOTE_LOOK_SECONDS)
        got = _answer(host, outcome)
    except HailError as e:
        emit(f"FIX  {e.message}")
        return 1
    took = time.monotonic() - start
    version = clip_value(printable_line(got.get("version")), 40)  # far text, as all peer text
    rows = [
        ["ok", f"ssh reaches {host} ({took:.2f} s) and runs {program(ctx, host)} there"],
        ["ok", f"hail {version} there speaks peer protocol {wire.PROTOCOL}"],
    ]
    noise = wire.answer_in(outcome.out)[1].decode("utf-8", "replace")
    if noise.strip():
        rows.append(["note", _noise_line(host, noise)])
    if version != __version__:
        rows.append(["note", f"this machine runs hail {__version__}"])
    far = clip_value(printable_line(got.get("host")), 80)
    me = wire.own_host(ctx.env)
    rows.append(["ok", f"{host} calls itself {far}; this machine signs as {me}"])
    if far != host:
        rows.append(["note", f"replies from there sign as @{far}: make {far} an ssh alias here"])
    for line in table(rows):
        emit(line)
    return 0


def _noise_line(host: str, noise: str) -> str:
    """What the far shell printed before hail's answer, and where that likely comes from."""
    first = next(line for line in noise.split("\n") if line.strip())
    return (
        f"{host}'s shell prints before hail's answer: {clip_value(printable_line(first), 80)} "
        "(its startup files, which run for a command too: bash's ~/.bashrc, zsh's ~/.zshenv); "
        "hail skips it, but make them print only when interactive"
    )
