"""The wake decision (src/hail/transport/routes/decision.py; docs/transport.md "Routes"), where it is
made: on fake routes, fake records and fake screens, with no tmux and no subprocess.

A live native route is preferred over typing; a route that fails falls back to typing, one that
cannot tell whether it took the message does not; a draft or a dialog holds typing; a busy agent
waits for its hooks; an agent that wakes itself is never typed into; with no route left the send
exits 5 and the message waits in the inbox.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

from hail.context import Ctx
from hail.errors import NOT_WOKEN
from hail.transport import screen
from hail.transport.panes import Pane
from hail.transport.resolve import Recipient
from hail.transport.routes import registry
from hail.transport.routes.base import NotWoken, Route, Session
from hail.transport.routes.decision import Wake, native_first
from hail.transport.tmux import Tmux
from hail.transport.wake import WakeResult, verdict_reason

TMUX = cast(Tmux, object())  # the decision hands it on; only the fake hands would use it
PANE = Pane("%1", 4242, "claude", "/w/worker", "claude", "worker")


class FakeHands:
    """Screens as scripted, and typing as the real rule allows it (`transport/wake.verdict_reason`),
    recorded instead of done."""

    def __init__(self, *screens: str) -> None:
        self.screens = [screen.Verdict(s) for s in screens]
        self.typed: list[str] = []

    def read(self, tmux: Tmux, pane: str) -> screen.Verdict | None:
        return self.screens.pop(0) if self.screens else None

    def look(self, tmux: Tmux, pane: str) -> screen.Verdict | None:
        return self.read(tmux, pane)

    def type(
        self,
        tmux: Tmux,
        pane: Pane,
        line: str,
        verdict: screen.Verdict | None,
        *,
        submit: bool,
        before_enter: Callable[[], None] | None,
    ) -> WakeResult:
        refused = verdict_reason(pane, verdict)
        if refused is not None:
            return refused
        if before_enter is not None:
            before_enter()
        self.typed.append(line)
        return WakeResult(True, submit, "")

    def pane(self, ctx: Ctx, pane_id: str) -> tuple[Tmux | None, Pane | None]:
        return TMUX, PANE if pane_id == PANE.id else None


class FakeRoute(Route):
    name = "fake"
    shown = "fake"
    took = "faked"


class SelfWaking(FakeRoute):
    wakes_itself = True


class FakeSession(Session):
    """A session whose turn and route answer as the test says."""

    __slots__ = ("failure", "idle_typing", "taken", "turn_ended")

    def __init__(
        self,
        route: Route,
        *,
        turn_ended: bool = True,
        failure: str | NotWoken = "",
        idle_typing: bool = False,
    ) -> None:
        super().__init__(route, PANE)
        self.turn_ended = turn_ended
        self.failure = failure
        self.idle_typing = idle_typing
        self.taken = 0

    def between_turns(self, ctx: Ctx, mailbox: str) -> bool:
        return self.turn_ended

    def types_when_idle(self) -> bool:
        return self.idle_typing

    def take(self, wake: object) -> str:
        self.taken += 1
        if isinstance(self.failure, NotWoken):
            raise self.failure
        return self.failure

    def line(self, mailbox: str) -> str:
        return f"faked: {mailbox} in {self.pane_id}"


@pytest.fixture
def ctx(tmp_path: Path) -> Ctx:
    env = {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state")}
    found = Ctx.from_env(env)
    found.store.ensure()
    return found


def decide(
    ctx: Ctx,
    hands: FakeHands,
    session: Session | None,
    *,
    pane: Pane | None = PANE,
    verdict: str | None = None,
    kind: str = "ask",
) -> int:
    to = Recipient("worker", "worker", pane, "" if pane else "no agent runs in seat worker")
    wake = Wake(ctx, to, kind, "1204T120000-abcd", "[hail kind:ask …]", submit=True, hands=hands)  # type: ignore[arg-type]
    seen = screen.Verdict(verdict) if verdict is not None else None
    return wake.take(TMUX, pane, session, seen)


def hooks_run(ctx: Ctx) -> None:
    ctx.store.mailbox("worker").touch_hooked()


def test_a_live_route_between_turns_is_taken_and_nothing_is_typed(
    ctx: Ctx, capsys: pytest.CaptureFixture[str]
) -> None:
    hands = FakeHands(screen.IDLE)
    session = FakeSession(FakeRoute())
    assert decide(ctx, hands, session) == 0
    assert session.taken == 1 and hands.typed == []
    assert "faked: worker in %1" in capsys.readouterr().err


def test_a_route_that_fails_falls_back_to_typing_an_idle_composer(
    ctx: Ctx, capsys: pytest.CaptureFixture[str]
) -> None:
    hands = FakeHands(screen.IDLE)
    session = FakeSession(FakeRoute(), failure="process 7 is no waiter")
    assert decide(ctx, hands, session) == 0
    assert hands.typed == ["[hail kind:ask …]"]
    err = capsys.readouterr().err
    assert "process 7 is no waiter; typing instead" in err and "typed: into %1" in err


def test_a_route_that_cannot_tell_whether_it_took_it_types_nothing(
    ctx: Ctx, capsys: pytest.CaptureFixture[str]
) -> None:
    hands = FakeHands(screen.IDLE)
    session = FakeSession(FakeRoute(), failure=NotWoken("queued", "no answer: it may be queued"))
    assert decide(ctx, hands, session) == NOT_WOKEN
    assert hands.typed == []
    assert "not queued (no answer: it may be queued)" in capsys.readouterr().err


def test_a_draft_holds_typing(ctx: Ctx, capsys: pytest.CaptureFixture[str]) -> None:
    hands = FakeHands()
    assert decide(ctx, hands, None, verdict=screen.DRAFT) == NOT_WOKEN
    assert hands.typed == []
    assert "a person is typing in %1" in capsys.readouterr().err


def test_a_dialog_holds_a_native_route_mid_turn(
    ctx: Ctx, capsys: pytest.CaptureFixture[str]
) -> None:
    hands = FakeHands(screen.DIALOG)
    session = FakeSession(FakeRoute(), turn_ended=False)
    assert decide(ctx, hands, session) == NOT_WOKEN
    assert session.taken == 0 and hands.typed == []
    assert "a dialog in %1 holds its turn" in capsys.readouterr().err


def test_a_busy_agent_waits_for_its_hooks(ctx: Ctx, capsys: pytest.CaptureFixture[str]) -> None:
    hooks_run(ctx)
    hands = FakeHands(screen.BUSY)
    session = FakeSession(FakeRoute(), turn_ended=False)
    assert decide(ctx, hands, session) == 0
    assert session.taken == 0 and hands.typed == []
    assert "busy: arrives at worker's next tool call" in capsys.readouterr().err


def test_a_busy_agent_whose_hooks_do_not_run_is_not_woken(
    ctx: Ctx, capsys: pytest.CaptureFixture[str]
) -> None:
    hands = FakeHands(screen.BUSY)
    session = FakeSession(FakeRoute(), turn_ended=False)
    assert decide(ctx, hands, session) == NOT_WOKEN
    assert hands.typed == []
    assert "not typed (%1 is busy)" in capsys.readouterr().err


def test_no_route_left_exits_5_and_says_why(ctx: Ctx, capsys: pytest.CaptureFixture[str]) -> None:
    assert decide(ctx, FakeHands(), None, pane=None) == NOT_WOKEN
    assert "delivered to worker's inbox; not typed (no agent runs in seat worker)" in (
        capsys.readouterr().err
    )


def test_an_agent_that_wakes_itself_is_never_typed_into(
    ctx: Ctx, capsys: pytest.CaptureFixture[str]
) -> None:
    hands = FakeHands(screen.IDLE)
    mid_turn = FakeSession(SelfWaking(), turn_ended=False)
    assert decide(ctx, hands, mid_turn) == 0  # it waits for its own idle: no turn is judged
    refused = FakeSession(SelfWaking(), failure=NotWoken("typed", "its plugin does not watch"))
    assert decide(ctx, hands, refused) == NOT_WOKEN
    failing = FakeSession(SelfWaking(), failure="no mark")
    assert decide(ctx, hands, failing) == NOT_WOKEN
    assert hands.typed == []
    assert "not typed (its plugin does not watch)" in capsys.readouterr().err


def test_a_route_slower_than_typing_types_into_an_idle_composer_and_takes_a_draft(
    ctx: Ctx,
) -> None:
    idle = FakeHands(screen.IDLE)
    session = FakeSession(FakeRoute(), idle_typing=True)
    assert decide(ctx, idle, session) == 0
    assert idle.typed and session.taken == 0
    drafting = FakeHands(screen.DRAFT)
    session = FakeSession(FakeRoute(), idle_typing=True)
    assert decide(ctx, drafting, session) == 0
    assert drafting.typed == [] and session.taken == 1


def test_a_control_kind_typed_is_filed_inline_before_enter(ctx: Ctx) -> None:
    box = ctx.store.mailbox("worker")
    box.post("1204T120000-abcd", "kind: announce\n\nSTOP\n", inline=False)
    assert decide(ctx, FakeHands(), None, verdict=screen.IDLE, kind="announce") == 0
    assert not box.is_unread("1204T120000-abcd")


def test_no_submit_skips_a_native_route_but_not_an_agent_that_wakes_itself(ctx: Ctx) -> None:
    opencode = Pane("%2", 4243, "opencode", "/w/worker", "opencode", "worker")
    found = native_first(ctx, TMUX, opencode, "worker", submit=False)
    assert found is not None and found.route is registry.get("plugin")
    claude = native_first(ctx, TMUX, PANE, "worker", submit=False)
    assert claude is None
