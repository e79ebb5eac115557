"""Reading what happened: frames in the fake servers' request logs, prompts in the probe log.

A delivery is recognised by its frame start line (docs/envelope-and-frames.md "Frames"):
``[hail:<token> <kind> from:<sender> id:<id>…]`` then the headline, unless the prompt was the
message's own envelope. Each
delivery draws a fresh token, and every later request repeats the conversation so far, so the number
of distinct tokens seen for an id is the number of times it was delivered.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from tests.support.procs import wait_until

from .clients import Agent
from .fake_http import JSON, FakeServer, request_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .world import World

T = TypeVar("T")

HINT = " — hail inbox"


def frame_start(message_id: str) -> re.Pattern[str]:
    return re.compile(
        r"\[hail:([0-9a-f]{8,16}) \w+ from:\S+ (?:reply:\S+ )?id:"
        + re.escape(message_id)
        + r"[\] ]"
    )


def delivery_tokens(fake: FakeServer, message_id: str) -> set[str]:
    """The frame tokens under which the model has seen ``message_id``."""
    pattern = frame_start(message_id)
    return {m.group(1) for turn in fake.turns() for m in pattern.finditer(request_text(turn))}


def first_delivery(fake: FakeServer, message_id: str) -> JSON | None:
    """The first turn request that carried the framed message."""
    pattern = frame_start(message_id)
    return next((t for t in fake.turns() if pattern.search(request_text(t))), None)


def envelope(
    message_id: str, headline: str, *, sender: str, with_body: bool, kind: str = "ask"
) -> str:
    """The envelope hail types for a send from the boss seat (docs/envelope-and-frames.md
    "Envelope")."""
    line = f"[hail kind:{kind} from:{sender} id:{message_id}] {headline}"
    return line + (HINT if with_body else "")


def eventually(produce: Callable[[], T | None], what: str, timeout: float = 20) -> T:
    """Poll ``produce`` until it returns something, or fail saying what never happened."""
    found: list[T] = []

    def check() -> bool:
        value = produce()
        if value is None:
            return False
        found.append(value)
        return True

    if not wait_until(check, timeout):
        raise AssertionError(f"within {timeout:.0f} s: {what}")
    return found[0]


def submitted_prompt(agent: Agent, message_id: str, timeout: float = 20) -> str:
    """The UserPromptSubmit prompt that carried the envelope of ``message_id``."""
    return eventually(
        lambda: next((p for p in agent.prompts() if f"id:{message_id}]" in p), None),
        f"{agent.client} submitted no prompt holding id:{message_id}; prompts: {agent.prompts()}",
        timeout,
    )


def typed_wake(world: World, agent: Agent, headline: str, body: str) -> tuple[str, str]:
    """A send to the idle `agent` of the worker seat, typed as its envelope: its prompt hook got
    exactly the envelope, and the framed body reached the model. The message id and the text of
    the request that carried it; prints the time from the send to that request."""
    import time

    sent_at = time.time()
    sent = world.send("worker", headline, body)
    assert sent.rc == 0, sent
    prompt = submitted_prompt(agent, sent.id)
    assert prompt == envelope(sent.id, headline, sender=f"boss/{world.boss_pane}", with_body=True)
    fake = world.fake_for(agent)
    turn = eventually(lambda: first_delivery(fake, sent.id), "the framed body reached the model")
    print(f"FIGURE idle {agent.client}: {turn['t'] - sent_at:.2f} s from send to model")
    return sent.id, request_text(turn)
