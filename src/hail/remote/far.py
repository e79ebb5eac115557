"""`hail remote-peer`: the far side of another machine's hail [docs/seats.md "Other machines"].

ssh runs this fixed command; the request (a message file whose first header is `hail-peer:`)
comes on stdin and the answer goes to stdout, so nothing of a message is ever a word a shell
reads. A send files and wakes as a local send does, under the id its sender chose: a second copy
of an id this state holds is refused, so a retry after a dropped connection files nothing twice.
A message from another machine signs as `<seat>@<host>`, a host other than this one, so it can
never pass for a local seat.
"""

from __future__ import annotations

import os
import sys

from hail import ids, policy, wire
from hail.context import Ctx
from hail.errors import HailError
from hail.seat import is_host_name, parse_mailbox, parse_target
from hail.store import remote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hail.message import Message

    Answer = tuple[int, dict[str, str], str]


def captured(run: Callable[[], int]) -> tuple[int, str, str]:
    """Run with stdout and stderr kept (hail's error as its `error:` line); fd 1 and 2 go to
    /dev/null meanwhile, so nothing a child process prints can mix with the answer."""
    import io

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = run()
    except remote.AlreadyFiled:
        raise
    except HailError as e:
        code = e.exit_code
        err.write(f"error: {e.message}\n")
    finally:
        sys.stdout, sys.stderr = saved
    return code, out.getvalue(), err.getvalue()


#: Room an answer keeps for its own headers within PEER_MAX_BYTES.
_ANSWER_HEADROOM = 4096


def _refused(why: str) -> Answer:
    return 1, {"filed": "no"}, wire.pack(["", f"error: {why}\n"])


def sender_host(ctx: Ctx, req: Message, pinned: str) -> str:
    """The sender's machine: the one this hail reached (a fetch), else what the ssh key's
    authorized_keys line pins (HAIL_PEER_HOST), else what the request says."""
    return pinned or ctx.env.get("HAIL_PEER_HOST", "") or req.get("from-host")


def accept(ctx: Ctx, req: Message, pinned: str = "") -> Answer:
    """File and wake a send from another machine, as if it were sent here."""
    host, seat, msg_id = sender_host(ctx, req, pinned), req.get("from-seat"), req.get("id")
    if not is_host_name(host) or parse_mailbox(seat) is None:
        return _refused("the sender's seat or host is not a plain name")
    if host == wire.own_host(ctx.env):
        return _refused(f"a message from another machine cannot sign as this machine ({host})")
    if not ids.is_message_id(msg_id):
        return _refused("the id is not a message id")
    addr = parse_target(req.get("to")) if req.get("to") else None
    if addr is None or addr.host or addr.pane_target or (addr.pane and not addr.sub):
        return _refused("the target is not a seat or sub-seat of this machine")
    if os.path.lexists(ctx.store.id_path(msg_id)):
        return _duplicate(ctx, msg_id)
    from hail.letter import Written, letter
    from hail.send import pipeline
    from hail.send.authors import Peer

    written = Written(
        req.get("to"),
        req.get("kind"),
        req.get("ask"),
        re=req.get("re") or None,
        scope=req.get("scope") or None,
        span=req.get("for") or None,
    )
    body = req.body if req.get("has-body") == "yes" else None
    sent: list[pipeline.Sent] = []

    def file() -> int:
        # Built again here, with this machine's rules and cap: another machine's word is checked.
        built = letter(written, body, ctx.cap)
        sent.append(
            pipeline.file_and_wake(
                ctx,
                Peer(wire.address(seat, host), msg_id),
                written.target,
                built,
                no_wake=req.get("no-wake") == "yes",
                no_submit=req.get("no-submit") == "yes",
            )
        )
        return sent[0].code

    try:
        code, out, err = captured(file)
    except remote.AlreadyFiled:
        return _duplicate(ctx, msg_id)
    filed = sent[0].filed if sent else None
    return code, {"filed": "yes" if filed is not None else "no"}, wire.pack([out, err])


def _duplicate(ctx: Ctx, msg_id: str) -> Answer:
    receipt = ctx.store.status(msg_id).line()
    return 0, {"filed": "duplicate", "receipt": receipt}, wire.pack(["", ""])


# --- the other requests ----------------------------------------------------------------------


def _status(ctx: Ctx, req: Message, host: str) -> Answer:
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
    return 0, {}, wire.pack([lines, *kept])


def _ack(ctx: Ctx, req: Message, host: str) -> Answer:
    if is_host_name(host):
        remote.release(ctx.store.root, host, req.get("ids").split())
    return 0, {}, ""


def _seats(ctx: Ctx, req: Message, host: str) -> Answer:
    from hail.commands import panes

    code, out, err = captured(lambda: panes.seats(ctx, req.get("seat") or None))
    return code, {}, wire.pack([out, err])


def _waits(ctx: Ctx, req: Message, host: str) -> Answer:
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
    return 0, {"asks": " ".join(found)}, ""


def _hello(ctx: Ctx, req: Message, host: str) -> Answer:
    from hail import __version__

    return 0, {"version": __version__, "host": wire.own_host(ctx.env)}, ""


OPS: dict[str, Callable[[Ctx, Message, str], Answer]] = {
    "status": _status,
    "ack": _ack,
    "seats": _seats,
    "waits": _waits,
    "hello": _hello,
}


def answer(ctx: Ctx, req: Message) -> Answer:
    if req.get(wire.MARK) != wire.PROTOCOL:
        return _refused(
            f"this hail speaks peer protocol {wire.PROTOCOL}, the sender {req.get(wire.MARK)}: "
            "run the same hail version on both machines"
        )
    op = req.get("op")
    if op == "send":
        return accept(ctx, req)
    run = OPS.get(op)
    if run is None:
        return _refused(f"no peer request '{op}' here: run the same hail version on both machines")
    return run(ctx, req, sender_host(ctx, req, ""))


def peer() -> int:
    """Read one request on stdin, write its answer to stdout; exit 0 once answered."""
    data = b"" if os.isatty(0) else sys.stdin.buffer.read(policy.PEER_MAX_BYTES + 1)
    real = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    req = wire.read(data) if len(data) <= policy.PEER_MAX_BYTES else None
    if req is None:
        code, fields, body = _refused(
            "no hail remote-peer request on stdin (it is run by hail over ssh)"
        )
    else:
        try:
            code, fields, body = answer(Ctx.from_env(), req)
        except HailError as e:
            code, fields, body = _refused(e.message)
        except Exception as e:  # the near side must hear why, not guess from silence
            from hail.hooks.protocol import log_error

            log_error(None, "remote-peer", e)
            code, fields, body = _refused(f"internal error there: {e}; see its hook-errors.log")
    with os.fdopen(real, "wb") as out:
        out.write(wire.answer(code, fields, body).encode("utf-8", "surrogateescape"))
    return 0
