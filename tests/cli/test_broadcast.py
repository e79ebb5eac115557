"""`hail all <kind> …` without tmux (docs/commands.md "Broadcast"): a copy per seat with a mailbox
but the sender's and the person's, each with its own id and a shared batch; the summary line and
the worst exit code; a release `--re` one copy of a broadcast hold lifts every copy."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.world import World, clean_env

LINE = re.compile(r"^id=(\S+) to=(\S+)$")


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path, clean_env(tmp_path))
    for seat in ("boss", "api", "web"):
        w.make_seat(seat)
        w.run("whoami", cwd=seat)
    assert w.run("person", "fyi", "a mailbox for the person too").returncode == 0
    return w


def copies(out: str) -> dict[str, str]:
    """Seat → id, from the `id=… to=…` lines."""
    return {m[2]: m[1] for line in out.splitlines() if (m := LINE.match(line))}


def test_all_files_one_copy_per_other_seat_with_its_own_id_and_one_batch(world: World) -> None:
    proc = world.run("all", "announce", "freeze main", "--no-wake")
    assert proc.returncode == 5, proc.stderr
    got = copies(proc.stdout)
    assert sorted(got) == ["api", "web"]  # not the sender, not the person
    assert len(set(got.values())) == 2
    summary = proc.stdout.splitlines()[-1]
    assert re.fullmatch(r"batch=(\S+) copies=2: 2 in the inbox, not woken; exit 5", summary)
    batch = summary.split()[0].removeprefix("batch=")
    for seat, msg_id in got.items():
        text = (world.state / "seats" / seat / "new" / f"{msg_id}.md").read_text()
        assert f"batch: {batch}\n" in text
        assert list((world.state / "seats" / seat / "new").iterdir()) == [
            world.state / "seats" / seat / "new" / f"{msg_id}.md"
        ]


def test_a_release_of_one_copy_of_a_broadcast_hold_releases_every_copy(world: World) -> None:
    held = copies(world.run("all", "hold", "--for", "1h", "no pushes", "--no-wake").stdout)
    assert sorted(held) == ["api", "web"]
    assert sorted(p.name for p in (world.state / "holds").iterdir()) == sorted(held.values())
    proc = world.run("all", "release", "--re", held["api"], "pushes are fine", "--no-wake")
    assert proc.returncode == 5, proc.stderr
    released = copies(proc.stdout)
    assert sorted(released) == ["api", "web"]
    assert [p.name for p in (world.state / "holds").iterdir() if p.is_file()] == []
    for seat, msg_id in released.items():
        text = (world.state / "seats" / seat / "new" / f"{msg_id}.md").read_text()
        assert f"re: {held[seat]}\n" in text  # each release answers its own seat's copy


def test_a_broadcast_exits_with_its_worst_copy(world: World) -> None:
    # web's mailbox is another user's to write: its copy is refused (exit 1), api's still filed.
    (world.state / "seats" / "web").chmod(0o777)
    proc = world.run("all", "fyi", "heads up", "--no-wake")
    assert proc.returncode == 1
    assert sorted(copies(proc.stdout)) == ["api"]
    assert "hail: not sent to web (exit 1):" in proc.stderr
    assert proc.stdout.splitlines()[-1].endswith(
        "copies=2: 1 in the inbox, not woken, 1 refused; exit 1"
    )


def test_all_with_wait_is_refused_before_anything_is_filed(world: World) -> None:
    before = sorted(p for p in world.state.rglob("*"))
    proc = world.run("all", "ask", "--wait", "who is free?")
    assert proc.returncode == 1
    assert "--wait waits for one reply" in proc.stderr
    assert sorted(p for p in world.state.rglob("*")) == before
