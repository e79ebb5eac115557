"""Permissions: the state holds other agents' mail, so it is private whatever the umask, and hail
reads only the state root its own environment names [docs/files.md "State root", docs/files.md
"Layout"].
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.stress.conftest import know, tree
from tests.support.ids import id_of
from tests.support.world import World

pytestmark = pytest.mark.stress


def modes_under(root: Path) -> dict[str, int]:
    """Permission bits of the root and of every directory and file below it (links skipped)."""
    out = {str(root): stat.S_IMODE(os.lstat(root).st_mode)}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if not stat.S_ISLNK(st.st_mode):
                out[p] = stat.S_IMODE(st.st_mode)
    return out


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o077])
def test_state_is_private_whatever_the_umask(
    world: World, umask: Callable[[int], None], mask: int, figures: Any
) -> None:
    umask(mask)
    know(world, "worker")
    world.send("worker", "ask", "--", "with a body", body="body")
    world.send("worker", "ask", "--", "headline only")
    r = world.run("worker", "hold", "--no-wake", "--scope", "land", "hold it")
    assert r.returncode == 5, r.stderr
    hold = id_of(r.stdout)
    assert world.run("deliver", "--format", "claude", cwd="worker").returncode == 0
    world.send("worker", "ask", "--", "read by inbox", body="body")
    assert world.run("inbox", cwd="worker").returncode == 0
    r = world.run("worker", "release", "--no-wake", "--re", hold, "lifted")
    assert r.returncode == 5, r.stderr
    # A failing hook writes hook-errors.log: cur/ is a plain file for one deliver (a chmod would
    # not stop a test run as root).
    world.send("worker", "ask", "--", "fails once", body="body")
    cur = world.state / "seats" / "worker" / "cur"
    aside = cur.with_name("cur-aside")
    cur.rename(aside)
    cur.write_text("")
    try:
        assert world.run("deliver", "--format", "claude", cwd="worker").returncode == 0
    finally:
        cur.unlink()
        aside.rename(cur)
    assert (world.state / "hook-errors.log").exists()
    modes = modes_under(world.state)
    wrong = {p: oct(m) for p, m in modes.items() if m != (0o700 if os.path.isdir(p) else 0o600)}
    assert not wrong, wrong
    figures(umask=oct(mask), paths_checked=len(modes), wrong=len(wrong))


def test_hail_never_reads_or_writes_another_users_state(world: World, tmp_path: Path) -> None:
    """A second user's state (under their HOME, no XDG_STATE_HOME) holds mail for a seat of the same
    name; every verb of the first user, whose state is elsewhere, leaves it byte-identical and
    cannot see its ids."""
    other_home = tmp_path / "other-home"
    other_home.mkdir()
    other_env = {"HOME": str(other_home), "XDG_STATE_HOME": ""}
    r = world.run("whoami", cwd="worker", env=other_env)
    assert r.returncode == 0
    r = world.run("worker", "ask", "--no-wake", "other user's mail", stdin="SECRET", env=other_env)
    assert r.returncode == 5, r.stderr
    theirs = id_of(r.stdout)
    other_state = other_home / ".local" / "state" / "hail"
    assert (other_state / "seats" / "worker" / "new" / f"{theirs}.md").exists()
    before = tree(other_state)

    know(world, "worker")
    mine = world.send("worker", "ask", "--", "my mail", body="mine")
    for args, cwd in [
        (("deliver", "--format", "claude"), "worker"),
        (("inbox", "--all"), "worker"),
        (("brief",), "worker"),
        (("brief", "--hook"), "worker"),
        (("sent", theirs), "boss"),
        (("show", theirs), "boss"),
        (("await", theirs, "--timeout", "0.2"), "boss"),
        (("seats",), "boss"),
        (("gc",), "boss"),
        (("doctor",), "boss"),
    ]:
        r = world.run(*args, cwd=cwd)
        assert "SECRET" not in r.stdout and theirs not in r.stdout.replace(
            f"{theirs} timeout", ""
        ), args
    assert world.run("sent", theirs).stdout == "unknown\n"
    assert world.run("sent", mine).stdout.startswith("injected ")
    assert tree(other_state) == before
