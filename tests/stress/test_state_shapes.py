"""Odd shapes where hail keeps its files [docs/files.md "Layout"]: a symlink is never followed
(every open is O_NOFOLLOW and regular-only, claims included), a listing survives a symlink loop,
a FIFO never hangs `hail watch`, and `hail doctor` names each shape with its fix.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hail.store import fs
from tests.stress.conftest import context_of, know
from tests.support.world import World

pytestmark = pytest.mark.stress

#: Long enough for any of these on a loaded machine; a FIFO opened to read would wait for ever.
PROMPT = 20

SECRET = "SECRET-LINE-7f3a: not hail's to print\n"


def noted(world: World, path: Path, expected: str, kind: str, why: str) -> None:
    r = world.run("doctor", cwd="worker", timeout=PROMPT)
    assert f"note {path} is not {expected} ({kind}): {why}; remove it" in r.stdout, r.stdout


def test_a_state_file_is_never_opened_through_a_symlink(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    link = tmp_path / "link"
    link.symlink_to(secret)
    assert fs.read_text(str(link)) is None
    with pytest.raises(fs.NotRegularFile):
        fs.open_regular(str(link), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    assert secret.read_text() == SECRET


def test_a_symlink_in_new_is_never_followed_claimed_or_printed(world: World) -> None:
    know(world, "boss", "worker")
    msg_id = world.send("worker", "ask", "--", "still arrives", body="body")
    secret = world.root / "secret.txt"
    secret.write_text(SECRET)
    link = world.state / "seats" / "worker" / "new" / "0101T000000-link.md"
    link.symlink_to(secret)
    hook = world.run("deliver", "--format", "claude", cwd="worker", timeout=PROMPT)
    assert hook.returncode == 0, hook.stderr
    assert f"id:{msg_id}" in context_of(hook.stdout)
    assert "SECRET-LINE" not in hook.stdout
    world.send("worker", "ask", "--", "a second one")
    inbox = world.run("inbox", cwd="worker", timeout=PROMPT)
    assert inbox.returncode == 0 and "SECRET-LINE" not in inbox.stdout, inbox.stdout
    assert "a second one" in inbox.stdout
    assert link.is_symlink(), "left where it is, never claimed"
    assert world.run("show", "0101T000000-link", cwd="worker").returncode == 1
    noted(world, link, "a regular file", "a symlink", "hail never follows it")


def test_a_symlink_loop_under_seats_breaks_no_listing(world: World) -> None:
    know(world, "boss", "worker")
    world.send("worker", "ask", "--", "still listed")
    seats = world.state / "seats"
    (seats / "loop").symlink_to("loop")
    (seats / "worker" / "pending").symlink_to("pending")
    for args in (("seats",), ("gc",), ("watch", "--once"), ("watch", "--json"), ("inbox", "--all")):
        r = world.run(*args, cwd="worker", timeout=PROMPT)
        assert (r.returncode, "internal error" in r.stderr) == (0, False), (args, r.stderr)
    listed = world.run("seats", cwd="worker").stdout
    assert [line.split()[0] for line in listed.splitlines()[1:]] == ["boss", "worker"]
    noted(world, seats / "loop", "a directory", "a symlink", "hail never follows it")
    noted(world, seats / "worker" / "pending", "a directory", "a symlink", "hail never follows it")


def test_a_fifo_in_cur_never_hangs_watch(world: World) -> None:
    know(world, "boss", "worker")
    msg_id = world.send("worker", "ask", "--", "a real one")
    cur = world.state / "seats" / "worker" / "cur"
    cur.mkdir(exist_ok=True)
    fifo = cur / "0101T000000-fifo.read.md"
    os.mkfifo(fifo, 0o600)
    once = world.run("watch", "--once", cwd="worker", timeout=PROMPT)
    assert once.returncode == 0, once.stderr
    assert msg_id in once.stdout
    as_json = world.run("watch", "--json", cwd="worker", timeout=PROMPT)
    assert as_json.returncode == 0, as_json.stderr
    assert msg_id in json.dumps(json.loads(as_json.stdout))
    noted(world, fifo, "a regular file", "a FIFO", "hail ignores it")


def test_a_claim_never_touches_what_a_link_names(tmp_path: Path) -> None:
    """A link swapped into `new/` after the listing is renamed like any name, never touched
    through (its target keeps its time) and never read."""
    from hail.store.maildir import Mailbox

    box = Mailbox(str(tmp_path / "worker"))
    os.makedirs(box.new)
    os.makedirs(box.cur)
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    os.utime(secret, (1_000_000, 1_000_000))
    (Path(box.new) / "0101T000000-link.md").symlink_to(secret)
    claimed = box.claim("0101T000000-link", "injected")
    assert claimed is not None and Path(claimed).is_symlink()
    assert secret.stat().st_mtime == 1_000_000, "the target is untouched"
    assert fs.read_text(claimed) is None
