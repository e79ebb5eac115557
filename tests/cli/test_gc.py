"""`hail gc` through the installed entry point [docs/commands.md "gc"].

Messages are sent and read with hail itself; only their times are moved back with os.utime.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

from tests.support.world import World

DAY = 86400


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _month(t: float) -> str:
    return time.strftime("%Y-%m", time.gmtime(t))


def _age(path: Path, days: float) -> float:
    t = time.time() - days * DAY
    os.utime(path, (t, t))
    return t


def _result(world: World, read: int, boxes: int, unread: int, holds: int, recs: int) -> str:
    return (
        f"archived {read} read messages older than 90 days into {world.state / 'archive'}\n"
        f"archived {boxes} mailboxes of deleted workspaces ({unread} unread among them)\n"
        f"removed {holds} lapsed holds (lapsed over 90 days ago, or from a seat that is gone)\n"
        f"removed {recs} stale pending records and read marks\n"
    )


def test_gc_read_mail_is_archived_and_still_found(world: World) -> None:
    world.run("whoami", cwd="worker")
    old_id = world.send("worker", "ask", "old news", known=False)
    assert world.run("inbox", cwd="worker").returncode == 0
    cur = world.state / "seats" / "worker" / "cur" / f"{old_id}.read.md"
    when = _age(cur, 100)
    unread_id = world.send("worker", "fyi", "still unread", known=False)
    _age(world.state / "seats" / "worker" / "new" / f"{unread_id}.md", 100)

    r = world.run("gc")
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == _result(world, 1, 0, 0, 0, 0)
    assert not os.path.lexists(world.state / "ids" / old_id)
    index = (world.state / "archive" / "index").read_text()
    assert f"{old_id} {_month(when)} worker\n" in index
    assert (
        world.state / "archive" / _month(when) / "worker" / "cur" / f"{old_id}.read.md"
    ).is_file()
    assert not cur.exists()
    assert world.run("sent", old_id).stdout == f"read {_iso(when)}\n"
    shown = world.run("show", old_id)
    assert shown.returncode == 0
    assert "old news" in shown.stdout
    assert f"receipt: read {_iso(when)}" in shown.stdout
    await_ = world.run("await", old_id, "--timeout", "0.2")
    assert await_.stdout == f"{old_id} read {_iso(when)}\n"
    # an unread message of a live seat stays, however old
    assert (world.state / "seats" / "worker" / "new" / f"{unread_id}.md").is_file()
    assert world.run("sent", unread_id).stdout == "delivered\n"


def test_gc_a_deleted_workspace_is_archived_with_its_unread_mail(world: World) -> None:
    world.make_seat("temp")
    world.run("whoami", cwd="temp")
    msg_id = world.send("temp", "ask", "for a workspace that will go", known=False)
    box = world.state / "seats" / "temp"
    (box / "hooked").touch()
    _age(box / "hooked", 100)
    shutil.rmtree(world.seat_dir("temp"))

    r = world.run("gc")
    assert r.returncode == 0
    assert r.stdout == _result(world, 0, 1, 1, 0, 0)
    assert not box.exists()
    assert world.run("sent", msg_id).stdout == "delivered\n"
    shown = world.run("show", msg_id)
    assert shown.returncode == 0 and "for a workspace that will go" in shown.stdout
    month = _month(time.time())
    assert (world.state / "archive" / month / "temp" / "new" / f"{msg_id}.md").is_file()
    # the name is free again: a new workspace may take it
    world.make_seat("temp")
    assert world.run("whoami", cwd="temp").returncode == 0


def test_a_deleted_workspace_read_lately_is_kept(world: World) -> None:
    world.make_seat("temp")
    world.run("whoami", cwd="temp")
    world.send("temp", "ask", "x", known=False)
    (world.state / "seats" / "temp" / "hooked").touch()
    shutil.rmtree(world.seat_dir("temp"))
    assert world.run("gc").stdout == _result(world, 0, 0, 0, 0, 0)
    assert (world.state / "seats" / "temp" / "root").is_file()


def test_gc_a_hold_that_lapsed_100_days_ago_is_removed(world: World) -> None:
    world.run("whoami", cwd="worker")
    hold_id = world.send("worker", "hold", "freeze the schema", known=False)
    live_id = world.send("worker", "hold", "freeze the API", known=False)
    record = world.state / "holds" / hold_id
    text = record.read_text()
    lapsed = re.sub(r"(?m)^expires: .*$", f"expires: {_iso(time.time() - 100 * DAY)}", text)
    assert lapsed != text
    record.write_text(lapsed)
    r = world.run("gc")
    assert r.stdout == _result(world, 0, 0, 0, 1, 0)
    assert not record.exists()
    assert (world.state / "holds" / live_id).exists()


def test_stale_pending_records_and_read_marks_are_swept(world: World) -> None:
    world.run("whoami", cwd="worker")
    msg_id = world.send("worker", "ask", "waiting a long time", known=False)
    pending = world.state / "seats" / "boss" / "pending" / msg_id
    text = pending.read_text()
    pending.write_text(re.sub(r"(?m)^epoch: .*$", f"epoch: {int(time.time() - 100 * DAY)}", text))
    marks = world.state / "read"
    marks.mkdir(mode=0o700)
    (marks / "_3").touch()
    _age(marks / "_3", 100)
    assert world.run("gc").stdout == _result(world, 0, 0, 0, 0, 2)
    assert not pending.exists() and not (marks / "_3").exists()


def test_days_moves_the_cutoff_and_names_itself(world: World) -> None:
    world.run("whoami", cwd="worker")
    msg_id = world.send("worker", "ask", "ten days old", known=False)
    world.run("inbox", cwd="worker")
    _age(world.state / "seats" / "worker" / "cur" / f"{msg_id}.read.md", 10)
    assert world.run("gc").stdout.startswith("archived 0 read messages older than 90 days")
    r = world.run("gc", "--days", "7")
    assert r.stdout.splitlines()[0] == (
        f"archived 1 read messages older than 7 days into {world.state / 'archive'}"
    )
    assert "lapsed over 7 days ago" in r.stdout


def test_gc_days_must_be_a_whole_positive_number(world: World) -> None:
    for bad in ("0x", "0", "-1", "1.5"):
        r = world.run("gc", "--days", bad)
        assert r.returncode == 1, bad
        assert r.stderr == (
            f"error: --days takes a whole number of days, not '{bad}'. 'hail help' lists every "
            "command\n"
        ), bad
        assert r.stdout == ""


def test_gc_without_state_creates_nothing(world: World) -> None:
    r = world.run("gc")
    assert r.returncode == 0
    assert r.stdout == _result(world, 0, 0, 0, 0, 0)
    assert not world.state.exists()


def test_doctor_stops_saying_gc_is_due_once_gc_ran(world: World) -> None:
    world.run("whoami", cwd="worker")
    msg_id = world.send("worker", "ask", "old", known=False)
    world.run("inbox", cwd="worker")
    _age(world.state / "seats" / "worker" / "cur" / f"{msg_id}.read.md", 100)
    assert "note gc is due: 1 read messages older than 90 days: run hail gc" in (
        world.run("doctor").stdout.splitlines()
    )
    world.run("gc")
    assert "gc is due" not in world.run("doctor").stdout


def test_a_mailbox_left_aside_by_a_killed_gc_is_finished_by_the_next(world: World) -> None:
    # gc deletes a deleted workspace's mailbox by renaming it aside first; killed right after that
    # rename, it left `seats/.gc-<pid>-<hex>` holding mail that no lookup could reach.
    world.make_seat("temp")
    world.run("whoami", cwd="temp")
    msg_id = world.send("temp", "ask", "arrived just before the rename", known=False)
    box = world.state / "seats" / "temp"
    aside = world.state / "seats" / ".gc-999999999-0badf00d"  # no such process
    box.rename(aside)
    r = world.run("gc")
    assert r.returncode == 0
    assert r.stdout == _result(world, 0, 1, 1, 0, 0)
    assert not aside.exists()
    month = _month(time.time())
    assert (world.state / "archive" / month / "temp" / "new" / f"{msg_id}.md").is_file()
    shown = world.run("show", msg_id)
    assert shown.returncode == 0 and "arrived just before the rename" in shown.stdout


def test_a_mailbox_a_running_gc_set_aside_is_left_to_it(world: World) -> None:
    world.make_seat("temp")
    world.run("whoami", cwd="temp")
    world.send("temp", "ask", "being archived right now", known=False)
    aside = world.state / "seats" / f".gc-{os.getpid()}-0badf00d"  # a live process, just now
    (world.state / "seats" / "temp").rename(aside)
    os.utime(aside)
    r = world.run("gc")
    assert r.stdout == _result(world, 0, 0, 0, 0, 0)
    assert any((aside / "new").iterdir())
