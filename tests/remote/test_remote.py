"""Seats on other machines over a real OpenSSH server [docs/seats.md "Other machines"]."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hail import policy
from hail.remote import wire
from hail.store.presence import waiter as waiter_records
from hail.store.store import Store
from tests.remote.conftest import Net
from tests.scenarios.conftest import script_command
from tests.support.entry import hail_bin
from tests.support.ids import id_of
from tests.support.procs import wait_until


def test_a_send_files_on_the_far_machine_and_its_receipt_comes_back(net: Net) -> None:
    sent = net.alpha.hail("boss", "worker@beta", "ask", "build the release?")
    assert sent.rc == 0, sent
    msg_id = id_of(sent.out)
    assert net.beta.new_files("worker") == [f"{msg_id}.md"]
    text = (net.beta.state / "seats" / "worker" / "new" / f"{msg_id}.md").read_text()
    assert "from: boss@alpha\n" in text and "reply: boss@alpha\n" in text
    envelope = f"[hail kind:ask from:boss@alpha id:{msg_id}] build the release?"
    assert wait_until(lambda: envelope in net.beta.screen(), 10), (sent.err, net.beta.screen())
    receipt = net.alpha.hail("boss", "sent", msg_id)
    assert receipt.rc == 0, receipt
    assert receipt.out.strip() == "delivered"
    kept = net.alpha.hail("boss", "show", msg_id)  # the copy as sent, kept here
    assert kept.rc == 0 and "build the release?" in kept.out, kept


HOSTILE_HEADLINE = "$(touch /tmp/PWN-H) `touch /tmp/PWN-B` 'q' \"dq\" ; rm -rf x && echo hi"
HOSTILE_BODY = (
    "line one $(touch {canary}) `touch {canary}`\n"
    "'single' \"double\" ; touch {canary} && touch {canary} || true\n"
    "\n  indented\ttab | cat > {canary}\n$HOME ${{PATH}} \\ backslash\n"
)


def test_hostile_headlines_and_bodies_cross_byte_for_byte_with_nothing_run(net: Net) -> None:
    canary = net.alpha.root / "canary"
    body = HOSTILE_BODY.format(canary=canary)
    headline = HOSTILE_HEADLINE.replace("/tmp/", f"{net.alpha.root}/")
    sent = net.alpha.hail("boss", "worker@beta", "fyi", "--no-wake", stdin=f"{headline}\n\n{body}")
    assert sent.rc in (0, 5), sent
    msg_id = id_of(sent.out)
    filed = (net.beta.state / "seats" / "worker" / "new" / f"{msg_id}.md").read_text()
    assert f"ask: {headline}\n" in filed
    assert filed.endswith("\n\n" + body.strip("\n") + "\n")
    assert not canary.exists() and not list(net.alpha.root.glob("PWN-*"))
    # Read back through the far side's own inbox: the body as sent.
    shown = net.beta.hail("worker", "show", msg_id)
    assert body.strip("\n").split("\n")[0] in shown.out
    assert not canary.exists()


def test_an_unreachable_host_is_a_clear_error_and_nothing_is_kept(net: Net) -> None:
    net.sshd.dead_alias("gamma")
    net.configs["alpha"].write_text("".join(net.sshd.aliases.values()))
    refused = net.alpha.hail("boss", "worker@gamma", "ask", "are you there?")
    assert refused.rc == 1, refused
    assert "gamma is unreachable: the connection was refused" in refused.err
    assert "Nothing was sent" in refused.err and refused.out == ""
    unknown = net.alpha.hail("boss", "worker@nosuchalias", "ask", "are you there?")
    assert (
        unknown.rc == 1 and "nosuchalias is unreachable: its name does not resolve" in unknown.err
    )
    assert not (net.alpha.state / "remote").exists() or not list(
        (net.alpha.state / "remote").iterdir()
    )


def test_a_host_without_hail_names_the_cause(net: Net) -> None:
    hosts = net.alpha.root / "home" / ".config" / "hail"
    hosts.mkdir(parents=True)
    (hosts / "hosts").write_text("beta /nonexistent/bin/hail\n")
    refused = net.alpha.hail("boss", "worker@beta", "ask", "anyone?")
    assert refused.rc == 1 and "beta has no hail on the PATH ssh gives it" in refused.err, refused
    assert net.beta.new_files("worker") == []


def _dropping_ssh(net: Net, always: bool) -> str:
    """A HAIL_SSH that runs ssh, then exits 255 as if the connection dropped after the far side
    answered (the first time only, unless `always`)."""
    mark = net.alpha.root / "dropped"
    wrapper = net.alpha.root / "dropping-ssh"
    test = "true" if always else f'[ ! -e "{mark}" ]'
    wrapper.write_text(
        "#!/bin/sh\n"
        f"if {test}; then\n"
        f'  touch "{mark}"; ssh -F "{net.configs["alpha"]}" "$@" >/dev/null; exit 255\n'
        "fi\n"
        f'exec ssh -F "{net.configs["alpha"]}" "$@"\n'
    )
    wrapper.chmod(0o755)
    return str(wrapper)


def test_a_dropped_connection_after_filing_files_exactly_once(net: Net) -> None:
    sent = net.alpha.hail(
        "boss", "worker@beta", "ask", "once only", env={"HAIL_SSH": _dropping_ssh(net, False)}
    )
    assert sent.rc == 0, sent
    msg_id = id_of(sent.out)
    assert "already holds" in sent.err and "filed once" in sent.err
    assert net.beta.new_files("worker") == [f"{msg_id}.md"]


def test_a_send_that_cannot_tell_whether_it_landed_says_so(net: Net) -> None:
    wrapper = _dropping_ssh(net, True)
    sent = net.alpha.hail("boss", "worker@beta", "ask", "did it land?", env={"HAIL_SSH": wrapper})
    assert sent.rc == 1, sent
    msg_id = sent.out.strip().removeprefix("id=")
    assert f"cannot tell whether {msg_id} landed" in sent.err
    assert f"hail sent {msg_id}" in sent.err
    # Every attempt reached beta, and beta filed the id once.
    assert net.beta.new_files("worker") == [f"{msg_id}.md"]
    assert net.alpha.hail("boss", "sent", msg_id).out.strip() == "delivered"


def _ask(net: Net, headline: str = "which port?") -> str:
    sent = net.alpha.hail("boss", "worker@beta", "ask", headline)
    assert sent.rc == 0, sent
    return id_of(sent.out)


def test_a_reply_is_pushed_to_the_askers_machine_and_wakes_the_asker(net: Net) -> None:
    ask_id = _ask(net)
    reply = net.beta.hail("worker", "boss@alpha", "fyi", "--re", ask_id, "port 8080")
    assert reply.rc == 0, reply
    reply_id = id_of(reply.out)
    assert net.alpha.new_files("boss") == [f"{reply_id}.md"]
    envelope = f"from:worker@beta id:{reply_id}"
    assert wait_until(lambda: envelope in net.alpha.screen(), 10), net.alpha.screen()
    receipt = net.alpha.hail("boss", "sent", ask_id)
    assert receipt.out.strip() == f"delivered replied {reply_id}", receipt
    got = net.alpha.hail("boss", "await", "--reply", ask_id, "--timeout", "5")
    assert got.rc == 0 and "port 8080" in got.out, got
    watch = net.alpha.hail("boss", "watch", "--once")
    assert "to other machines (1; receipts as hail sent last heard)" in watch.out, watch
    assert (
        f"{ask_id} boss → worker@beta ask: which port? — delivered, replied {reply_id}" in watch.out
    )
    far = json.loads(net.alpha.hail("boss", "watch", "--json").out)["far"]
    assert far == [
        {
            "id": ask_id,
            "from": "boss",
            "to": "worker@beta",
            "kind": "ask",
            "headline": "which port?",
            "receipt": "delivered",
            "replies": [reply_id],
        }
    ], far


def test_a_reply_the_far_side_cannot_push_is_kept_there_and_fetched(net: Net) -> None:
    ask_id = _ask(net)
    net.cut_off()
    reply = net.beta.hail("worker", "boss@alpha", "fyi", "--re", ask_id, "port 9090")
    assert reply.rc == 5, reply
    reply_id = id_of(reply.out)
    assert "alpha is unreachable" in reply.err and "kept here" in reply.err
    assert "fetches it" in reply.err
    assert (net.beta.state / "held" / "alpha" / reply_id).exists()
    assert net.beta.hail("worker", "sent", reply_id).out.startswith("held")
    got = net.alpha.hail("boss", "await", "--reply", ask_id, "--timeout", "10")
    assert got.rc == 0 and "port 9090" in got.out and "from:worker@beta" in got.out, got
    assert not (net.beta.state / "held" / "alpha" / reply_id).exists(), "fetched once, released"
    assert net.alpha.hail("boss", "sent", ask_id).out.strip().endswith(f"replied {reply_id}")


def test_sent_and_inbox_fetch_a_kept_reply(net: Net) -> None:
    ask_id = _ask(net)
    net.cut_off()
    reply = net.beta.hail("worker", "boss@alpha", "fyi", "--re", ask_id, "kept for inbox")
    assert reply.rc == 5, reply
    inbox = net.alpha.hail("boss", "inbox")
    assert "kept for inbox" in inbox.out, inbox
    assert net.alpha.hail("boss", "inbox").out.strip() == "(inbox empty)"


@contextlib.contextmanager
def _in_background(net: Net, *args: str) -> Iterator[subprocess.Popen[str]]:
    """hail on alpha as a background process (a wait), killed if the test leaves it running."""
    env = {**net.alpha.env, "TMUX_PANE": net.alpha.pane}
    proc = subprocess.Popen(
        [hail_bin(), *args],
        cwd=net.alpha.seat_dir("boss"),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


@pytest.mark.parametrize("reachable", [True, False])
def test_ask_wait_waits_across_machines(net: Net, reachable: bool) -> None:
    if not reachable:
        net.cut_off()
    with _in_background(net, "worker@beta", "ask", "--wait", "30", "ready to ship?") as asker:
        assert asker.stdout is not None
        line = asker.stdout.readline()
        ask_id = line.strip().removeprefix("id=")
        reply = net.beta.hail("worker", "boss@alpha", "fyi", "--re", ask_id, "ship it")
        assert reply.rc == (0 if reachable else 5), reply
        out, err = asker.communicate(timeout=40)
    assert asker.returncode == 0, err
    assert "ship it" in out


def test_crossing_waits_between_machines_are_refused(net: Net) -> None:
    with _in_background(net, "worker@beta", "ask", "--wait", "30", "your call?") as asker:
        assert asker.stdout is not None
        ask_id = asker.stdout.readline().strip().removeprefix("id=")
        crossed = net.beta.hail("worker", "boss@alpha", "ask", "--wait", "20", "mine first?")
        assert crossed.rc == 6, crossed
        assert f"boss@alpha is waiting for your reply to {ask_id}" in crossed.err
        answer = net.beta.hail("worker", "boss@alpha", "fyi", "--re", ask_id, "yours")
        assert answer.rc == 0, answer
        out, err = asker.communicate(timeout=40)
    assert asker.returncode == 0 and "yours" in out, err


def test_seats_and_doctor_of_another_machine(net: Net) -> None:
    seats = net.alpha.hail("boss", "seats", "@beta")
    assert seats.rc == 0 and "worker" in seats.out, seats
    doctor = net.alpha.hail("boss", "doctor", "beta")
    assert doctor.rc == 0 and "ssh reaches beta" in doctor.out, doctor
    net.sshd.dead_alias("gamma")
    net.configs["alpha"].write_text("".join(net.sshd.aliases.values()))
    bad = net.alpha.hail("boss", "doctor", "gamma")
    assert bad.rc == 1 and "gamma is unreachable" in bad.out, bad


def test_a_native_wake_on_the_far_machine(net: Net) -> None:
    """A stand-in Claude Code on the far machine whose waiter is its own child (as Claude Code runs
    its hooks): the send from the near machine wakes it there, nothing typed."""
    screens = Path(__file__).resolve().parent.parent / "data" / "screens"
    still = Path(__file__).resolve().parent.parent / "scenarios" / "still_screen.py"
    exe = script_command(
        net.beta.root, "claude", still, str(screens / "cc53-latest-default-mode.txt")
    )
    worker = net.beta.seat_dir("worker")
    spawn = net.beta.root / "claude-spawn"
    spawn.mkdir()
    net.beta.server.respawn(net.beta.pane, worker, ["sh", "-c", f"exec '{exe}' '{spawn}'"])
    assert wait_until(lambda: net.beta.screen().strip() != "", 10)
    pid = int(net.beta.server.display(net.beta.pane, "#{pane_pid}"))
    env = {
        **net.beta.env,
        "HAIL_AGENT_COMMANDS": "bash,cat,claude",
        "CLAUDE_PID": str(pid),
        "TMUX_PANE": net.beta.pane,
        "CLAUDE_CODE_ENTRYPOINT": "cli",
        "CLAUDE_CODE_SESSION_ATTENDED": "1",
    }
    (spawn / "stdin").write_bytes(
        b'{"session_id":"s-1","hook_event_name":"SessionStart","source":"startup"}'
    )
    spec = {
        "argv": [hail_bin(), "listen", "--format", "claude"],
        "env": env,
        "cwd": str(worker),
        "stdin": str(spawn / "stdin"),
    }
    (spawn / "spawn.json").write_text(json.dumps(spec))
    os.kill(pid, signal.SIGUSR2)  # the stand-in starts the waiter as its own child
    assert wait_until(lambda: (spawn / "pid").exists(), 10)
    waiter = int((spawn / "pid").read_text())
    try:
        store = Store(str(net.beta.state))
        assert wait_until(lambda: any(w.pid == waiter for w in waiter_records.waiters(store)), 10)
        before = net.beta.screen()
        sent = net.alpha.hail("boss", "worker@beta", "ask", "are the tests green")
        assert sent.rc == 0, sent
        assert "hail: beta: woken: worker's session" in sent.err, sent.err
        status = spawn / f"status-{waiter}"
        assert wait_until(status.exists, 5) and status.read_text().strip() == "2", (
            "the far waiter woke its session"
        )
        assert net.beta.screen() == before, "nothing typed"
    finally:
        with contextlib.suppress(OSError):
            os.kill(waiter, signal.SIGKILL)


def test_a_send_to_this_machines_own_name_is_a_local_send(net: Net) -> None:
    (net.alpha.root / "helper").mkdir()
    (net.alpha.root / "helper" / ".hail-seat").write_text("helper\n")
    net.alpha.hail("helper", "whoami")
    assert net.alpha.hail("helper", "inbox").rc == 0  # its mailbox exists
    sent = net.alpha.hail("boss", "helper@alpha", "fyi", "--no-wake", "next door")
    assert sent.rc == 5, sent
    assert net.alpha.new_files("helper") == [f"{id_of(sent.out)}.md"]
    assert not (net.alpha.state / "remote").exists()


def test_a_bad_hail_host_is_refused_before_anything_is_sent(net: Net) -> None:
    sent = net.alpha.hail("boss", "worker@beta", "ask", "hi", env={"HAIL_HOST": "no good"})
    assert sent.rc == 1 and "HAIL_HOST=no good is not a host name" in sent.err, sent
    assert net.beta.new_files("worker") == []


def test_a_message_that_signs_as_the_far_machine_itself_is_refused(net: Net) -> None:
    """A request written by hand, as another machine's hail would send it, claiming to come from
    beta itself: beta files nothing."""
    fields = {"id": "1201T000000-abcd", "to": "worker", "from-seat": "boss", "from-host": "beta"}
    fields.update(kind="ask", ask="I am local")
    answer = subprocess.run(
        ["ssh", "-F", str(net.configs["alpha"]), "beta", "hail", "remote-peer"],
        input=wire.request("send", fields),
        capture_output=True,
        timeout=60,
        check=False,
    )
    got = wire.read(answer.stdout)
    assert got is not None and got.get("code") == "1" and got.get("filed") == "no", answer
    assert "cannot sign as this machine (beta)" in got.get("error")
    assert net.beta.new_files("worker") == []


def test_an_unknown_seat_there_is_the_far_error_naming_that_machine(net: Net) -> None:
    sent = net.alpha.hail("boss", "nobody@beta", "ask", "hello?")
    assert sent.rc == 1 and sent.out == "", sent
    assert "error: beta: unknown seat 'nobody'" in sent.err
    assert "hail seats @beta lists them" in sent.err
    assert not list((net.alpha.state / "remote").glob("*.md"))


def test_a_key_that_pins_its_host_signs_every_message_as_that_host(net: Net) -> None:
    net.sshd.machine("beta-pinned", {**net.beta.landing, "HAIL_PEER_HOST": "laptop"})
    net.configs["alpha"].write_text("".join(net.sshd.aliases.values()))
    sent = net.alpha.hail("boss", "worker@beta-pinned", "fyi", "--no-wake", "who am I?")
    assert sent.rc == 5, sent
    text = (net.beta.state / "seats" / "worker" / "new" / f"{id_of(sent.out)}.md").read_text()
    assert "from: boss@laptop\n" in text and "reply: boss@laptop\n" in text


def _far_program(net: Net, script: str) -> None:
    program = net.alpha.root / "far-hail"
    program.write_text(f"#!/bin/sh\ncat >/dev/null\n{script}\n")
    program.chmod(0o755)
    hosts = net.alpha.root / "home" / ".config" / "hail"
    hosts.mkdir(parents=True, exist_ok=True)
    (hosts / "hosts").write_text(f"beta {program}\n")


def test_a_far_hail_of_another_protocol_is_a_clear_error(net: Net) -> None:
    other = int(wire.PROTOCOL) + 1
    _far_program(net, f"printf 'hail-peer: {other}\\ncode: 0\\n\\n'")
    sent = net.alpha.hail("boss", "worker@beta", "ask", "hi")
    said = f"beta speaks peer protocol {other}, this hail {wire.PROTOCOL}"
    assert sent.rc == 1 and said in sent.err, sent
    assert "Nothing was sent" in sent.err


def test_an_older_hail_there_is_a_clear_error(net: Net) -> None:
    _far_program(net, "echo \"error: kind is missing: hail peer <kind> '<headline>'\" >&2; exit 1")
    sent = net.alpha.hail("boss", "worker@beta", "ask", "hi")
    said = f"answered, but not as a hail that speaks peer protocol {wire.PROTOCOL}"
    assert sent.rc == 1 and said in sent.err
    assert "kind is missing" in sent.err, sent


def test_gc_removes_old_copies_of_sends_to_other_machines(net: Net) -> None:
    msg_id = _ask(net)
    copy = net.alpha.state / "remote" / f"{msg_id}.md"
    old = time.time() - 100 * 86400
    os.utime(copy, (old, old))
    gc = net.alpha.hail("boss", "gc")
    assert "removed 1 copies of messages sent to other machines over 90 days ago" in gc.out, gc
    assert not copy.exists() and not (net.alpha.state / "ids" / msg_id).is_symlink()


def test_sent_fetches_a_kept_reply_and_shows_it_replied(net: Net) -> None:
    ask_id = _ask(net)
    net.cut_off()
    reply = net.beta.hail("worker", "boss@alpha", "fyi", "--re", ask_id, "kept for sent")
    reply_id = id_of(reply.out)
    receipt = net.alpha.hail("boss", "sent", ask_id)
    assert receipt.rc == 0 and receipt.out.strip().endswith(f"replied {reply_id}"), receipt
    assert net.alpha.new_files("boss") == [f"{reply_id}.md"]
    assert (
        net.beta.hail("worker", "sent", reply_id).out.strip()
        != "held (kept here until alpha fetches it)"
    )


def test_await_waits_for_a_receipt_on_the_far_machine(net: Net) -> None:
    msg_id = _ask(net, "read me")
    with _in_background(net, "await", msg_id, "--timeout", "30") as waiting:
        time.sleep(0.5)
        assert waiting.poll() is None, "no receipt yet"
        assert "read me" in net.beta.hail("worker", "inbox").out
        out, err = waiting.communicate(timeout=40)
    assert waiting.returncode == 0, err
    assert out.startswith(f"{msg_id} read 20"), out


def test_inbox_does_not_wait_on_a_host_it_just_found_out_of_reach(net: Net) -> None:
    """An open ask to a machine that went away: the first `inbox` tries it once (a connect
    timeout at most), the next ones within REMOTE_RETRY_SECONDS make no ssh call; `sent` still
    asks, and says the machine is out of reach."""
    ask_id = _ask(net)
    net.sshd.dead_alias("beta")
    net.configs["alpha"].write_text("".join(net.sshd.aliases.values()))
    calls = net.alpha.root / "ssh-calls"
    wrapper = net.alpha.root / "logged-ssh"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{calls}"\nexec ssh "$@"\n')
    wrapper.chmod(0o755)
    logged = {"HAIL_SSH": f"{wrapper} -F {net.configs['alpha']}"}

    first = net.alpha.hail("boss", "inbox", env=logged)
    assert first.rc == 0 and first.out.strip() == "(inbox empty)", first
    tried = calls.read_text().splitlines()
    assert len(tried) == 1 and "beta" in tried[0], tried
    assert net.alpha.hail("boss", "inbox", env=logged).rc == 0
    assert net.alpha.hail("boss", "inbox", env=logged).rc == 0
    assert calls.read_text().splitlines() == tried, "no ssh call within the retry window"

    receipt = net.alpha.hail("boss", "sent", ask_id, env=logged)
    assert len(calls.read_text().splitlines()) > 1, "sent asks all the same"
    assert "unreachable" in receipt.out + receipt.err, receipt


def test_a_far_shell_that_prints_before_the_answer_still_files_once(net: Net) -> None:
    """beta's `.bashrc` prints a line for every command ssh runs there: the send finds hail's
    answer after it, says nothing of the noise, and `hail doctor beta` names it and its source."""
    (net.beta.root / "home" / ".bashrc").write_text('echo "Welcome to beta, $USER"\n')
    probe = subprocess.run(
        ["ssh", "-F", str(net.configs["alpha"]), "beta", "true"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    if b"Welcome to beta" not in probe.stdout:
        pytest.skip("the far login shell reads no ~/.bashrc for a command")

    sent = net.alpha.hail("boss", "worker@beta", "ask", "past the banner?")

    assert sent.rc == 0, sent
    assert "Nothing was sent" not in sent.err and "Welcome" not in sent.err
    assert net.beta.new_files("worker") == [f"{id_of(sent.out)}.md"]
    doctor = net.alpha.hail("boss", "doctor", "beta")
    assert doctor.rc == 0, doctor
    assert "beta's shell prints before hail's answer: Welcome to beta" in doctor.out, doctor.out
    assert "~/.bashrc" in doctor.out


def test_a_connection_that_stops_answering_is_given_up_within_seconds(net: Net) -> None:
    """The shared connection to beta goes dead under its master (beta's side of it stopped, as a
    dropped link leaves it): ssh's keep-alives give it up within seconds, and the next send goes
    over a new connection, where without them it waited out the whole call (a minute)."""
    first = net.alpha.hail("boss", "worker@beta", "fyi", "--no-wake", "opens the connection")
    assert first.rc == 5, first
    assert net.sshd.masters(), "a shared connection is open"
    listener = net.sshd.proc.pid if net.sshd.proc is not None else 0
    stalled = [p for p in net.sshd.sessions() if p != listener]
    assert stalled, "beta's side of the shared connection"
    for pid in stalled:
        os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        sent = net.alpha.hail("boss", "worker@beta", "fyi", "--no-wake", "after the stall")
        took = time.monotonic() - started
    finally:
        for pid in stalled:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGCONT)
    assert sent.rc == 5, sent
    assert f"{id_of(sent.out)}.md" in net.beta.new_files("worker")
    alive = policy.SSH_ALIVE_SECONDS * (policy.SSH_ALIVE_COUNT + 1)
    assert took < alive + 2 * policy.SSH_CONNECT_TIMEOUT + 5, f"{took:.1f} s"


def test_the_person_of_another_machine_is_asked_and_answers(net: Net) -> None:
    """`person@beta` is beta's person [docs/seats.md "The person"]: filed there, typed nowhere;
    beta's person answers with `--as person` from a terminal, and the reply reaches the asker."""
    from tests.support.person import run_as_person, without_agents

    sent = net.alpha.hail("boss", "person@beta", "ask", "deploy tonight?")
    assert sent.rc == 0, sent
    ask_id = id_of(sent.out)
    assert net.beta.new_files("person") == [f"{ask_id}.md"]
    assert "filed for the person: they see it in hail watch" in sent.err, sent
    assert ask_id not in net.beta.screen()
    env = {k: v for k, v in without_agents(net.beta.env).items() if k != "HAIL_AGENT_COMMANDS"}
    inbox = run_as_person("--as", "person", "inbox", cwd=net.beta.root, env=env)
    assert inbox.returncode == 0, inbox
    assert f"ask from:boss@alpha id:{ask_id}] deploy tonight?" in inbox.stdout
    reply = run_as_person(
        "--as", "person", "boss@alpha", "fyi", "--re", ask_id, "GO", cwd=net.beta.root, env=env
    )
    assert reply.returncode in (0, 5), reply  # filed on alpha; woken there or not
    reply_id = id_of(reply.stdout)
    got = net.alpha.hail("boss", "await", "--reply", ask_id, "--timeout", "5")
    assert got.rc == 0, got
    assert f"fyi from:person@beta id:{reply_id} re:{ask_id}] GO" in got.out
    assert "from:person is your user's seat" in got.out
