"""`hail doctor`: one line per check (`ok`, `FIX`, `note`) in the order of docs/commands.md
"doctor"; writes nothing.

Exit 1 when any line is a `FIX`. Notes (steps 9–13) never change the exit code. The seat is only
compared with its binding, never bound. The mailbox checks share one scan with `hail gc`, so "gc is
due" is exactly what gc would do with the default age; that scan is the only work that grows with
history (one listing of each `new/` and `cur/`, one stat per read message).
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from typing import TYPE_CHECKING

from hail import __version__, policy
from hail.context import Ctx
from hail.errors import HailError
from hail.harnesses import registry
from hail.output import emit
from hail.seat import Seat, parse_mailbox
from hail.store import fs
from hail.store import gc as store_gc
from hail.text import one_line

if TYPE_CHECKING:
    from hail.diagnosis import Unread
    from hail.output import Check
    from hail.transport.panes import Panes

PREFIX: dict[Check, str] = {"ok": "ok   ", "FIX": "FIX  ", "note": "note "}


class _Lines:
    """Prints each check as it is made and remembers whether any needs fixing."""

    def __init__(self) -> None:
        self.failed = False

    def say(self, status: Check, text: str) -> None:
        if status == "FIX":
            self.failed = True
        # Paths and markers come from the filesystem: one clean line, whatever their bytes.
        emit(PREFIX.get(status, "note ") + one_line(text))


def doctor(ctx: Ctx) -> int:
    out = _Lines()
    store = ctx.store
    now = ctx.now()
    _check_root(ctx, out)
    _check_cap(ctx, out)
    seat = _check_seat(ctx, out)
    panes = _check_tmux(ctx, seat, out)
    _check_hooks(ctx, out)
    out.say("ok", _process_line(ctx))  # what the agents' processes are read with, below
    _check_hooks_run(ctx, panes, out)
    _note_gauges(ctx, panes, out)
    if os.path.isdir(store.root):
        try:
            plan = store_gc.scan(store, now, policy.GC_DEFAULT_DAYS)
        except OSError as e:
            # doctor is what one runs on a broken state: say what cannot be read, do not crash
            out.say(
                "FIX", f"cannot read the state in {store.root} ({e}): check its owner and modes"
            )
            return 1
        _check_size(plan, out)
        _check_foreign_mail(ctx, plan, out)
        _note_unseen(ctx, plan, panes, out)
        _note_deleted(plan, out)
        _note_dead_waits(plan, out)
        _note_gc_due(plan, out)
        _note_hook_errors(ctx, now, out)
        _note_special_files(ctx, out)
    return 1 if out.failed else 0


# --- steps 1–3: the install and the state root --------------------------------------------------


def _check_root(ctx: Ctx, out: _Lines) -> None:
    root = ctx.store.root
    out.say("ok", f"hail {__version__} — state {root}")
    try:
        mode = os.stat(root).st_mode
    except OSError:
        return
    if mode & 0o077:
        out.say(
            "FIX",
            f"state {root} is readable by others (mode {mode & 0o7777:o}): run chmod 700 {root}",
        )
    if os.path.isdir(os.path.join(root, "inbox")):
        out.say(
            "note",
            f"0.3 state in {root} is ignored; to import it, run migrate with hail 0.5.x first",
        )
    _check_state_owner(ctx, out)


def _process_line(ctx: Ctx) -> str:
    """Which backend answers hail's process questions [docs/transport.md "Processes"]."""
    from hail.process.choose import BACKEND_ENV

    forced = f", as {BACKEND_ENV} asks" if ctx.env.get(BACKEND_ENV) else ""
    if ctx.procs().name == "proc":
        return f"processes: read from /proc{forced}"
    return f"processes: ps and lsof (portable{forced or ': no readable /proc'})"


def _check_state_owner(ctx: Ctx, out: _Lines) -> None:
    """A state root, or a directory in it, that another user owns or may write."""
    try:
        ctx.store.check_trusted(ctx.store.mailbox_names())
    except HailError as e:
        out.say("FIX", e.message)


def _check_cap(ctx: Ctx, out: _Lines) -> None:
    value = ctx.env.get("HAIL_ENVELOPE_MAX")
    if value is not None and _is_cap(value) and ctx.cap < int(value.strip()):
        out.say("note", f"HAIL_ENVELOPE_MAX={value} is over {ctx.cap}; the cap is {ctx.cap}")
    if value is not None and not _is_cap(value):
        out.say(
            "note",
            f"HAIL_ENVELOPE_MAX={value} is not a number of at least {policy.MIN_ENVELOPE_MAX}; "
            f"the cap is {policy.DEFAULT_ENVELOPE_MAX}",
        )


def _is_cap(value: str) -> bool:
    try:
        return int(value.strip()) >= policy.MIN_ENVELOPE_MAX
    except ValueError:
        return False


# --- steps 4–6: this seat, tmux, the hooks ------------------------------------------------------


def _check_seat(ctx: Ctx, out: _Lines) -> Seat | None:
    """Compare only: a conflicting binding is reported, nothing is bound."""
    try:
        seat = ctx.seat()
        if seat is not None:
            ctx.store.check_binding(seat)
    except HailError as e:
        out.say("FIX", e.message)
        return None
    _note_ignored_markers(ctx, out)
    if seat is None:
        out.say("ok", f"no seat here ({ctx.cwd}); fine outside a workspace")
    else:
        out.say("ok", f"seat here: {seat.name} ({seat.source}, {seat.root})")
    return seat


def _note_ignored_markers(ctx: Ctx, out: _Lines) -> None:
    """Markers the seat walk skipped because another user could have written them."""
    from hail.seat import find_seat

    ignored: list[str] = []
    with contextlib.suppress(HailError):  # reported by the seat check itself
        find_seat(ctx.cwd, ctx.home, ignored)
    for line in ignored:
        out.say(
            "note",
            f'{line}; another user could have written it (docs/seats.md "Seat of a directory"). '
            "Use a directory "
            "only you can write, or add .hail-seat to your own workspace",
        )


def _check_tmux(ctx: Ctx, seat: Seat | None, out: _Lines) -> Panes | None:
    """The pane list, or None when tmux cannot be reached (then no pane-based notes)."""
    from hail.sandbox import socket_refused
    from hail.transport.panes import survey
    from hail.transport.tmux import SocketError, Tmux, default_socket

    try:
        tmux = Tmux.from_env(ctx.env)
    except SocketError as e:
        out.say("FIX", e.message)
        return None
    except HailError as e:  # no server on tmux's default socket
        out.say("FIX", f"tmux (default server): {e.message}; start tmux or set HAIL_SOCKET")
        return None
    try:
        panes = survey(tmux, ctx.env, ctx.home)
    except HailError as e:
        refused = socket_refused(tmux.socket or default_socket(ctx.env))
        out.say(
            "FIX", refused or f"tmux ({tmux.source}): {e.message}; start tmux or set HAIL_SOCKET"
        )
        return None
    agents = sum(1 for p in panes.panes if p.agent)
    out.say("ok", f"tmux ({tmux.source}): {len(panes.panes)} panes, {agents} agents")
    if seat is not None:
        out.say("ok", _wake_line(seat.name, [p.id for p in panes.agents_in(seat.name)]))
    return panes


def _wake_line(seat: str, agents: list[str]) -> str:
    if not agents:
        return f"no agent pane in seat {seat} (mail waits for the next session)"
    if len(agents) == 1:
        return f"wake pane for {seat}: {agents[0]}"
    return (
        f"seat {seat} is shared by {len(agents)} agents ({' '.join(agents)}): "
        f"each Claude pane is addressed as {seat}@<pane>"
    )


def _check_hooks(ctx: Ctx, out: _Lines) -> None:
    from hail.install.checks import doctor_hook_lines

    for status, text in doctor_hook_lines(ctx.env):
        out.say(status, text)


# --- step 7: the hooks run ----------------------------------------------------------------------


def _check_hooks_run(ctx: Ctx, panes: Panes | None, out: _Lines) -> None:
    from hail.install.hook_check import hook_run_lines, silent_agent_lines

    for status, text in hook_run_lines(ctx, panes) + silent_agent_lines(ctx, panes):
        out.say(status, text)
    for text in _native_route_notes(ctx, panes):
        out.say("note", text)


def _native_route_notes(ctx: Ctx, panes: Panes | None) -> list[str]:
    """Agents a send can only type into [docs/transport.md "Routes"], as each agent's route notes
    them: a Claude Code session with no live waiter (`diagnosis.missing_waiter`, as `hail watch`
    flags it), a Codex whose thread hail's hooks have not seen, or one without its daemon."""
    from hail.transport.routes.registry import of_agent

    if panes is None:
        return []
    notes: list[str] = []
    now = ctx.now()
    for pane in panes.panes:
        if pane.agent not in registry.NAMES or pane.seat is None:
            continue
        pid = ctx.procs().agent_pid(pane.pid, pane.agent)
        started = ctx.procs().started_at(pid) if pid is not None else None
        if started is None or now - started < policy.DOCTOR_AGENT_GRACE_SECONDS:
            continue
        notes += of_agent(pane.agent).notes(ctx, pane, started)
    return notes


def _note_gauges(ctx: Ctx, panes: Panes | None, out: _Lines) -> None:
    """Agents about to compact (`diagnosis.about_to_compact`, as `hail watch` flags them), and a
    config.toml the gauge refuses [docs/gauge.md "Compaction"]."""
    from hail import diagnosis
    from hail.config import FIX, Followed
    from hail.gauge.agents import Agents, compaction
    from hail.transport.routes.records import server_socket

    config = Followed(ctx.env)
    if config.look() is None:
        out.say("note", diagnosis.config_refused(config.refused, FIX).line())
        return
    if panes is None:
        return
    agents = Agents(ctx.store, server_socket(ctx.env), config.config)
    for pane_id, (_, figures) in agents.of_panes(panes.panes, ctx.procs()).items():
        pane = panes.get(pane_id)
        assert pane is not None and pane.agent is not None
        found = compaction(pane_id, pane.seat or "", pane.agent, figures)
        trouble = diagnosis.about_to_compact(found) if found is not None else None
        if trouble is not None:
            out.say("note", trouble.line())


# --- steps 8–11: the mailboxes ------------------------------------------------------------------


def _check_size(plan: store_gc.Scan, out: _Lines) -> None:
    for name in sorted(plan.boxes):
        box = plan.boxes[name]
        if box.claimed > policy.DOCTOR_CUR_MAX:
            out.say("FIX", f"seat {name} keeps {box.claimed} read messages: run hail gc")


def _check_foreign_mail(ctx: Ctx, plan: store_gc.Scan, out: _Lines) -> None:
    """Unread files another user owns (written by `sudo hail`, say): no reader can mark them read."""
    me = os.geteuid()
    for name in sorted(plan.boxes):
        if not plan.boxes[name].unread:
            continue
        box = ctx.store.mailbox(name)
        foreign = [u for u in box.unread() if _owner(u.path) not in (me, None)]
        if foreign:
            out.say(
                "FIX",
                f"seat {name} has {len(foreign)} unread message(s) owned by another user "
                f"(uid {_owner(foreign[0].path)}), which hail cannot mark read: "
                f"run sudo chown {me} {box.new}/*.md",
            )


def _owner(path: str) -> int | None:
    try:
        return os.stat(path).st_uid
    except OSError:
        return None


def _note_unseen(ctx: Ctx, plan: store_gc.Scan, panes: Panes | None, out: _Lines) -> None:
    """Mailboxes with unread mail that no hook, agent or pane will pick up (`diagnosis.unseen`, as
    `hail watch` flags them); largest first."""
    from hail import diagnosis

    unseen = []
    for box in plan.boxes.values():
        if box.unread:
            found = diagnosis.unseen(_unread(ctx, box, panes), plan.now)
            if found is not None:
                unseen.append((box.unread, box.name, found))
    unseen.sort(key=lambda u: (-u[0], u[1]))
    shown = unseen[: policy.DOCTOR_UNREAD_LINES]
    for _, _, trouble in shown:
        out.say("note", trouble.line())
    rest = unseen[len(shown) :]
    if rest:
        total = sum(n for n, _, _ in rest)
        out.say(
            "note",
            f"… {len(rest)} more mailboxes with {total} unread that nobody reads "
            "(hail seats: UNREAD, AGENTS and HOOK)",
        )


def _unread(ctx: Ctx, box: store_gc.BoxScan, panes: Panes | None) -> Unread:
    """A mailbox as the unseen rule reads it: its agents are the seat's, or a sub-seat's pane's."""
    from hail.diagnosis import Unread

    seat, pane = parse_mailbox(box.name) or (box.seat, "")
    unread = ctx.store.mailbox(box.name).unread()
    root = ctx.store.bound_root(seat)
    in_seat = [p for p in panes.panes if p.seat == seat] if panes is not None else []
    agents = [p for p in in_seat if p.agent is not None and (not pane or p.id == pane)]
    only = in_seat[0].id if len(in_seat) == 1 else ""
    return Unread(
        mailbox=box.name,
        seat=seat,
        unread=box.unread,
        oldest=unread[0].id if unread else "<id>",
        hooked=box.hooked,
        root=root,
        root_gone=root is not None and not os.path.isdir(root),
        looked=panes is not None,
        agents=len(agents),
        pane_gone=bool(pane) and all(p.id != pane for p in in_seat),
        pane=agents[0].id if agents else pane or only,
    )


def _note_deleted(plan: store_gc.Scan, out: _Lines) -> None:
    for d in plan.deleted:
        when = (
            "now"
            if d.due(plan.now, plan.days)
            else "from " + time.strftime("%Y-%m-%d", time.gmtime(d.archivable_at(plan.days)))
        )
        out.say(
            "note",
            f"seat {d.seat} lives in {d.root}, which is gone; {d.unread} unread; "
            f"hail gc archives its mailbox {when}",
        )


def _note_dead_waits(plan: store_gc.Scan, out: _Lines) -> None:
    shown = plan.dead_waits[: policy.DOCTOR_UNREAD_LINES]
    for path, why in shown:
        name = os.path.basename(path)
        out.say("note", f"waits/{name} counts for nothing ({why}): run hail gc")
    if len(plan.dead_waits) > len(shown):
        out.say(
            "note", f"… {len(plan.dead_waits) - len(shown)} more wait records that block nobody"
        )


def _note_gc_due(plan: store_gc.Scan, out: _Lines) -> None:
    counts = (
        (len(plan.stale), f"read messages older than {plan.days} days"),
        (len(plan.due_mailboxes), "mailboxes of deleted workspaces"),
        (len(plan.holds), "lapsed holds"),
        (len(plan.unfinished), "unfinished writes in tmp/"),
        (len(plan.dead_waits), "wait records that block nobody"),
    )
    parts = [f"{n} {what}" for n, what in counts if n]
    if parts:
        out.say("note", f"gc is due: {', '.join(parts)}: run hail gc")


# --- step 12: hook errors -----------------------------------------------------------------------


def _note_hook_errors(ctx: Ctx, now: float, out: _Lines) -> None:
    from hail import diagnosis

    text = fs.read_text(ctx.store.hook_log)
    found = diagnosis.hook_errors(text, now) if text else None
    if found is not None:
        out.say("note", diagnosis.hook_errors_trouble(found, ctx.store.hook_log).line())


# --- step 13: files that are not files ----------------------------------------------------------

_SPECIAL = (
    (stat.S_ISLNK, "a symlink"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)
#: Each odd shape's consequence, for the line that names it.
_IGNORED = {"a symlink": "hail never follows it"}


def _odd(path: str) -> str | None:
    """What a path is when it is a symlink, FIFO, socket or device (never followed), else None."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return next((what for test, what in _SPECIAL if test(mode)), None)


def _odd_shapes(ctx: Ctx) -> list[tuple[str, str, str]]:
    """(path, kind, what is expected there) of every odd shape where hail keeps its files: in
    `seats/`, a mailbox's directories, and the files of the directories hail reads."""
    from hail.store.waits import waits_dir

    store = ctx.store
    found = [
        (path, kind, "a directory")
        for path in (os.path.join(store.seats, n) for n in sorted(fs.list_names(store.seats)))
        if (kind := _odd(path)) is not None
    ]
    dirs = [store.holds, store.lapsed, waits_dir(store)]
    for name in store.mailbox_names():
        box = store.mailbox(name)
        for d in (box.new, box.cur, box.tmp, box.pending):
            kind = _odd(d)
            if kind is not None:
                found.append((d, kind, "a directory"))
            elif d != box.tmp:
                dirs.append(d)
    for d in dirs:
        for name in sorted(fs.list_names(d)):
            path = os.path.join(d, name)
            kind = _odd(path)
            if kind is not None:
                found.append((path, kind, "a regular file"))
    return found


def _note_special_files(ctx: Ctx, out: _Lines) -> None:
    """A symlink, FIFO, socket or device where hail keeps its files: every reader skips it (a
    link is never followed; opening a FIFO to read would wait for a writer forever), so nothing
    else says it is there."""
    found = _odd_shapes(ctx)
    shown = found[: policy.DOCTOR_SPECIAL_LINES]
    for path, kind, expected in shown:
        why = _IGNORED.get(kind, "hail ignores it")
        out.say("note", f"{path} is not {expected} ({kind}): {why}; remove it")
    if len(found) > len(shown):
        out.say(
            "note",
            f"… {len(found) - len(shown)} more files in {ctx.store.root} that are not regular files",
        )
