"""Mail for an agent that cannot take a typed envelope now: it reaches the model through the hooks,
and nothing anyone typed is lost.

- An agent writing its answer (no tool call in the turn) gets nothing typed; the Stop hook hands
  the body to the model when the turn ends, with no prompt from anyone, and the answer reaches the
  screen intact.
- A person's draft stays on the screen, unsubmitted; the message arrives with their next prompt.
- An announce sent while tmux is unreachable waits unread and the next hook delivers it.
- Stop never loops: a peer sending all the time, and the session still ends its turns, also with
  hail's Stop hook installed twice.
"""

from __future__ import annotations

import json
import threading
import time

from .clients import codex_trust_hash, toml_str
from .evidence import delivery_tokens, eventually, first_delivery
from .fake_http import request_text
from .test_busy import hold_a_turn, send_while_busy
from .test_dialog import seat_state
from .world import World

DRAFT = "please refactor the tokenizer so that"


def test_an_ask_to_an_agent_writing_its_answer_arrives_when_the_turn_ends(
    world: World, client: str
) -> None:
    agent = world.start(client)
    fake = world.fake_for(agent)
    hold_a_turn(world, agent, "HOLD_TEXT then answer")
    assert seat_state(world) == "busy"

    message_id, sent_at = send_while_busy(
        world, agent, "a question while you answer", "BODY-STOP-1 turn-end body"
    )
    fake.release()
    turn = eventually(lambda: first_delivery(fake, message_id), "the body reached the model")
    print(f"FIGURE turn-end {client}: {turn['t'] - sent_at:.2f} s from send to model")
    assert "BODY-STOP-1 turn-end body" in request_text(turn)
    assert turn["tool_result"] is None, "no tool call: the Stop hook carried it"
    eventually(
        lambda: "FAKE-ANSWER to the held prompt" in agent.screen() or None,
        "the answer to the user's prompt reached the screen",
    )
    agent.wait_stops(2)
    assert not any(message_id in p for p in agent.prompts()), "no prompt carried it"
    assert len(delivery_tokens(fake, message_id)) == 1, "delivered exactly once"
    assert world.hail(["sent", message_id]).out.startswith("injected ")
    eventually(lambda: agent.is_ready() or None, "the turn ended")
    assert seat_state(world) == "idle"


def test_a_persons_draft_stays_and_the_message_arrives_with_their_prompt(
    typing_world: World, client: str
) -> None:
    """Where no native wake reaches (test_native_wake.py has the draft under a native wake)."""
    world = typing_world
    agent = world.start(client)
    fake = world.fake_for(agent)
    world.tmux.cmd("send-keys", "-t", agent.pane, "-l", "--", DRAFT)
    eventually(lambda: DRAFT in agent.screen() or None, "the draft is on screen")
    assert seat_state(world) == "draft"

    sent_at = time.time()
    sent = world.send("worker", "a question for later", "BODY-DRAFT-1 waits for the person")

    assert sent.rc == 5, sent
    assert f"a person is typing in {agent.pane}: arrives with their next prompt" in sent.err
    message_id = sent.id
    time.sleep(1)
    screen = agent.screen()
    assert DRAFT in screen and message_id not in screen, "the draft is untouched"
    assert not agent.prompts(), "nothing was submitted"
    world.tmux.cmd("send-keys", "-t", agent.pane, "Enter")  # the person submits
    turn = eventually(lambda: first_delivery(fake, message_id), "the body reached the model")
    print(f"FIGURE draft {client}: {turn['t'] - sent_at:.2f} s from send to model (incl. 1 s wait)")
    assert DRAFT in turn["user_text"], "it came with the person's prompt"
    assert "BODY-DRAFT-1 waits for the person" in request_text(turn)
    assert agent.prompts() == [DRAFT], "the envelope was never typed"
    agent.wait_stops(1)


def test_an_announce_sent_without_tmux_is_delivered_by_the_next_hook(
    world: World, client: str
) -> None:
    agent = world.start(client)
    fake = world.fake_for(agent)
    world.tmux.submit(agent.pane, "hello")  # Codex runs its first hooks only at a first prompt
    agent.wait_stops(1)
    agent.wait_ready()
    sent_at = time.time()
    sent = world.hail(
        ["worker", "announce", "STOP: the gate is red"],
        extra_env={"HAIL_SOCKET": str(world.root / "no-such-socket")},
    )
    assert sent.rc == 5, sent
    message_id = sent.id
    assert world.hail(["sent", message_id]).out == "delivered\n", "unread, not lost as inline"
    world.tmux.submit(agent.pane, "what is new?")
    turn = eventually(lambda: first_delivery(fake, message_id), "the announce reached the model")
    print(f"FIGURE no-tmux-announce {client}: {turn['t'] - sent_at:.2f} s from send to model")
    assert "STOP: the gate is red" in request_text(turn)
    agent.wait_stops(1)
    assert world.hail(["sent", message_id]).out.startswith("injected ")


def stop_loop(world: World, client: str) -> int:
    """Model calls for one prompt while a backlog waits and a peer sends every second."""
    agent = world.start(client)
    fake = world.fake_for(agent)
    world.tmux.submit(agent.pane, "hello")  # runs hail's hooks: later fyis are quiet, not typed
    agent.wait_stops(1)
    agent.wait_ready()
    # A backlog bigger than a prompt and three Stops can carry (5 messages each), so every Stop
    # finds mail; and a peer that keeps sending every second meanwhile.
    backlog = [world.send("worker", f"backlog {n}", kind="fyi") for n in range(25)]
    assert all(s.rc == 0 for s in backlog)
    stop = threading.Event()
    sends: list[int] = []

    def peer() -> None:
        while not stop.is_set():
            sends.append(world.send("worker", f"news {len(sends)}", kind="fyi").rc)
            time.sleep(1)

    thread = threading.Thread(target=peer)
    thread.start()
    try:
        before = len(fake.turns())
        stops_before = len(agent.hook_calls("Stop"))
        world.tmux.submit(agent.pane, "one more thing")
        eventually(lambda: len(fake.turns()) > before or None, "the turn reached the model")
        eventually(lambda: agent.is_ready() or None, "the turn ended", timeout=30)
        time.sleep(10)  # still sending: nothing starts a turn by itself
        calls = len(fake.turns()) - before
        stops = len(agent.hook_calls("Stop")) - stops_before
    finally:
        stop.set()
        thread.join()
    print(
        f"FIGURE stop-loop {client}: {calls} model calls and {stops} Stop hooks for one prompt "
        f"while {len(sends)} more messages came"
    )
    assert all(rc == 0 for rc in sends)
    unread = [p for p in world.mailbox_files("worker") if p.parent.name == "new"]
    assert unread, "what the cap left waits for the next prompt or tool call"
    return calls


def test_stop_never_loops_while_a_peer_sends_all_the_time(world: World, client: str) -> None:
    assert stop_loop(world, client) == 4, "the prompt's call plus exactly 3 Stop continuations"


def install_a_second_stop_hook(world: World, client: str) -> None:
    """hail's Stop hook once more, spelled as a second install would (bare, found on PATH), so
    both run on every Stop."""
    command = f"hail deliver --format {client} --event Stop"
    if client == "claude":
        path = world.home / ".claude" / "settings.json"
        settings = json.loads(path.read_text())
        settings["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": command}]})
        path.write_text(json.dumps(settings, indent=2) + "\n")
        return
    path = world.home / ".codex" / "config.toml"
    text = path.read_text()
    group = text.count("[[hooks.Stop]]")
    key = f"{path}:stop:{group}:0"
    path.write_text(
        text.replace(
            "\n[hooks.state.",
            f'\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\n'
            f"command = {toml_str(command)}\n\n[hooks.state.",
            1,
        )
        + f"\n[hooks.state.{toml_str(key)}]\n"
        + f"trusted_hash = {toml_str(codex_trust_hash('Stop', command, None))}\n"
    )


def test_stop_never_loops_with_its_hook_installed_twice(world: World, client: str) -> None:
    install_a_second_stop_hook(world, client)
    assert stop_loop(world, client) == 4, "both hooks of one Stop count it once"
