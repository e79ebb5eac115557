"""Native wakes on the pinned clients (docs/transport.md "Routes"): an idle agent gets an ask with
nothing typed into its pane. Claude Code through hail's waiter (an asyncRewake hook), Codex through
its queue, both with its default daemon and with `--no-daemon`; a Codex without its daemon reads
its queue only every 10 s, so its empty composer is typed into instead, and over a draft the queue
takes it. Each prints a FIGURE: seconds from the send to the model request that carried the body.

Also: a person's draft stays put and unsent, the waiter keeps to one per Claude Code process and
ends with its client (SIGKILL included), `claude -p` is not held by it, and agents a native wake
cannot reach (settings that predate the waiter, a Codex that has had no prompt) are typed into as
before."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tests.support.procs import alive, hails_backend, wait_until

from .clients import CLAUDE_COMPOSER, Agent
from .evidence import delivery_tokens, envelope, eventually, first_delivery, submitted_prompt
from .fake_http import request_text
from .world import World

HEADLINE = "please review the parser change before the merge"
BODY = "BODY-NATIVE-1 the parser lives in src/parse.py\nsecond line of the body"
DRAFT = "HALFDRAFT please refactor the"


def start(world: World, kind: str) -> Agent:
    """Start the client; for Codex, one prompt first, so that hail's hook records its thread."""
    client = "claude" if kind == "claude" else "codex"
    agent = world.start(client, daemon=kind == "codex-daemon")
    if client == "claude":
        eventually(lambda: waiter_record(world, agent) or None, "the waiter listens")
    else:
        world.tmux.submit(agent.pane, "hello before the ask")
        agent.wait_stops(1)
        eventually(lambda: thread_record(world) or None, "hail recorded the Codex thread")
    return agent


def records(world: World, prefix: str) -> list[dict[str, str]]:
    """The presence records of this world (docs/files.md "Layout") whose names start so."""
    base = world.state / "hail" / "presence"
    paths = sorted(base.glob(prefix + "*")) if base.is_dir() else []
    return [
        dict(line.split(": ", 1) for line in path.read_text().splitlines() if ": " in line)
        for path in paths
    ]


def waiter_record(world: World, agent: Agent) -> dict[str, str] | None:
    return next(
        (
            r
            for r in records(world, "claude-")
            if r["pane"] == agent.pane and r["state"] == "listening"
        ),
        None,
    )


def thread_record(world: World) -> dict[str, str] | None:
    found = records(world, "codex-")
    return found[0] if found else None


def route_note(kind: str, pane: str, *, empty: bool = False) -> str:
    """What the send says; a Codex without its daemon has an empty composer typed into."""
    if kind == "codex" and empty:
        return f"hail: typed: into {pane}\n"
    if kind == "claude":
        return f"hail: woken: worker's session in {pane} takes it in a turn of its own; nothing typed\n"
    tail = (
        "" if kind == "codex-daemon" else " (without its daemon Codex reads its queue every 10 s)"
    )
    return f"hail: queued: Codex in {pane} takes it as its next prompt; nothing typed{tail}\n"


def model_timeout(kind: str) -> float:
    """Without its daemon Codex reads its queue every 10 s (a draft keeps it on the queue)."""
    return 20 if kind == "codex" else 10


def test_an_idle_agent_gets_an_ask_with_nothing_typed(world: World, kind: str) -> None:
    agent = start(world, kind)
    fake = world.fake_for(agent)

    sent_at = time.time()
    sent = world.send("worker", HEADLINE, BODY)
    sent_done = time.time()

    assert sent.rc == 0, sent
    assert sent.err == route_note(kind, agent.pane, empty=True), sent
    message_id = sent.id
    turn = eventually(
        lambda: first_delivery(fake, message_id), "the framed body reached the model", 10
    )
    hook = max(float(str(c["t"])) for c in agent.hook_calls("UserPromptSubmit"))
    print(
        f"FIGURE native-idle {kind}: {turn['t'] - sent_at:.2f} s from send to model (the send "
        f"{sent_done - sent_at:.2f} s, then {hook - sent_done:.2f} s to the prompt hook, "
        f"{turn['t'] - hook:.2f} s to the request)"
    )
    text = request_text(turn)
    assert f"id:{message_id}" in text and "BODY-NATIVE-1 the parser lives in src/parse.py\n" in text
    assert "second line of the body" in text
    assert text.count(HEADLINE) == 1, "the headline reaches the model once"
    if kind == "claude":
        assert not any(f"id:{message_id}]" in p for p in agent.prompts()), "no envelope prompt"
        assert agent.prompts()[-1].startswith("<task-notification>"), "the waiter's turn"
        eventually(lambda: "● hail: new mail" in agent.screen() or None, "the summary on screen")
    else:
        expected = envelope(message_id, HEADLINE, sender=f"boss/{world.boss_pane}", with_body=True)
        assert submitted_prompt(agent, message_id) == expected, "the envelope, verbatim"
    agent.wait_stops(1 if kind == "claude" else 2)
    assert len(delivery_tokens(fake, message_id)) == 1, "delivered exactly once"
    receipt = world.hail(["sent", message_id])
    assert receipt.out.startswith("injected "), receipt
    if kind == "claude":
        eventually(lambda: waiter_record(world, agent) or None, "the next turn's waiter listens")
        assert len(world.waiters()) == 1
    if kind == "codex-daemon":
        next_send_by_the_record(world, agent)


def next_send_by_the_record(world: World, agent: Agent) -> None:
    """The first send surveyed tmux and wrote the TUI's pane and server into the thread's record:
    the next one queues from the record alone, asking Codex's daemon itself."""
    record = thread_record(world)
    assert record is not None and record["pane"] == agent.pane and record["tui"], record
    fake = world.fake_for(agent)
    sent_at = time.time()
    sent = world.hail(
        ["worker", "ask"],
        stdin="a second ask\n\nBODY-NATIVE-2\n",
        prefix=(sys.executable, "-X", "importtime"),
    )
    sent_done = time.time()
    said = "".join(f"{line}\n" for line in sent.err.splitlines() if "import time:" not in line)
    assert sent.rc == 0 and said == route_note("codex-daemon", agent.pane), sent
    imported = {line.rsplit("|", 1)[1].strip() for line in sent.err.splitlines() if "|" in line}
    assert "hail.commands.send" in imported, "the importtime lines were read"
    assert not {"libtmux", "hail.transport.panes", "hail.transport.wake"} & imported, imported
    # The daemon was asked on its socket: no `codex queue` was run, nor any process started on
    # the /proc backend (the portable one, macOS's, asks `ps` about the TUI).
    assert "hail.transport.codex_daemon" in imported, imported
    assert hails_backend().name != "proc" or "subprocess" not in imported, imported
    turn = eventually(lambda: first_delivery(fake, sent.id), "the second body reached the model")
    print(
        f"FIGURE native-idle codex-daemon, by the record: {turn['t'] - sent_at:.2f} s from send "
        f"to model (the send {sent_done - sent_at:.2f} s)"
    )


def composer_line(agent: Agent) -> str:
    """The composer's line: Claude's `❯`+NBSP line, Codex's last `› ` line."""
    lines = agent.screen().splitlines()
    mark = CLAUDE_COMPOSER if agent.client == "claude" else "› "
    return next((line for line in reversed(lines) if line.startswith(mark)), "")


def test_a_persons_draft_stays_unsent_while_the_agent_takes_the_ask(
    world: World, kind: str
) -> None:
    agent = start(world, kind)
    fake = world.fake_for(agent)
    world.tmux.cmd("send-keys", "-t", agent.pane, "-l", "--", DRAFT)
    eventually(lambda: DRAFT in composer_line(agent) or None, "the draft is in the composer")
    prompts_before = len(agent.prompts())

    sent_at = time.time()
    sent = world.send("worker", "a question while you type", "BODY-DRAFT-N mid-draft body")

    assert sent.rc == 0, sent
    assert sent.err == route_note(kind, agent.pane), sent
    turn = eventually(
        lambda: first_delivery(fake, sent.id), "the body reached the model", model_timeout(kind)
    )
    print(f"FIGURE native-draft {kind}: {turn['t'] - sent_at:.2f} s from send to model")
    agent.wait_stops(2 if kind != "claude" else 1)
    assert DRAFT in composer_line(agent), "the draft is still in the composer"
    assert not any(DRAFT in request_text(t) for t in fake.turns()), "the draft was not sent"
    assert not any(DRAFT in p for p in agent.prompts()[prompts_before:]), "nor submitted"
    assert world.hail(["sent", sent.id]).out.startswith("injected ")


def claude_pid(world: World, agent: Agent) -> int:
    record = waiter_record(world, agent)
    assert record is not None
    return int(record["claude"])


def waiters_of(world: World, pid: int) -> list[int]:
    mine = []
    for waiter in world.waiters():
        try:
            environ = Path(f"/proc/{waiter}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"CLAUDE_PID={pid}".encode() in environ:
            mine.append(waiter)
    return mine


def cleared(agent: Agent) -> bool:
    """A SessionStart hook ran for `/clear` (a new session in the same process)."""
    return any(
        isinstance(c["payload"], dict) and c["payload"].get("source") == "clear"
        for c in agent.hook_calls("SessionStart")
    )


def test_one_waiter_per_claude_process_through_ten_turns_and_a_clear(world: World) -> None:
    agent = start(world, "claude")
    pid = claude_pid(world, agent)
    for n in range(10):
        world.tmux.submit(agent.pane, f"turn {n + 1}")
        agent.wait_stops(n + 1)
        assert len(waiters_of(world, pid)) <= 2, "the newest replaces the older at once"
    world.tmux.submit(agent.pane, "/clear")
    eventually(lambda: cleared(agent) or None, "/clear ran SessionStart")
    assert wait_until(lambda: len(waiters_of(world, pid)) == 1, 5), waiters_of(world, pid)
    print(f"FIGURE waiters after 10 turns and /clear: {len(waiters_of(world, pid))}")
    time.sleep(2)
    assert len(waiters_of(world, pid)) == 1
    # Still the one that wakes the session.
    sent = world.send("worker", "after the clear", "BODY-CLEAR-1")
    assert sent.rc == 0 and "woken:" in sent.err, sent
    eventually(lambda: first_delivery(world.anthropic, sent.id), "the body reached the model")

    agent.wait_stops(11)
    world.tmux.submit(agent.pane, "/exit")
    assert wait_until(lambda: not alive(pid), 15), "claude exited"
    ended_at = time.monotonic()
    assert wait_until(lambda: not waiters_of(world, pid), 5), "no waiter outlives its session"
    print(f"FIGURE waiter gone after /exit: {time.monotonic() - ended_at:.2f} s")


def test_no_waiter_outlives_a_claude_killed_with_sigkill(world: World) -> None:
    agent = start(world, "claude")
    pid = claude_pid(world, agent)
    assert len(waiters_of(world, pid)) == 1
    os.kill(pid, signal.SIGKILL)
    killed_at = time.monotonic()
    assert wait_until(lambda: not waiters_of(world, pid), 5), waiters_of(world, pid)
    print(f"FIGURE waiter gone after kill -9: {time.monotonic() - killed_at:.2f} s")
    assert not world.waiters()


def claude_p(world: World) -> float:
    env = dict(world.env) | world.client_env("claude")
    started = time.monotonic()
    proc = subprocess.run(
        [str(world.client_bin / "claude"), "-p", "hello from a script"],
        cwd=world.seat["worker"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    took = time.monotonic() - started
    assert proc.returncode == 0 and "FAKE-REPLY" in proc.stdout, proc
    return took


def test_claude_p_is_not_held_by_the_waiter(world: World) -> None:
    settings = world.home / ".claude" / "settings.json"
    with_waiter = settings.read_text()
    world.drop_waiter()
    without_waiter = settings.read_text()
    assert with_waiter != without_waiter
    times: dict[str, list[float]] = {"with": [], "without": []}
    for _ in range(3):
        for name, text in (("with", with_waiter), ("without", without_waiter)):
            settings.write_text(text)
            times[name].append(claude_p(world))
            assert not world.waiters(), "claude -p leaves no waiter"
    med = {name: statistics.median(t) for name, t in times.items()}
    print(
        f"FIGURE claude -p: {med['with']:.2f} s with the waiter, {med['without']:.2f} s without "
        f"(medians of 3; each {times})"
    )
    assert med["with"] < med["without"] + 1.0


def test_a_claude_without_the_waiter_is_typed_into(typing_world: World) -> None:
    world = typing_world
    agent = world.start("claude")
    time.sleep(1)
    assert not world.waiters()
    sent = world.send("worker", HEADLINE, BODY)
    assert sent.rc == 0, sent
    assert sent.err == f"hail: typed: into {agent.pane}\n", sent
    expected = envelope(sent.id, HEADLINE, sender=f"boss/{world.boss_pane}", with_body=True)
    assert submitted_prompt(agent, sent.id) == expected
    eventually(
        lambda: first_delivery(world.anthropic, sent.id), "the framed body reached the model"
    )
    assert world.hail(["sent", sent.id]).out.startswith("injected ")


def test_a_codex_that_has_had_no_prompt_is_typed_into(world: World, kind: str) -> None:
    if kind == "claude":
        return
    agent = world.start("codex", daemon=kind == "codex-daemon")
    assert thread_record(world) is None
    sent = world.send("worker", HEADLINE, BODY)
    if kind == "codex-daemon" and sent.rc == 5:
        # Its first prompt may start Codex's daemon, and the composer then holds it for seconds
        # (docs/real-clients.md "Codex queue"): longer than a send waits to see it leave.
        assert "but the envelope is still in its composer" in sent.err, sent
    else:
        assert sent.rc == 0, sent
        assert sent.err == f"hail: typed: into {agent.pane}\n", sent
    expected = envelope(sent.id, HEADLINE, sender=f"boss/{world.boss_pane}", with_body=True)
    assert submitted_prompt(agent, sent.id) == expected
    eventually(lambda: first_delivery(world.openai, sent.id), "the framed body reached the model")
    agent.wait_stops(1)
    assert world.hail(["sent", sent.id]).out.startswith("injected ")
    eventually(lambda: thread_record(world) or None, "the thread is on record now")


def test_doctor_names_the_agents_a_send_can_only_type_into(typing_world: World) -> None:
    """A Claude Code session with no live waiter (settings from before it), and a Codex whose
    thread hail has not seen (no prompt yet); once the Codex has had one, its note goes."""
    world = typing_world
    claude = world.start("claude", seat="boss")
    codex = world.start("codex", seat="worker")
    time.sleep(11)  # past the grace doctor gives an agent to run its first hook
    doctor = world.hail(["doctor"])
    assert (
        f"note claude in {claude.pane} (seat boss) has no live waiter (hail listen): a send can"
        " only type into it" in doctor.out
    ), doctor
    assert f"note codex in {codex.pane} (seat worker): its thread is unknown to hail" in doctor.out
    world.tmux.submit(codex.pane, "hello")
    codex.wait_stops(1)
    eventually(lambda: thread_record(world) or None, "the thread is on record")
    again = world.hail(["doctor"])
    assert "its thread is unknown" not in again.out, again
