"""Other machines as the verbs that read receipts and wait see them [docs/seats.md "Other
machines"]: `hail sent` of ids sent to other machines (each machine asked once), the replies they
kept for this one fetched (`inbox`, waits), and whether a wait across machines would cross one of
theirs. Each machine is a `remote/machine.Far`; every call within the caller's time.
"""

from __future__ import annotations

import os
import time

from hail import policy
from hail.errors import HailError
from hail.output import note
from hail.remote import wire
from hail.remote.machine import Far
from hail.store import remote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx


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
            answered = Far(ctx, host).status([i for i in asked if i not in kept], deadline)
        except HailError as e:  # unreachable, or no answer: nothing is known of its receipts
            if not quiet:
                note(e.message)
            answered = {}
        for i in asked:
            if i in answered:
                remote.note_receipt(ctx.store.root, i, answered[i])
            lines.setdefault(i, answered.get(i, "unknown (unreachable)"))
    return lines


def fetch(
    ctx: Ctx, hosts: list[str], *, backoff: bool = False, within: float = policy.REMOTE_LOOK_SECONDS
) -> None:
    """Fetch what these machines kept for this one, within `within` seconds; a machine out of
    reach is skipped. With `backoff`, a machine found out of reach within REMOTE_RETRY_SECONDS is
    not tried again."""
    root = ctx.store.root
    deadline = time.monotonic() + min(within, policy.REMOTE_LOOK_SECONDS)
    for host in hosts:
        since = remote.unreachable_since(root, host) if backoff else None
        if since is not None and ctx.now() - since < policy.REMOTE_RETRY_SECONDS:
            continue
        if deadline <= time.monotonic():
            return  # the caller's time is up: the next fetch asks
        try:
            Far(ctx, host).status([], deadline)
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
    from hail.store.conversation import seat_of_mailbox

    me = wire.address(seat_of_mailbox(waiter), wire.own_host(ctx.env))
    deadline = time.monotonic() + within
    for target in targets:
        mailbox, host = remote.split_address(target)
        left = deadline - time.monotonic()
        if not host or left <= 0:
            continue
        try:
            asks = Far(ctx, host).waits(seat_of_mailbox(mailbox), me, left)
        except HailError:
            continue  # out of reach: the wait still ends at its deadline
        if asks:
            return target, asks[0]
    return None
