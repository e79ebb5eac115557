"""This machine or another, as a verb names it [docs/seats.md "Other machines"]: one object
answers a send, `hail seats` and `hail doctor` wherever they go (`Here`, or `There`: another
machine through the remote wing's `Far`), so no verb forks on a host. A host that is this
machine's own name (`HAIL_HOST`, else its short host name) is here.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.commands.send import SendArgs
    from hail.context import Ctx
    from hail.letter import Letter


class Machine:
    """Where a send, a seats listing or a doctor's check runs."""

    def send(self, ctx: Ctx, args: SendArgs, letter: Letter, target: str) -> int:
        """File `letter` for `target` (a seat, sub-seat or pane of this machine) and wake it;
        with `--wait`, then wait for the reply."""
        raise NotImplementedError

    def seats(self, ctx: Ctx, seat: str | None, *, as_json: bool = False) -> int:
        raise NotImplementedError

    def doctor(self, ctx: Ctx) -> int:
        raise NotImplementedError


class Here(Machine):
    """This machine: the local commands."""

    def send(self, ctx: Ctx, args: SendArgs, letter: Letter, target: str) -> int:
        from hail.commands.send import send
        from hail.reserved import ALL
        from hail.send.authors import Local

        local = Local(ctx)
        if target == ALL:
            from hail.send.broadcast import broadcast

            options = {"no_wake": args.no_wake, "no_submit": args.no_submit}
            return broadcast(ctx, local, local.seat.name, letter, **options)
        return send(ctx, args, letter, local, target=target)

    def seats(self, ctx: Ctx, seat: str | None, *, as_json: bool = False) -> int:
        from hail.commands.panes import seats

        return seats(ctx, seat, as_json=as_json)

    def doctor(self, ctx: Ctx) -> int:
        from hail.commands.doctor import doctor

        return doctor(ctx)


class There(Machine):
    """Another machine, reached through the remote wing (`remote/machine.Far`)."""

    __slots__ = ("host",)

    def __init__(self, host: str) -> None:
        self.host = host

    def send(self, ctx: Ctx, args: SendArgs, letter: Letter, target: str) -> int:
        from hail.commands.send import waited
        from hail.remote.machine import Far

        far = Far(ctx, self.host)
        sent = far.send(target, letter, no_wake=args.no_wake, no_submit=args.no_submit)
        return waited(ctx, args, sent)

    def seats(self, ctx: Ctx, seat: str | None, *, as_json: bool = False) -> int:
        from hail.commands.panes import show_rows
        from hail.remote.machine import Far

        now = ctx.now()
        rows = Far(ctx, self.host).seat_rows(now)
        return show_rows(rows, now, None, as_json=as_json, host=self.host)

    def doctor(self, ctx: Ctx) -> int:
        from hail.remote.machine import Far

        return Far(ctx, self.host).doctor()


def of(ctx: Ctx, host: str) -> Machine:
    """The machine `host` names: here for none or this machine's own name, else there."""
    if host:
        from hail.remote.wire import own_host

        if host != own_host(ctx.env):
            return There(host)
    return Here()
