"""The peer protocol between two hails, end to end, over the loopback channel
(src/hail/remote/loopback.py; docs/seats.md "Other machines"): two machines on this one, each a
HOME and a state of its own, each hail's far side a real `hail remote-peer` subprocess. What only a
real sshd shows (keys, the forced command, connection sharing, a dropped link) stays in
tests/remote; everything the protocol itself carries is shown here without one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.entry import hail_bin
from tests.support.ids import id_of
from tests.support.world import World, clean_env

MACHINES = ("near", "far")


class Machines:
    """Two worlds, `near` (the test's) and `far`, each reaching the other by loopback."""

    def __init__(self, root: Path) -> None:
        self.loopback = root / "machines"
        self.worlds: dict[str, World] = {}
        for name in MACHINES:
            base = root / name
            world = World(base, env=clean_env(base))
            world.env.update(
                HAIL_HOST=name,
                HAIL_CHANNEL="loopback",
                HAIL_LOOPBACK=str(self.loopback),
                HAIL_SOCKET=str(base / "no-tmux"),
            )
            world.make_seat("boss")
            world.make_seat("worker")
            (self.loopback / name).mkdir(parents=True)
            lines = [f"{k}={v}" for k, v in world.env.items() if k.isidentifier()]
            lines.append(f"PATH={Path(hail_bin()).parent}:/usr/bin:/bin")
            (self.loopback / name / "env").write_text("\n".join(lines) + "\n")
            self.worlds[name] = world
        for world in self.worlds.values():
            world.run("whoami", cwd="worker")  # known seats

    def __getitem__(self, name: str) -> World:
        return self.worlds[name]

    def unreachable(self, name: str) -> None:
        (self.loopback / name / "env").rename(self.loopback / name / "env.off")

    def reachable(self, name: str) -> None:
        (self.loopback / name / "env.off").rename(self.loopback / name / "env")


@pytest.fixture
def machines(tmp_path: Path) -> Machines:
    return Machines(tmp_path)


def filed(world: World, mailbox: str) -> list[str]:
    d = world.state / "seats" / mailbox / "new"
    return sorted(p.name for p in d.iterdir()) if d.is_dir() else []


def test_a_send_is_filed_there_under_its_id_and_signed_by_this_machine(
    machines: Machines,
) -> None:
    near, far = machines["near"], machines["far"]
    sent = near.run("worker@far", "ask", "Which port does the build use?", "It moved last week.")
    assert sent.returncode == 5, sent.stderr  # filed there; no agent there to wake
    msg_id = id_of(sent.stdout)
    assert filed(far, "worker") == [f"{msg_id}.md"]
    text = (far.state / "seats" / "worker" / "new" / f"{msg_id}.md").read_text()
    assert "from: boss@near\n" in text and "It moved last week." in text
    assert "hail: far: delivered to worker's inbox" in sent.stderr  # the far side's note, a field
    assert near.run("sent", msg_id).stdout.strip() == "delivered"


def test_a_reply_crosses_back_and_ends_the_askers_wait(machines: Machines) -> None:
    near, far = machines["near"], machines["far"]
    asked = id_of(near.run("worker@far", "ask", "ready?").stdout)
    reply = far.run("boss@near", "fyi", "--re", asked, "ready: port 8443", cwd="worker")
    assert reply.returncode in (0, 5), reply.stderr
    waited = near.run("await", "--reply", asked, "--timeout", "5")
    assert waited.returncode == 0, waited.stderr
    assert "ready: port 8443" in waited.stdout
    assert "from:worker@far" in waited.stdout


def test_a_reply_that_cannot_be_pushed_is_kept_there_and_fetched_by_inbox(
    machines: Machines,
) -> None:
    near, far = machines["near"], machines["far"]
    asked = id_of(near.run("worker@far", "ask", "ready?").stdout)
    machines.unreachable("near")
    kept = far.run("boss@near", "fyi", "--re", asked, "kept: done", cwd="worker")
    assert kept.returncode == 5 and "The reply is kept here" in kept.stderr, kept.stderr
    machines.reachable("near")
    inbox = near.run("inbox")
    assert "kept: done" in inbox.stdout, (inbox.stdout, inbox.stderr)
    assert not list((far.state / "held").rglob("*[0-9a-f]")), "fetched, then let go there"


def test_a_retried_id_is_filed_once(machines: Machines) -> None:
    from hail.remote import wire

    near, far = machines["near"], machines["far"]
    msg_id = id_of(near.run("worker@far", "fyi", "once").stdout)
    again = wire.request(
        "send",
        {"id": msg_id, "to": "worker", "from-seat": "boss", "from-host": "near", "kind": "fyi"}
        | {"ask": "once"},
    )
    env = {**far.env, "HAIL_PEER_HOST": "near"}
    answer = wire.read(far.run("remote-peer", stdin=again.decode(), env=env).stdout.encode())
    assert answer is not None
    assert wire.Answered.decode(answer).filed == "duplicate"
    assert filed(far, "worker") == [f"{msg_id}.md"]


def test_seats_and_doctor_reach_the_other_machine(machines: Machines) -> None:
    near = machines["near"]
    seats = near.run("seats", "@far")
    assert seats.returncode == 0, seats.stderr
    assert "worker" in seats.stdout and "SEAT" in seats.stdout
    doctor = near.run("doctor", "far")
    assert doctor.returncode == 0, doctor.stderr
    assert "loopback reaches far" in doctor.stdout
    assert "far calls itself far; this machine signs as near" in doctor.stdout


def test_a_machine_that_is_not_there_is_unreachable_and_nothing_is_kept(
    machines: Machines,
) -> None:
    near = machines["near"]
    sent = near.run("worker@elsewhere", "ask", "anyone?")
    assert sent.returncode == 1
    assert "elsewhere is unreachable" in sent.stderr and "Nothing was sent" in sent.stderr
    assert not list((near.state / "remote").glob("*.md"))


def test_another_machines_seats_come_as_rows_and_watch_shows_them_as_last_seen(
    machines: Machines,
) -> None:
    import json

    near = machines["near"]
    listed = near.run("seats", "@far", "--json")
    assert listed.returncode == 0, listed.stderr
    document = json.loads(listed.stdout)
    assert document["host"] == "far"
    assert "worker" in {s["mailbox"] for s in document["seats"]}
    watched = json.loads(near.run("watch", "--json").stdout)
    (far,) = watched["far_seats"]
    assert far["host"] == "far" and [s["mailbox"] for s in far["seats"]] == [
        s["mailbox"] for s in document["seats"]
    ]
    once = near.run("watch", "--once").stdout
    assert "SEATS ON far (" in once and "as hail seats @far saw them" in once


def test_seat_rows_another_machine_forges_are_shown_clean_or_left_out(
    machines: Machines,
) -> None:
    """A far hail's rows are another machine's word: a control character in a value is shown
    escaped, a row of the wrong shape is left out, and the rest shown."""
    import json

    from hail.seat_rows import rows_from_text

    good = json.loads(machines["far"].run("seats", "--json").stdout)["seats"][0]
    forged = dict(good, mailbox="evil\x1b]2;PWNED\x07")
    rows, dropped = rows_from_text(json.dumps([forged, {"mailbox": 5}, good]), 0.0)
    assert dropped == 1 and len(rows) == 2
    assert "\x1b" not in rows[0].mailbox and rows[1].mailbox == good["mailbox"]


def test_the_person_of_another_machine_is_asked_and_answers(machines: Machines) -> None:
    """`person@far` [docs/seats.md "The person"]: filed in far's person's inbox (exit 0, the far
    side's note says where they see it); far's person answers with `--as person` from a terminal,
    and the asker gets the reply signed `person@far`."""
    from tests.support.person import run_as_person, without_agents

    near, far = machines["near"], machines["far"]
    sent = near.run("person@far", "ask", "deploy tonight?")
    assert sent.returncode == 0, sent.stderr
    ask_id = id_of(sent.stdout)
    assert filed(far, "person") == [f"{ask_id}.md"]
    assert "hail: far: filed for the person: they see it in hail watch" in sent.stderr
    env = {k: v for k, v in without_agents(far.env).items() if k != "HAIL_AGENT_COMMANDS"}
    reply = run_as_person(
        "--as", "person", "boss@near", "fyi", "--re", ask_id, "GO", cwd=far.root, env=env
    )
    assert reply.returncode == 5, reply  # filed near; no agent there to wake
    got = near.run("await", "--reply", ask_id, "--timeout", "5")
    assert got.returncode == 0, got.stderr
    assert f"fyi from:person@far id:{id_of(reply.stdout)} re:{ask_id}] GO" in got.stdout
    assert "from:person is your user's seat" in got.stdout


def test_all_at_a_host_broadcasts_there(machines: Machines) -> None:
    """`all@far` [docs/commands.md "Broadcast"]: a copy for each of far's seats, the first under
    the sender's id, each copy's line and the summary coming back as far's notes."""
    near, far = machines["near"], machines["far"]
    far.run("whoami", cwd="boss")
    sent = near.run("all@far", "announce", "freeze main")
    assert sent.returncode == 5, sent.stderr  # filed there; no agent there to wake
    msg_id = id_of(sent.stdout)
    lines = [line for line in sent.stderr.splitlines() if line.startswith("hail: far: id=")]
    seats = sorted(line.rsplit(" to=", 1)[1] for line in lines)
    assert seats == ["boss", "worker"], sent.stderr
    assert f"hail: far: id={msg_id} to=boss" in sent.stderr
    assert f"hail: far: batch={msg_id} copies=2:" in sent.stderr
    for seat in seats:
        (one,) = filed(far, seat)
        text = (far.state / "seats" / seat / "new" / one).read_text()
        assert "from: boss@near\n" in text and f"batch: {msg_id}\n" in text
    assert near.run("sent", msg_id).stdout.strip() == "delivered"
    again = near.run("all@far", "announce", "freeze main")
    assert again.returncode == 5 and len(filed(far, "boss")) == 2  # a new broadcast, once each
