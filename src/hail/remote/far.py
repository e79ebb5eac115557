"""`hail remote-peer`: the far side of another machine's hail [docs/seats.md "Other machines"].

The channel (ssh) runs this fixed command; the request (a message file whose first header is `hail-peer:`)
comes on stdin and the answer goes to stdout, so nothing of a message is ever a word a shell
reads. A send files and wakes as a local send does, under the id its sender chose: a second copy
of an id this state holds is refused, so a retry after a dropped connection files nothing twice.
A message from another machine signs as `<seat>@<host>`, a host other than this one, so it can
never pass for a local seat.
"""

from __future__ import annotations

import os
import sys

from hail import ids, policy
from hail.context import Ctx
from hail.errors import HailError
from hail.remote import wire
from hail.remote.wire import Answered, SendRequest
from hail.reserved import ALL
from hail.seat import is_host_name, parse_mailbox, parse_target
from hail.store import remote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hail.message import Message

    #: What answers `seats @<host>`: this machine's seat rows (of one seat, when given) as the
    #: JSON list `seat_rows.rows_text` writes.
    Listing = Callable[[Ctx, str | None], str]


def captured(run: Callable[[], int]) -> tuple[int, str, list[str], str]:
    """Run with stdout and stderr kept: its exit status, what it printed, its notes (its `hail:`
    lines) and its error; fd 1 and 2 go to /dev/null meanwhile, so nothing a child process prints
    can mix with the answer."""
    import io

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    error = ""
    try:
        code = run()
    except remote.AlreadyFiled:
        raise
    except HailError as e:
        code, error = e.exit_code, e.message
    finally:
        sys.stdout, sys.stderr = saved
    notes = [line[6:] for line in err.getvalue().split("\n") if line.startswith("hail: ")]
    return code, out.getvalue(), notes, error


#: Room an answer keeps for its own headers within PEER_MAX_BYTES.
_ANSWER_HEADROOM = 4096


def refused(why: str) -> Answered:
    return Answered(1, filed="no", error=why)


def sender_host(ctx: Ctx, req: Message, pinned: str) -> str:
    """The sender's machine: the one this hail reached (a fetch), else what the ssh key's
    authorized_keys line pins (HAIL_PEER_HOST), else what the request says."""
    return pinned or ctx.env.get("HAIL_PEER_HOST", "") or req.get("from-host")


def accept(ctx: Ctx, req: Message, pinned: str = "") -> Answered:
    """File and wake a send from another machine, as if it were sent here, by the one pipeline."""
    send = SendRequest.decode(req)
    host, seat, msg_id = sender_host(ctx, req, pinned), send.from_seat, send.id
    if not is_host_name(host) or parse_mailbox(seat) is None:
        return refused("the sender's seat or host is not a plain name")
    if host == wire.own_host(ctx.env):
        return refused(f"a message from another machine cannot sign as this machine ({host})")
    if not ids.is_message_id(msg_id):
        return refused("the id is not a message id")
    to = send.written.target
    addr = parse_target(to) if to else None
    if addr is None or addr.host or addr.pane_target or (addr.pane and not addr.sub):
        return refused("the target is not a seat or sub-seat of this machine")
    if os.path.lexists(ctx.store.id_path(msg_id)):
        return _duplicate(ctx, msg_id)
    from hail.letter import letter
    from hail.send import pipeline
    from hail.send.authors import Peer

    sent: list[pipeline.Sent] = []
    everyone = addr.seat == ALL and not addr.pane

    def file() -> int:
        # Built again here, with this machine's rules and cap: another machine's word is checked.
        built = letter(send.written, send.body, ctx.cap)
        author = Peer(wire.address(seat, host), msg_id)
        if everyone:  # a broadcast here: its first copy under the sender's id
            from hail.send.broadcast import broadcast

            options = {"no_wake": send.no_wake, "no_submit": send.no_submit}
            return broadcast(ctx, author, "", built, **options)
        sent.append(
            pipeline.file_and_wake(
                ctx, author, to, built, no_wake=send.no_wake, no_submit=send.no_submit
            )
        )
        return sent[0].code

    try:
        code, out, notes, error = captured(file)
    except remote.AlreadyFiled:
        return _duplicate(ctx, msg_id)
    if everyone:  # each copy's `id=… to=…` line and the summary, as notes there
        landed = os.path.lexists(ctx.store.id_path(msg_id))
        notes = [*out.splitlines(), *notes]
        return Answered(code, filed="yes" if landed else "no", notes=notes, error=error)
    filed = "yes" if sent and sent[0].filed is not None else "no"
    return Answered(code, filed=filed, notes=notes, error=error)


def _duplicate(ctx: Ctx, msg_id: str) -> Answered:
    return Answered(0, filed="duplicate", receipt=ctx.store.status(msg_id).line())


# --- the other requests ----------------------------------------------------------------------


def _status(ctx: Ctx, req: Message, host: str) -> str:
    """Receipts of ids this machine holds, and the replies kept here for the asking machine, the
    oldest first as many as the answer's cap holds (the next fetch takes the rest)."""
    lines = "\n".join(f"{i} {ctx.store.status(i).line()}" for i in req.get("ids").split())
    room = policy.PEER_MAX_BYTES - _ANSWER_HEADROOM - len(lines.encode("utf-8", "surrogateescape"))
    kept = []
    for _, text in remote.held(ctx.store.root, host) if is_host_name(host) else []:
        room -= len(text.encode("utf-8", "surrogateescape")) + len(str(len(text))) + 1
        if room < 0:
            break
        kept.append(text)
    return wire.answer(0, {}, wire.pack([lines, *kept]))


def _ack(ctx: Ctx, req: Message, host: str) -> str:
    if is_host_name(host):
        remote.release(ctx.store.root, host, req.get("ids").split())
    return wire.answer(0, {})


def _seats(ctx: Ctx, req: Message, listing: Listing) -> str:
    rows: list[str] = []

    def listed() -> int:
        rows.append(listing(ctx, req.get("seat") or None))
        return 0

    code, _, notes, error = captured(listed)
    return Answered(code, output=rows[0] if rows else "", notes=notes, error=error).encode()


def _waits(ctx: Ctx, req: Message, host: str) -> str:
    """The asks a wait of seat `seat` here waits on from `on` (a seat of the asking machine)."""
    from hail.store import conversation, fs, waits

    seat, on = req.get("seat"), req.get("on")
    found = []
    names = fs.list_names(waits.waits_dir(ctx.store))
    for w in waits.live(ctx.store, ctx.now(), names):
        if conversation.seat_of_mailbox(w.waiter) != seat:
            continue
        for ask, target in zip(w.asks, w.targets, strict=True):
            if conversation.seat_of_mailbox(target) == on and not conversation.replies_in_seat(
                ctx.store, ask, seat
            ):
                found.append(ask)
    return wire.answer(0, {"asks": " ".join(found)})


def _hello(ctx: Ctx, req: Message, host: str) -> str:
    from hail import __version__

    return wire.answer(0, {"version": __version__, "host": wire.own_host(ctx.env)})


OPS: dict[str, Callable[[Ctx, Message, str], str]] = {
    "status": _status,
    "ack": _ack,
    "waits": _waits,
    "hello": _hello,
}


def answer(ctx: Ctx, req: Message, listing: Listing) -> str:
    """The answer to one request, as the text the near side reads."""
    if req.get(wire.MARK) != wire.PROTOCOL:
        return refused(
            f"this hail speaks peer protocol {wire.PROTOCOL}, the sender {req.get(wire.MARK)}: "
            "run the same hail version on both machines"
        ).encode()
    op = req.get("op")
    if op == "send":
        return accept(ctx, req).encode()
    if op == "seats":
        return _seats(ctx, req, listing)
    run = OPS.get(op)
    if run is None:
        return refused(
            f"no peer request '{op}' here: run the same hail version on both machines"
        ).encode()
    return run(ctx, req, sender_host(ctx, req, ""))


def peer(listing: Listing) -> int:
    """Read one request on stdin, write its answer to stdout; exit 0 once answered. `listing`
    answers `seats @<host>` with this machine's seat rows."""
    data = b"" if os.isatty(0) else sys.stdin.buffer.read(policy.PEER_MAX_BYTES + 1)
    real = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    req = wire.read(data) if len(data) <= policy.PEER_MAX_BYTES else None
    if req is None:
        said = refused("no hail remote-peer request on stdin (it is run by hail over ssh)").encode()
    else:
        try:
            said = answer(Ctx.from_env(), req, listing)
        except HailError as e:
            said = refused(e.message).encode()
        except Exception as e:  # the near side must hear why, not guess from silence
            from hail.hooks.protocol import log_error

            log_error(None, "remote-peer", e)
            said = refused(f"internal error there: {e}; see its hook-errors.log").encode()
    with os.fdopen(real, "wb") as out:
        out.write(said.encode("utf-8", "surrogateescape"))
    return 0
