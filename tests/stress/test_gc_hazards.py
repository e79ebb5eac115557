"""gc against hazards of names and timing: the longest seat names, and readers claiming meanwhile."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.support.world import World

pytestmark = pytest.mark.stress

DAY = 86400


def _age(path: Path, days: float) -> None:
    t = time.time() - days * DAY
    os.utime(path, (t, t))


@pytest.mark.parametrize("length", [245, 255])
def test_gc_archives_a_deleted_workspace_whose_seat_name_is_as_long_as_a_name_may_be(
    world: World, length: int
) -> None:
    name = "s" * length
    world.make_seat(name)
    assert world.run("whoami", cwd=name).returncode == 0
    msg_id = world.send(name, "ask", "for a workspace that will go", known=False)
    box = world.state / "seats" / name
    (box / "hooked").touch()
    _age(box / "hooked", 100)
    shutil.rmtree(world.seat_dir(name))
    holds = world.state / "holds"
    holds.mkdir(exist_ok=True)
    (holds / "0101T000000-aaaa").write_text(
        "id: 0101T000000-aaaa\nkind: hold\nissuer: boss\nto: worker\n"
        "time: 2020-01-01T00:00:00Z\nexpires: 2020-01-02T00:00:00Z\nheadline: old\n"
    )

    r = world.run("gc")
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert "archived 1 mailboxes of deleted workspaces (1 unread among them)" in r.stdout
    assert "removed 1 lapsed holds" in r.stdout
    assert not box.exists()
    assert not [p for p in (world.state / "seats").iterdir() if p.name.startswith(".gc-")]
    assert world.run("sent", msg_id).stdout == "delivered\n"
    assert world.run("gc").returncode == 0
