"""Each verb's run, from its parsed line to its command: the one dispatch table.

A run imports its command only when it is called, so a hook verb loads nothing of the others.
`RUNS` has an entry for every verb of `argv.TABLE` (a test checks).
"""

from __future__ import annotations

import os
import sys

from hail.argv import PARSER_TAIL, Call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hail.commands.send import SendArgs
    from hail.context import Ctx


def _ctx(call: Call | None = None) -> Ctx:
    """This process's context; as the person's seat when `--as person` was given and this process
    may speak as the person (else PersonError, exit 7, before anything is read or written)."""
    from hail.context import Ctx

    if call is None or not call.flag("as_person"):
        return Ctx.from_env()
    from hail.person import require_person

    ctx = Ctx.from_env(as_person=True)
    require_person(ctx.env, ctx.procs())
    return ctx


def send_args(call: Call) -> SendArgs:
    """The send's parsed line, validated: refused before stdin is read or anything is written."""
    from hail.commands import send
    from hail.letter import Written

    written = Written(
        call.text("target") or "",
        call.text("kind"),
        call.text("headline"),
        re=call.text("re"),
        scope=call.text("scope"),
        span=call.text("for"),
        body=call.text("body"),
    )
    args = send.SendArgs(
        written,
        no_submit=call.flag("no_submit"),
        no_wake=call.flag("no_wake"),
        wait=call.flag("wait"),
        wait_timeout=call.number("wait_value"),
    )
    send.validate(args)
    return args


def _send(call: Call) -> int:
    if sys.stdout is None:
        # fd 1 closed: the send still types and reports its status; only `id=` goes nowhere.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (lives as long as the process)
    from hail.commands import machines
    from hail.letter import letter
    from hail.seat import parse_target
    from hail.stdin import read_body

    args = send_args(call)
    addr = parse_target(args.target)
    ctx = _ctx(call)
    built = letter(args.written, read_body(), ctx.cap)  # once, wherever it is filed
    target = addr.mailbox if addr.host else args.target
    return machines.of(ctx, addr.host).send(ctx, args, built, target)


def _deliver(call: Call) -> int:
    from hail.hooks.deliver import deliver

    return deliver(call.text("format"), call.text("event") or "UserPromptSubmit")


def _listen(call: Call) -> int:
    from hail.errors import UsageError

    if call.text("format") is None:
        raise UsageError(f"listen needs --format claude (it is a hook){PARSER_TAIL}")
    from hail.hooks.listen import listen

    return listen(call.text("format") or "")


def _brief(call: Call) -> int:
    from hail.hooks import brief

    if call.flag("hook"):
        return brief.brief_hook(all_=call.flag("all"), fmt=call.text("format"))
    return brief.brief(_ctx(call), all_=call.flag("all"))


def _sent(call: Call) -> int:
    from hail.commands import receive

    return receive.sent(_ctx(call), call.texts("ids"))


def _await(call: Call) -> int:
    ctx = _ctx(call)
    timeout = call.number("timeout")
    if call.flag("reply"):
        from hail.commands import converse

        return converse.await_replies(ctx, call.texts("ids"), timeout, any_=call.flag("any"))
    from hail.commands import receive

    timeout = ctx.default_wait() if timeout is None else timeout
    return receive.await_(ctx, call.texts("ids"), timeout, any_=call.flag("any"))


def _inbox(call: Call) -> int:
    from hail.commands import receive

    return receive.inbox(_ctx(call), peek=call.flag("peek"), all_=call.flag("all"))


def _show(call: Call) -> int:
    from hail.commands import receive

    start = call.number("from")
    return receive.show(_ctx(call), call.text("id") or "", 0 if start is None else int(start))


def _whoami(call: Call) -> int:
    from hail.commands import whoami

    return whoami.whoami(_ctx(call), as_json=call.flag("json"))


def _seats(call: Call) -> int:
    from hail.commands import machines

    seat = call.text("seat")
    far = seat is not None and seat.startswith("@")
    host = _host(seat[1:]) if far and seat is not None else ""
    return machines.of(_ctx(), host).seats(_ctx(), None if far else seat, as_json=call.flag("json"))


def _host(text: str) -> str:
    from hail.errors import UsageError
    from hail.seat import is_host_name

    if not is_host_name(text):
        raise UsageError(f"'{text}' is not a host: a Host alias of your ssh config, or a host name")
    return text


def _watch(call: Call) -> int:
    if call.flag("once") or call.flag("json"):
        from hail.watch import render

        return render.once(_ctx(), call.text("seat"), as_json=call.flag("json"))
    from hail.watch import app  # the full-screen view: the only module that imports textual

    return app.run(_ctx(), call.text("seat"))


def _nudge(call: Call) -> int:
    from hail.commands.nudge import nudge

    return nudge(_ctx(), call.text("target") or "")


def _read(call: Call) -> int:
    from hail import policy
    from hail.commands import panes

    lines = call.number("lines")
    return panes.read(_ctx(), call.text("target") or "", int(lines or policy.READ_DEFAULT_LINES))


def _type(call: Call) -> int:
    from hail.commands import panes

    return panes.type_(_ctx(), call.text("target") or "", call.text("text") or "")


def _keys(call: Call) -> int:
    from hail.commands import panes

    return panes.keys(_ctx(), call.text("target") or "", call.texts("keys"))


def _setup(call: Call) -> int:
    from hail.commands.setup import run_setup

    return run_setup(
        os.environ,
        call.flag("check"),
        call.flag("yes"),
        call.flag("trust_codex"),
        sys.stdout,
        sys.stdin,
        call.text("program"),
    )


def _doctor(call: Call) -> int:
    from hail.commands import machines

    host = call.text("host")
    return machines.of(_ctx(), _host(host) if host is not None else "").doctor(_ctx())


def _peer(call: Call) -> int:
    from hail.commands.panes import far_listing
    from hail.remote.far import peer

    return peer(listing=far_listing)


def _gc(call: Call) -> int:
    from hail import policy
    from hail.commands import gc

    days = call.number("days")
    return gc.gc(_ctx(), int(days) if days is not None else policy.GC_DEFAULT_DAYS)


def _demo(call: Call) -> int:
    from hail.commands.demo import demo

    return demo(os.environ)


def _version(call: Call) -> int:
    from hail import __version__
    from hail.output import emit

    if call.flag("json"):
        emit(f'{{"name":"hail","version":"{__version__}"}}')
    else:
        emit(f"hail {__version__}")
    return 0


def _help(call: Call) -> int:
    from hail import help as pages
    from hail.errors import UsageError

    topic = call.text("topic")
    text = pages.page(topic)
    if text is None:
        raise UsageError(f"no help for '{topic}'. Topics: {' '.join(pages.TOPICS)}")
    sys.stdout.write(text)
    return 0


RUNS: dict[str, Callable[[Call], int]] = {
    "send": _send,
    "sent": _sent,
    "await": _await,
    "nudge": _nudge,
    "inbox": _inbox,
    "show": _show,
    "brief": _brief,
    "deliver": _deliver,
    "listen": _listen,
    "whoami": _whoami,
    "seats": _seats,
    "watch": _watch,
    "read": _read,
    "type": _type,
    "keys": _keys,
    "setup": _setup,
    "doctor": _doctor,
    "remote-peer": _peer,
    "gc": _gc,
    "demo": _demo,
    "version": _version,
    "help": _help,
}
