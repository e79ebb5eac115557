"""Waiting for answers: `await --reply <id>…` and the wait of `ask --wait` [docs/conversations.md
"Waiting for a reply"].

A wait ends when a reply to each awaited ask (or to any, with `--any`) has arrived in this seat. It
claims the replies that are still unread (receipt `read`) and prints them framed exactly as
`hail inbox` does; replies a hook already delivered are printed again with their receipt line, so
the tool call that waited always shows its answer. A wait ends before the caller's tool call does
(policy: AWAIT_DEFAULT_TIMEOUT) and says that a late answer still arrives by the hooks.

Fast path like `await`: no click, libtmux or subprocess.
"""

from __future__ import annotations

import time

from hail import ids, policy
from hail.commands.receive import _Shown, write_claimed
from hail.context import Ctx
from hail.errors import StateError, UsageError, WaitCycleError
from hail.message import parse
from hail.output import flush
from hail.store import conversation, fs, waits
from hail.store.maildir import Mailbox

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType

    from hail.message import Message


# --- what is awaited -----------------------------------------------------------------------------


def own_ask(ctx: Ctx, seat: str, ask_id: str) -> tuple[Message, str]:
    """The awaited message and the mailbox it went to; it must have been sent from this seat."""
    if not ids.is_valid_user_id(ask_id):
        raise UsageError(f"'{ask_id}' is not a message id; hail brief lists your sends")
    found = ctx.store.find(ask_id)
    if found is None:
        raise StateError(f"no message with id {ask_id}; hail brief lists your sends")
    msg, receipt = found
    asker = msg.get("reply")
    if conversation.seat_of_mailbox(asker) != seat:
        raise StateError(
            f"{ask_id} was sent from {asker or 'another seat'}, not from {seat}: its replies go "
            f"there. Run hail await --reply {ask_id} from that seat"
        )
    return msg, receipt.mailbox


# --- the wait ------------------------------------------------------------------------------------


def _stop_on_term(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through `finally`: the wait record is removed


def begin(ctx: Ctx, wait: waits.Wait) -> None:
    """Record the wait, or refuse it at once when it would close a cycle of waits."""
    listed = waits.start(ctx.store, wait)
    path = waits.blocking_path(
        waits.live(ctx.store, ctx.now(), listed), wait, waits.settled(ctx.store)
    )
    if path is None:
        _refuse_far_crossing(ctx, wait)
        return
    waits.stop(wait)
    holder, ask_id = path[-1]
    holder_seat = conversation.seat_of_mailbox(holder.waiter)
    found = ctx.store.find(ask_id)
    about = f" ({found[0].headline})" if found is not None and found[0].headline else ""
    chain = "".join(f"{w.waiter} waits on {t}, and " for w, t in _links(path[:-1]))
    raise WaitCycleError(
        f"not waiting: {chain}{holder.waiter} is waiting for your reply to {ask_id}{about}, so the "
        "waits would block each other until they time out. Your own answer still arrives by your "
        f"hooks. Answer first: hail {holder_seat} fyi --re {ask_id} '<answer>'"
    )


def _refuse_far_crossing(ctx: Ctx, wait: waits.Wait) -> None:
    """A seat on another machine that waits on this waiter: refused as a local crossing is. Each
    side writes its record before it asks, so of two waits that cross at once at worst both give
    way, never neither [docs/conversations.md "Crossing waits"]."""
    from hail.store import remote

    if not any(remote.split_address(t)[1] for t in wait.targets):
        return
    from hail.remote import elsewhere  # only a wait across machines loads the remote wing

    found = elsewhere.crossing(ctx, wait.waiter, wait.targets, within=wait.deadline - ctx.now())
    if found is None:
        return
    waits.stop(wait)
    target, ask_id = found
    raise WaitCycleError(
        f"not waiting: {target} is waiting for your reply to {ask_id}, so the waits would block "
        "each other until they time out. Your own answer still arrives by your hooks. Answer "
        f"first: hail {target} fyi --re {ask_id} '<answer>'"
    )


def _links(path: list[tuple[waits.Wait, str]]) -> list[tuple[waits.Wait, str]]:
    """Each wait on the way with the mailbox it waits on (the target of its ask)."""
    return [(w, w.targets[w.asks.index(ask)]) for w, ask in path]


def wait_for(ctx: Ctx, wait: waits.Wait, seat: str) -> dict[str, list[tuple[str, str]]]:
    """Poll until the wait is satisfied or its deadline passes; the replies found per ask."""
    import signal  # only a wait needs it, and it costs a send a tenth of its time

    begin(ctx, wait)
    previous = signal.signal(signal.SIGTERM, _stop_on_term)
    found: dict[str, list[tuple[str, str]]] = {}
    fetch = _far_fetch(ctx, wait)
    try:
        refreshed = time.monotonic()
        while True:
            fetch()
            found = {a: conversation.replies_in_seat(ctx.store, a, seat) for a in wait.asks}
            got = [bool(found[a]) for a in wait.asks]
            left = wait.deadline - ctx.now()
            if (any(got) if wait.any_ else all(got)) or left <= 0:
                return found
            if time.monotonic() - refreshed >= policy.WAIT_HEARTBEAT_SECONDS:
                waits.refresh(wait)
                refreshed = time.monotonic()
            time.sleep(min(policy.AWAIT_POLL_SECONDS, left))
    finally:
        waits.stop(wait)
        signal.signal(signal.SIGTERM, previous)


def _far_fetch(ctx: Ctx, wait: waits.Wait) -> Callable[[], None]:
    """For asks to other machines: fetch the replies kept there, every REMOTE_FETCH_SECONDS,
    each fetch within what is left of the wait."""
    from hail.store import remote

    hosts = sorted({h for h in (remote.split_address(t)[1] for t in wait.targets) if h})
    last = [-policy.REMOTE_FETCH_SECONDS]

    def fetch() -> None:
        left = wait.deadline - ctx.now()
        due = time.monotonic() - last[0] >= policy.REMOTE_FETCH_SECONDS
        if hosts and due and left > 0:
            from hail.remote import elsewhere

            elsewhere.fetch(ctx, hosts, within=left)
            last[0] = time.monotonic()

    return fetch


# --- printing what arrived -----------------------------------------------------------------------


def show_replies(ctx: Ctx, replies: list[tuple[str, str]]) -> None:
    """Claim the unread replies (`read`) and print every reply framed, as `hail inbox` does."""
    items: list[_Shown] = []
    claims: list[tuple[Mailbox, str]] = []
    try:
        _take_replies(ctx, replies, items, claims)
    except BaseException:  # nothing printed yet: every reply claimed here is unread again
        for box, path in claims:
            box.give_back(path)
        raise
    if items:
        # Within the inbox's budget, every reply shown: one cut short is still claimed, since its
        # start and the `hail show` that prints the rest reached the agent.
        write_claimed(
            items,
            claims,
            "the replies",
            "they arrive with your next prompt or tool call",
            budget=policy.INBOX_MAX_BYTES,
            shared=True,
        )


def _take_replies(
    ctx: Ctx, replies: list[tuple[str, str]], items: list[_Shown], claims: list[tuple[Mailbox, str]]
) -> None:
    """Each reply read, claimed first when unread (the claim recorded before its file is read)."""
    for reply_id, name in replies:
        box = ctx.store.mailbox(name)
        path = box.claim(reply_id, "read")
        receipt: str | None = None
        if path is not None:
            claims.append((box, path))
        else:
            claimed = box.receipt_of(reply_id)
            if claimed is None:
                continue  # neither unread nor claimed here: archived or removed meanwhile
            how, t, path = claimed
            receipt = f"{how} {ids.iso(t)}"
        text = fs.read_text(path)
        if text is not None:
            items.append(_Shown(parse(text), receipt))


def _timed_out(asks: list[str], missing: list[str], timeout: float) -> StateError:
    what = " ".join(missing)
    again = " ".join(asks)
    return StateError(
        f"no reply to {what} within {timeout:g} s. It still arrives by your hooks (typed into "
        "your pane when you are idle, or with your next tool call): do not resend; carry on, or "
        f"wait again with hail await --reply {again}"
    )


def settle(ctx: Ctx, wait: waits.Wait, seat: str, timeout: float) -> int:
    """Wait, print what arrived, and return 0 or raise the timeout."""
    found = wait_for(ctx, wait, seat)
    arrived = [r for a in wait.asks for r in found[a]]
    show_replies(ctx, arrived)
    missing = [a for a in wait.asks if not found[a]]
    if missing and (not arrived or not wait.any_):
        raise _timed_out(wait.asks, missing, timeout)
    return 0


# --- the verbs -----------------------------------------------------------------------------------


def await_replies(
    ctx: Ctx,
    asks: list[str],
    timeout: float | None,
    *,
    any_: bool,
) -> int:
    """`hail await --reply <id>… [--timeout S] [--any]`."""
    if not asks:
        raise UsageError("await --reply needs the id of at least one ask you sent")
    seat = ctx.seat_here()
    ctx.bind(seat)
    awaited = [own_ask(ctx, seat.name, a) for a in asks]
    limit = ctx.default_wait() if timeout is None else timeout
    wait = waits.Wait(
        awaited[0][0].get("reply"),
        list(asks),
        [box for _, box in awaited],
        any_=any_,
        deadline=ctx.now() + limit,
    )
    return settle(ctx, wait, seat.name, limit)


def after_send(
    ctx: Ctx,
    asker: str,
    ask_id: str,
    to: str,
    timeout: float | None,
) -> int:
    """The wait of `ask --wait`, once the ask is filed; its exit code replaces the send's."""
    seat = conversation.seat_of_mailbox(asker)
    if timeout is None:  # the default holds the send and the wait, to fit one tool call
        limit = ctx.default_wait()
        deadline = max(ctx.born + limit, ctx.now())
    else:
        limit = timeout
        deadline = ctx.now() + limit
    wait = waits.Wait(asker, [ask_id], [to], any_=False, deadline=deadline)
    flush()  # the id line is out before the wait starts
    return settle(ctx, wait, seat, limit)
