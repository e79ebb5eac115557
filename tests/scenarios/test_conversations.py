"""Conversations between stand-in agents on a scratch tmux server: a reply wakes its idle asker,
`await --reply` and `ask --wait` return the framed answer (or time out), crossing waits of two and
three seats are refused at once, and a chain of replies stops waking anyone at the cap until a
person prompts.

The stand-in is `hail demo`'s agent: it draws a Claude-like composer (`❯` + NBSP), submits on
Enter, and runs `hail deliver --format claude` with the prompt in the JSON payload, as the real
harness does. A reply's envelope typed into it is submitted and its body injected by the hook.
"""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import hail.demo_agent
from tests.scenarios.conftest import Scene, script_command
from tests.support.entry import hail_bin
from tests.support.ids import ID
from tests.support.procs import wait_until

AGENT = "agent-standin"
CAP = 8


class Talk:
    """Stand-in agents in seats; `say` runs hail as the agent in a seat would."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.panes: dict[str, str] = {}
        self.launcher = script_command(scene.root, AGENT, Path(hail.demo_agent.__file__))
        scene.env["HAIL_AGENT_COMMANDS"] = f"bash,cat,{AGENT}"

    def seat(self, name: str, pane: str | None = None, *, key: str | None = None) -> str:
        """Run a stand-in agent in `name` (in `pane`, respawned, or a new window); its pane,
        known to `say` as `key` (default: the seat's name)."""
        cwd = (
            self.scene.make_seat(name)
            if name not in ("boss", "worker")
            else self.scene.seat_dir(name)
        )
        hook = shlex.join([hail_bin(), "deliver", "--format", "claude"])
        script = f"HAIL_DEMO_HOOK={shlex.quote(hook)} exec {shlex.quote(str(self.launcher))}"
        if pane is None:
            pane = self.scene.new_pane(cwd, "sh", "-c", script)
        else:
            self.scene.respawn(pane, cwd, script)
        assert wait_until(lambda: "❯\u00a0" in self.scene.screen(pane), 15), self.scene.screen(pane)
        self.panes[key or name] = pane
        return pane

    def say(self, seat: str, *args: str) -> tuple[int, str, str]:
        r = self.scene.as_pane(self.panes[seat], *args)
        return r.rc, r.out, r.err

    def popen(self, seat: str, *args: str) -> subprocess.Popen[str]:
        env = {**self.scene.env, "HAIL_SOCKET": self.scene.socket, "TMUX_PANE": self.panes[seat]}
        return subprocess.Popen(
            [hail_bin(), *args],
            cwd=self.scene.pane_path(self.panes[seat]),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def person_types(self, seat: str, text: str) -> None:
        """A person types a prompt and presses Enter; the stand-in runs its prompt hook."""
        pane = self.panes[seat]
        self.scene.tmux("send-keys", "-t", pane, "-l", text)
        assert wait_until(lambda: text in self.scene.screen(pane))
        time.sleep(0.3)
        self.scene.tmux("send-keys", "-t", pane, "Enter")
        assert wait_until(lambda: f"❯ {text}" in self.scene.screen(pane))
        assert wait_until(lambda: "noted." in self.scene.screen(pane).split(f"❯ {text}")[-1])

    def submitted(self, seat: str, msg_id: str) -> bool:
        """The stand-in submitted the envelope of `msg_id` and its hook ran."""
        screen = self.scene.screen(self.panes[seat])
        return f"id:{msg_id}" in screen and "noted." in screen.split(f"id:{msg_id}")[-1]

    def waits(self) -> int:
        d = self.scene.state / "waits"
        return len([p for p in d.iterdir() if not p.name.startswith(".")]) if d.is_dir() else 0


@pytest.fixture
def talk(scene: Scene) -> Iterator[Talk]:
    t = Talk(scene)
    t.seat("boss", scene.sender)
    t.seat("worker", scene.recv)
    yield t


def ask_id(out: str) -> str:
    found = re.match(rf"id=({ID})\n", out)
    assert found, out
    return found.group(1)


def test_a_reply_wakes_its_idle_asker_even_as_an_fyi(talk: Talk) -> None:
    talk.person_types("boss", "please get worker's verdict")  # boss's hooks run: fyi is quiet
    rc, out, err = talk.say("boss", "worker", "ask", "Is the migration safe to run twice?")
    assert rc == 0, err
    ask = ask_id(out)
    assert wait_until(lambda: talk.submitted("worker", ask), 15)
    rc, out, err = talk.say("worker", "boss", "fyi", "the build is green")
    assert (rc, "quiet:" in err) == (0, True), "a plain fyi to boss stays quiet"
    plain = ask_id(out)
    rc, out, err = talk.say("worker", "boss", "fyi", "--re", ask, "GO: safe to run twice")
    assert (rc, err) == (0, f"hail: typed: into {talk.panes['boss']}\n"), "the reply was typed"
    answer = ask_id(out)
    assert wait_until(lambda: talk.submitted("boss", answer), 15)
    screen = talk.scene.screen(talk.panes["boss"])
    assert (
        f"from:worker/{talk.panes['worker']} id:{answer} re:{ask}] GO: safe to run twice" in screen
    )
    assert f"id:{plain}" in screen, "the quiet fyi rode the reply's hook"
    assert talk.say("boss", "sent", answer)[1].startswith("injected ")


def test_await_reply_returns_the_framed_reply_or_times_out(talk: Talk) -> None:
    rc, out, _ = talk.say("boss", "worker", "ask", "Is the migration safe to run twice?")
    ask = ask_id(out)
    rc, out, err = talk.say("boss", "await", "--reply", ask, "--timeout", "0.5")
    assert (rc, out) == (1, "")
    assert f"no reply to {ask} within 0.5 s. It still arrives by your hooks" in err
    waiting = talk.popen("boss", "await", "--reply", ask, "--timeout", "30")
    assert wait_until(lambda: talk.waits() == 1)
    rc, out, err = talk.say("worker", "boss", "fyi", "--re", ask, "GO: safe to run twice")
    answer = ask_id(out)
    printed, errors = waiting.communicate(timeout=30)
    assert (waiting.returncode, errors) == (0, "")
    assert printed.startswith("hail: 1 peer message, framed by token ")
    assert f"id:{answer} " in printed and f"re:{ask}] GO: safe to run twice" in printed
    assert talk.waits() == 0


def test_ask_wait_prints_the_id_then_the_reply(talk: Talk) -> None:
    asking = talk.popen("boss", "worker", "ask", "--wait", "30", "Is the migration safe?")
    assert asking.stdout is not None
    ask = ask_id(asking.stdout.readline())
    assert wait_until(lambda: talk.submitted("worker", ask), 15), "the ask woke worker"
    sent_at = time.time()
    _, out, _ = talk.say("worker", "boss", "fyi", "--re", ask, "GO: safe")
    answer = ask_id(out)
    printed, errors = asking.communicate(timeout=30)
    returned = time.time()
    assert asking.returncode == 0, errors
    assert printed.startswith("hail: 1 peer message, framed by token ")
    assert f"id:{answer} " in printed and f"re:{ask}] GO: safe" in printed
    filed = (talk.scene.state / "replies" / ask / answer).lstat().st_mtime
    assert returned - sent_at < 15
    print(
        f"\nask --wait returned {returned - filed:.3f} s after the reply was filed, "
        f"{returned - sent_at:.3f} s after its send started (that send also typed the envelope)"
    )


def test_ask_wait_times_out_and_the_reply_still_wakes_the_asker(talk: Talk) -> None:
    rc, out, err = talk.say("boss", "worker", "ask", "--wait", "1", "Is the migration safe?")
    assert rc == 1
    ask = ask_id(out)
    assert f"error: no reply to {ask} within 1 s." in err
    rc, out, _ = talk.say("worker", "boss", "fyi", "--re", ask, "GO: late but safe")
    assert rc == 0
    answer = ask_id(out)
    assert wait_until(lambda: talk.submitted("boss", answer), 15), "typed into the idle asker"


def test_only_the_seat_asked_ends_the_wait_from_any_of_its_panes(talk: Talk) -> None:
    """worker shares its directory with a second agent: the ask goes to one pane's sub-seat and
    the other pane's answer counts; a third seat's --re is delivered but ends nothing."""
    talk.seat("third")
    other = talk.seat("worker", key="worker-2")
    first = talk.panes["worker"]
    asking = talk.popen("boss", f"worker@{first}", "ask", "--wait", "30", "Is it safe?")
    assert asking.stdout is not None
    ask = ask_id(asking.stdout.readline())
    assert wait_until(lambda: talk.waits() == 1)
    rc, out, err = talk.say("third", "boss", "fyi", "--re", ask, "a comment from third")
    assert rc in (0, 5), err
    comment = ask_id(out)
    time.sleep(1)
    assert asking.poll() is None, "a seat that was not asked does not answer"
    rc, out, err = talk.say("worker-2", "boss", "fyi", "--re", ask, "GO: from the other pane")
    assert rc in (0, 5), err
    answer = ask_id(out)
    printed, errors = asking.communicate(timeout=30)
    assert asking.returncode == 0, errors
    assert f"from:worker@{other} id:{answer} re:{ask}] GO: from the other pane" in printed
    assert comment not in printed
    assert talk.say("boss", "sent", ask)[1].endswith(f" replied {answer}\n")


def test_crossing_waits_of_two_seats_never_deadlock(talk: Talk) -> None:
    boss = talk.popen("boss", "worker", "ask", "--wait", "30", "Can I land the parser?")
    assert boss.stdout is not None
    boss_ask = ask_id(boss.stdout.readline())
    assert wait_until(lambda: talk.waits() == 1)
    start = time.monotonic()
    rc, _, err = talk.say("worker", "boss", "ask", "--wait", "30", "Which parser?")
    assert time.monotonic() - start < 15
    assert rc == 6, err
    assert f"boss is waiting for your reply to {boss_ask} (Can I land the parser?)" in err
    assert err.rstrip().endswith(f"hail boss fyi --re {boss_ask} '<answer>'")
    talk.say("worker", "boss", "fyi", "--re", boss_ask, "GO: the new one")
    assert boss.wait(timeout=30) == 0
    boss.communicate()


def test_crossing_waits_of_three_seats_never_deadlock(talk: Talk) -> None:
    talk.seat("third")
    boss = talk.popen("boss", "worker", "ask", "--wait", "30", "boss asks worker")
    worker = talk.popen("worker", "third", "ask", "--wait", "30", "worker asks third")
    assert boss.stdout is not None and worker.stdout is not None
    boss_ask, worker_ask = ask_id(boss.stdout.readline()), ask_id(worker.stdout.readline())
    assert wait_until(lambda: talk.waits() == 2)
    rc, _, err = talk.say("third", "boss", "ask", "--wait", "30", "third asks boss")
    assert rc == 6, err
    assert f"worker is waiting for your reply to {worker_ask} (worker asks third)" in err
    assert f"hail worker fyi --re {worker_ask} '<answer>'" in err
    talk.say("third", "worker", "fyi", "--re", worker_ask, "answer to worker")
    assert worker.wait(timeout=30) == 0
    talk.say("worker", "boss", "fyi", "--re", boss_ask, "answer to boss")
    assert boss.wait(timeout=30) == 0
    for p in (boss, worker):
        p.communicate()


def test_a_chain_of_replies_stops_waking_at_the_cap_until_a_person_prompts(talk: Talk) -> None:
    rc, out, _ = talk.say("boss", "worker", "ask", "shall we go on?")
    last = ask_id(out)
    assert wait_until(lambda: talk.submitted("worker", last), 15)
    sides = [("worker", "boss"), ("boss", "worker")]  # (from, to): worker answers first
    for n in range(1, CAP + 1):
        frm, to = sides[(n - 1) % 2]
        rc, out, err = talk.say(frm, to, "ask", "--re", last, f"reply {n}")
        assert (rc, err) == (0, f"hail: typed: into {talk.panes[to]}\n"), (n, err)
        last = ask_id(out)
        assert wait_until(functools.partial(talk.submitted, to, last), 15), n
    frm, to = sides[CAP % 2]
    rc, out, err = talk.say(frm, to, "ask", "--re", last, "reply 9")
    assert rc == 5
    assert "not typed (it would be reply 9 in a row with no person's prompt in between" in err
    capped = ask_id(out)
    time.sleep(1)
    assert f"id:{capped}" not in talk.scene.screen(talk.panes[to]), "nobody was woken"
    talk.person_types(to, "what are you two up to?")  # the hook injects the capped one, too
    rc, out, err = talk.say(frm, to, "ask", "--re", capped, "after a person looked in")
    assert (rc, err) == (0, f"hail: typed: into {talk.panes[to]}\n")
    fresh = ask_id(out)
    assert wait_until(lambda: talk.submitted(to, fresh), 15)
