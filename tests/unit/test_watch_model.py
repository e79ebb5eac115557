"""`hail watch`'s model (src/hail/watch/model.py `build`), pure: seat rows and routes, the
conversation rules (a crossing wait flagged, with the answer to send first) and the trouble rules,
each with its fix."""

from __future__ import annotations

from dataclasses import replace

from hail import policy
from hail.diagnosis import HookErrors
from hail.watch import model as watch
from hail.watch import render
from hail.watch.panes import PaneState, TmuxState
from hail.watch.state import (
    HoldState,
    MailboxState,
    MessageState,
    Pending,
    StateView,
    WaitState,
)

NOW = 1_800_000_000.0


def box(
    name: str, *, unread: tuple[str, ...] = (), hooked: float | None = NOW - 5, **kw: object
) -> MailboxState:
    seat, _, pane = name.partition("@")
    fields: dict[str, object] = {
        "name": name,
        "seat": seat,
        "pane": pane,
        "unread": unread,
        "read": 0,
        "hooked": hooked,
        "root": f"/ws/{seat}",
        "root_exists": True,
        "pending": (),
        "distrust": "",
    }
    fields |= kw
    return MailboxState(**fields)  # type: ignore[arg-type]


def msg(msg_id: str, sender: str, to: str, kind: str = "ask", **kw: object) -> MessageState:
    fields: dict[str, object] = {
        "id": msg_id,
        "to": to,
        "sender": sender,
        "reply": sender.split("/")[0],
        "kind": kind,
        "headline": f"about {msg_id}",
        "re": "",
        "scope": "",
        "sent": NOW - 60,
        "status": "delivered",
        "received": None,
        "replies": (),
    }
    fields |= kw
    return MessageState(**fields)  # type: ignore[arg-type]


def view(
    mailboxes: list[MailboxState],
    messages: list[MessageState] = (),  # type: ignore[assignment]
    **kw: object,
) -> StateView:
    replies = {m.id: m.replies for m in messages}
    fields: dict[str, object] = {
        "root": "/state/hail",
        "taken": NOW,
        "exists": True,
        "mailboxes": tuple(mailboxes),
        "messages": tuple(messages),
        "total": len(messages),
        "holds": (),
        "waits": (),
        "replies": replies,
        "hook_errors": None,
        "due": float("inf"),
    }
    fields |= kw
    return StateView(**fields)  # type: ignore[arg-type]


def pane(
    pane_id: str,
    seat: str | None,
    agent: str | None = "claude",
    state: str = "idle",
    started: float | None = NOW - 3600,
) -> PaneState:
    return PaneState(pane_id, seat, agent, state if agent else "", True, started)


def tmux(*panes: PaneState) -> TmuxState:
    return TmuxState("HAIL_SOCKET", tuple(panes))


def kinds(snap: watch.Snapshot) -> list[tuple[str, str]]:
    return [(t.kind, t.seat) for t in snap.trouble]


# --- seats ------------------------------------------------------------------------------------


def test_a_seat_with_one_agent_is_typed_into_and_shows_its_screen() -> None:
    snap = watch.build(
        view([box("boss"), box("worker", unread=("a",))]),
        tmux(
            pane("%1", "boss", state="busy"), pane("%2", "worker"), pane("%3", "worker", agent=None)
        ),
        NOW,
    )
    rows = {r.mailbox: r for r in snap.seats}
    assert (rows["boss"].route, rows["boss"].state, rows["boss"].jump) == ("type", "busy", "%1")
    assert (rows["worker"].route, rows["worker"].unread, rows["worker"].panes) == (
        "type",
        1,
        ("%2", "%3"),
    )
    assert render.seat_cells(rows["boss"], NOW) == [
        "boss",
        "%1:claude",
        "type",
        "busy",
        "0",
        "5s",
        "-",
        "-",
        "-",
    ]


def test_a_shared_seat_has_no_route_and_each_sub_seat_its_own() -> None:
    snap = watch.build(
        view([box("api"), box("api@%4")]),
        tmux(pane("%4", "api"), pane("%5", "api", state="draft")),
        NOW,
    )
    rows = {r.mailbox: r for r in snap.seats}
    assert (rows["api"].route, rows["api"].state) == ("-", "idle draft")
    assert (rows["api@%4"].route, rows["api@%4"].jump, rows["api@%4"].state) == (
        "type",
        "%4",
        "idle",
    )


def test_without_tmux_routes_and_states_are_unknown_and_nothing_jumps() -> None:
    snap = watch.build(view([box("boss")]), TmuxState("", (), "no server"), NOW)
    (row,) = snap.seats
    assert (row.route, row.state, row.jump) == ("?", "?", "")
    assert "no tmux: no server" in render.title(snap)


def test_a_seat_without_hooks_says_so_in_its_state() -> None:
    snap = watch.build(
        view([box("boss", hooked=None), box("old", hooked=NOW - 8 * 86400)]), tmux(), NOW
    )
    cells = {r.mailbox: render.seat_cells(r, NOW) for r in snap.seats}
    assert cells["boss"][3] == "-, no hooks" and cells["boss"][5] == "-"
    assert cells["old"][3] == "-, no hooks" and cells["old"][5] == "8d"


def test_holds_show_on_the_seat_and_its_sub_seats() -> None:
    hold = HoldState("h1", "boss", "api", "", "HOLD", NOW - 60, NOW + 3600)
    on_sub = HoldState("h2", "boss", "api@%4", "", "HOLD", NOW - 60, NOW + 3600)
    snap = watch.build(
        view([box("api"), box("api@%4"), box("boss")], holds=(hold, on_sub)), tmux(), NOW
    )
    rows = {r.mailbox: r.holds for r in snap.seats}
    assert rows == {"api": ("h1", "h2"), "api@%4": ("h1", "h2"), "boss": ()}


# --- messages and conversations --------------------------------------------------------------------


def test_a_message_row_shows_the_seconds_its_receipt_took_and_its_thread() -> None:
    ask = msg("a1", "boss/%1", "worker", status="injected", received=NOW - 57, replies=("r1",))
    reply = msg("r1", "worker/%2", "boss", kind="fyi", re="a1")
    cells = render.message_cells(ask)
    assert cells[1:] == ["boss/%1 → worker", "ask", "about a1", "injected +3s", "replied r1"]
    assert render.message_cells(reply)[4:] == ["delivered", "re a1"]


def test_open_asks_are_the_asks_without_a_reply() -> None:
    snap = watch.build(
        view(
            [box("boss"), box("worker")],
            [
                msg("a1", "boss", "worker", replies=("r1",)),
                msg("a2", "boss", "worker"),
                msg("f1", "boss", "worker", kind="fyi"),
            ],
        ),
        tmux(),
        NOW,
    )
    assert [m.id for m in snap.asks] == ["a2"]


def test_a_wait_on_a_seat_whose_own_ask_to_the_waiter_has_no_reply_is_a_crossing() -> None:
    boss_ask = msg("a1", "boss", "worker")
    worker_ask = msg("a2", "worker", "boss")
    wait = WaitState("boss", ("a1",), ("worker",), False, NOW - 10, NOW + 80)
    snap = watch.build(
        view([box("boss"), box("worker")], [worker_ask, boss_ask], waits=(wait,)), tmux(), NOW
    )
    (row,) = snap.waits
    assert (row.waiter, row.ask, row.to, row.answered) == ("boss", "a1", "worker", False)
    assert "worker's ask a2 to boss has no reply while boss waits on worker" in row.crossing
    assert "hail worker fyi --re a2 '<answer>'" in row.crossing
    lines = render.talk_lines(snap)
    assert "  boss waits on worker for a1 (10s, ends in 1m)" in lines
    assert any(line.startswith("  ⚠ crossing: worker's ask a2") for line in lines)


def test_waits_that_block_each_other_through_a_third_seat_are_a_crossing() -> None:
    waits = (
        WaitState("a", ("x1",), ("b",), False, NOW - 5, NOW + 60),
        WaitState("b", ("x2",), ("c",), False, NOW - 5, NOW + 60),
        WaitState("c", ("x3",), ("a",), False, NOW - 5, NOW + 60),
    )
    snap = watch.build(view([box("a"), box("b"), box("c")], waits=waits), tmux(), NOW)
    crossings = {w.waiter: w.crossing for w in snap.waits}
    assert crossings["a"] == "b waits on c waits on a: these waits block each other"
    assert all(crossings.values())


def test_an_answered_wait_or_one_on_a_free_seat_is_no_crossing() -> None:
    worker_ask = msg("a2", "worker", "boss", replies=("r2",))  # answered
    waits = (WaitState("boss", ("a1",), ("worker",), False, NOW - 5, NOW + 60),)
    snap = watch.build(view([box("boss"), box("worker")], [worker_ask], waits=waits), tmux(), NOW)
    assert [w.crossing for w in snap.waits] == [""]
    answered = view([box("boss")], [msg("a1", "boss", "worker", replies=("r1",))], waits=waits)
    assert [w.answered for w in watch.build(answered, tmux(), NOW).waits] == [True]


# --- trouble ---------------------------------------------------------------------------------------


def test_unread_mail_with_no_hooks_and_no_agent_is_trouble_with_its_fix() -> None:
    snap = watch.build(
        view([box("boss"), box("worker", unread=("a1", "a2"), hooked=None)]),
        tmux(pane("%1", "boss")),
        NOW,
    )
    (t,) = snap.trouble
    assert (t.kind, t.seat) == ("unread", "worker")
    assert t.text == "worker has 2 unread (oldest a1) and no hook ever ran and no agent sits there"
    assert t.fix == "start its agent in /ws/worker, or read it there: cd /ws/worker && hail inbox"


def test_unread_mail_of_an_agent_whose_hooks_stopped_points_at_setup() -> None:
    snap = watch.build(
        view([box("worker", unread=("a1",), hooked=NOW - 8 * 86400)]),
        tmux(pane("%2", "worker", started=None)),
        NOW,
    )
    (t,) = snap.trouble
    assert "no hook has read it lately" in t.text and t.fix.startswith(
        "hail setup, then start a new session in %2"
    )


def test_unread_mail_of_a_live_agent_with_hooks_is_no_trouble() -> None:
    snap = watch.build(view([box("worker", unread=("a1",))]), tmux(pane("%2", "worker")), NOW)
    assert snap.trouble == ()


def test_a_sub_seat_whose_pane_is_gone_says_so() -> None:
    snap = watch.build(
        view([box("api"), box("api@%9", unread=("a1",))]), tmux(pane("%4", "api")), NOW
    )
    assert [t.text for t in snap.trouble] == [
        "api@%9 has 1 unread (oldest a1) and its pane is gone"
    ]


def test_a_send_is_late_after_two_minutes_without_a_receipt() -> None:
    def at(age: float) -> watch.Snapshot:
        p = Pending("a1", "ask", "boss", "worker", NOW - age, "review it")
        return watch.build(
            view([box("boss", pending=(p,)), box("worker")]), tmux(pane("%2", "worker")), NOW
        )

    assert at(policy.LATE_SEND_SECONDS - 1).trouble == ()
    (t,) = at(policy.LATE_SEND_SECONDS + 60).trouble
    assert (t.kind, t.seat) == ("late", "worker")
    assert t.text == "boss → worker: ask a1 has no receipt after 3m (review it)"
    assert t.fix == "hail read worker 10 shows why; do not resend: it waits in the inbox"
    assert at(policy.PENDING_LAPSE_SECONDS + 1).trouble == ()


def test_failing_hooks_are_trouble_fixed_by_reading_the_log() -> None:
    errors = HookErrors(3, "2027-01-15T08:00:00Z", "2027-01-15T08:05:00Z deliver: boom")
    state = replace(view([], hook_errors=errors), hook_log="/s/hook-errors.log")
    (t,) = watch.build(state, tmux(), NOW).trouble
    assert (t.kind, t.fix) == (
        "hook-errors",
        "the log says which hook failed and why: tail /s/hook-errors.log",
    )
    assert (
        t.text
        == "hook-errors.log has 3 errors since 2027-01-15T08:00:00Z; the last: 2027-01-15T08:05:00Z deliver: boom"
    )


def test_an_agent_that_ran_no_hook_since_it_started_is_trouble() -> None:
    started = NOW - 60
    quiet = view([box("boss", hooked=started - 5), box("worker", hooked=started + 1)])
    snap = watch.build(
        quiet,
        tmux(
            pane("%1", "boss", started=started),
            pane("%2", "worker", started=started),
            pane("%3", "codex-seat", agent="codex", started=started),
        ),
        NOW,
    )
    assert kinds(snap) == [("hooks", "boss"), ("hooks", "codex-seat")]
    claude, codex = snap.trouble
    assert claude.text == (
        "claude in %1 (seat boss) started 1m ago and no hail hook has run in boss since:"
        " its hooks do not run"
    )
    assert claude.fix.startswith("hail setup, then restart the agent in %1")
    assert codex.fix.startswith("hail setup --trust-codex")
    young = watch.build(quiet, tmux(pane("%1", "boss", started=NOW - 3)), NOW)
    assert young.trouble == ()


def test_a_claude_whose_hooks_run_but_whose_waiter_does_not_listen_is_trouble() -> None:
    started = NOW - 60
    hooked = view([box("boss", hooked=started + 1), box("worker", hooked=started + 1)])
    no_waiter = replace(pane("%1", "boss", started=started), route="type", native=False)
    woken = replace(pane("%2", "worker", started=started), route="wake", native=True)
    snap = watch.build(hooked, tmux(no_waiter, woken), NOW)
    assert kinds(snap) == [("waiter", "boss")]
    (t,) = snap.trouble
    assert t.text == (
        "claude in %1 (seat boss) has no live waiter (hail listen): a send can only type into it"
    )
    assert t.fix.startswith("hail setup (it installs the waiter), then restart the agent in %1")
    assert snap.seats[0].route == "type" and snap.seats[1].route == "wake"


def test_a_mailbox_another_user_may_write_is_trouble_with_the_chown() -> None:
    snap = watch.build(
        view([box("worker", distrust="/s/seats/worker is writable by others (mode 777)")]),
        tmux(pane("%2", "worker")),
        NOW,
    )
    (t,) = snap.trouble
    assert (
        t.kind == "trust" and t.fix == "chown -R $(id -u) /state/hail && chmod -R go-w /state/hail"
    )


# --- the filter and the plain forms --------------------------------------------------------------


def test_the_filter_keeps_what_involves_the_seat_and_its_sub_seats() -> None:
    messages = [
        msg("a1", "boss/%1", "worker"),
        msg("a2", "worker", "api@%4"),
        msg("a3", "api", "boss"),
    ]
    hold = HoldState("h1", "boss", "worker", "", "HOLD", NOW - 60, NOW + 60)
    state = view([box("boss"), box("worker"), box("api@%4")], messages, holds=(hold,))
    snap = watch.build(state, tmux(), NOW, only="api")
    assert [r.mailbox for r in snap.seats] == ["api@%4"]
    assert [m.id for m in snap.messages] == ["a2", "a3"]
    assert snap.holds == ()
    assert "only api" in render.title(snap)


def test_the_frame_has_every_section_even_when_empty() -> None:
    lines = render.frame(watch.build(view([]), tmux(), NOW))
    for heading in (
        "SEATS (0)",
        "MESSAGES (0 of 0, newest first, times UTC)",
        "CONVERSATIONS AND HOLDS",
        "TROUBLE (0)",
    ):
        assert heading in lines
    assert lines.count("  (none)") == 3


def test_the_json_carries_the_same_rows() -> None:
    ask = msg("a1", "boss/%1", "worker", status="read", received=NOW - 50)
    snap = watch.build(view([box("boss"), box("worker")], [ask]), tmux(pane("%2", "worker")), NOW)
    data = render.to_json(snap)
    assert data["version"] == 1
    seats = data["seats"]
    assert isinstance(seats, list) and seats[1]["route"] == "type"
    messages = data["messages"]
    assert isinstance(messages, list)
    assert messages[0]["receipt"] == {
        "status": "read",
        "time": "2027-01-15T07:59:10Z",
        "seconds": 10,
    }
    assert replace(snap, trouble=()).trouble == ()
