"""Claims against files hail cannot own and against gc: a claim is given back on every failure, a
file another user owns is never counted as delivered, and gc never takes a message being claimed.
"""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from hail.hooks import deliver as deliver_mod
from hail.message import render
from hail.store import gc as store_gc
from hail.store import maildir
from hail.store.store import Store
from tests.stress.conftest import context_of, delivered_ids
from tests.stress.users import UserWorld, needs_root, user_world
from tests.support.world import World

pytestmark = pytest.mark.stress
__all__ = ["user_world"]

DAY = 86400


def _sudo_send(w: UserWorld, headline: str) -> str:
    """A message file root wrote into the user's inbox, 0600, as `sudo -E hail …` did before hail
    refused another user's seat markers (and as any root process still can)."""
    msg_id = f"1130T0000{len(list(w.root.rglob('*.md'))):02d}-0f0f"
    headers = {"from": "boss", "reply": "boss", "kind": "ask", "id": msg_id, "ask": headline}
    path = w.state / "seats" / "worker" / "new" / f"{msg_id}.md"
    path.write_text(render(headers, headline))
    path.chmod(0o600)
    os.chown(path, 0, 0)
    link = w.state / "ids" / msg_id
    link.symlink_to("worker")
    os.lchown(link, 0, 0)
    return msg_id


@needs_root
def test_a_message_file_another_user_owns_is_reported_and_never_counted_as_delivered(
    user_world: UserWorld,
) -> None:
    w = user_world
    assert w.run("whoami", cwd="worker").returncode == 0
    first = w.send("worker", "ask", "an ordinary message")
    foreign = _sudo_send(w, "written by root")
    new = w.state / "seats" / "worker" / "new"
    assert os.stat(new / f"{foreign}.md").st_uid == 0

    r = w.run("inbox", cwd="worker")
    assert r.returncode == 0, r.stderr
    assert "an ordinary message" in r.stdout
    assert "internal error" not in r.stderr
    assert foreign in r.stderr and "chown" in r.stderr, r.stderr
    assert w.run("sent", first).stdout.startswith("read ")
    assert w.run("sent", foreign).stdout == "delivered\n"
    assert (new / f"{foreign}.md").exists()

    r = w.run("deliver", "--format", "claude", cwd="worker")
    assert r.returncode == 0 and r.stdout == ""
    assert w.run("sent", foreign).stdout == "delivered\n"  # never `injected` unprinted
    assert (new / f"{foreign}.md").exists()

    r = w.run("doctor", cwd="worker")
    assert r.returncode == 1
    fix = [ln for ln in r.stdout.splitlines() if ln.startswith("FIX") and "worker" in ln]
    assert fix and "chown" in fix[0], r.stdout


@needs_root
def test_a_message_file_another_user_owns_does_not_stop_the_hook_delivering_the_rest(
    user_world: UserWorld,
) -> None:
    w = user_world
    assert w.run("whoami", cwd="worker").returncode == 0
    mine = w.send("worker", "ask", "mine")
    foreign = _sudo_send(w, "written by root")
    older = time.time() - 60  # the foreign file comes first in the inbox's order
    os.utime(w.state / "seats" / "worker" / "new" / f"{foreign}.md", (older, older))
    r = w.run("deliver", "--format", "claude", cwd="worker")
    assert delivered_ids(r.stdout) == [mine]
    assert "mine" in context_of(r.stdout)


def test_inbox_gives_every_claim_back_when_reading_a_claimed_file_fails(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In-process, so the failure strikes between two claims: the first claim must come back."""
    from hail.commands import receive
    from hail.context import Ctx
    from hail.store import fs

    assert world.run("whoami", cwd="worker").returncode == 0
    ids = [world.send("worker", "ask", f"m{i}") for i in range(3)]
    real_read = fs.read_text
    calls = {"n": 0}

    def failing_read(path: str) -> str | None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise PermissionError(13, "Permission denied", path)
        return real_read(path)

    monkeypatch.setattr(fs, "read_text", failing_read)
    monkeypatch.chdir(world.seat_dir("worker"))
    ctx = Ctx.from_env(world.env)
    with pytest.raises(Exception):  # noqa: B017 - any error, as long as the claims come back
        receive.inbox(ctx, peek=False, all_=False)
    for msg_id in ids:
        assert world.run("sent", msg_id).stdout == "delivered\n"


def test_the_hook_gives_every_claim_back_when_reading_a_claimed_file_fails(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook's counterpart: its budget loop fails after a first claim, and the hook, which
    logs the error and exits 0, must give that claim back too."""
    from hail.store import fs

    assert world.run("whoami", cwd="worker").returncode == 0
    ids = [world.send("worker", "ask", f"m{i}") for i in range(3)]
    real_read = fs.read_text
    calls = {"n": 0}

    def failing_read(path: str, errors: str = "replace") -> str | None:
        if "/cur/" in path:
            calls["n"] += 1
            if calls["n"] == 2:
                raise PermissionError(13, "Permission denied", path)
        return real_read(path, errors)

    monkeypatch.setattr(fs, "read_text", failing_read)
    for key, value in world.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(world.seat_dir("worker"))
    assert deliver_mod.deliver(None, "UserPromptSubmit") == 0
    assert calls["n"] == 2
    assert "Permission denied" in (world.state / "hook-errors.log").read_text()
    for msg_id in ids:
        assert world.run("sent", msg_id).stdout == "delivered\n"


def test_a_wait_gives_every_claimed_reply_back_when_reading_one_fails(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`await --reply` and `ask --wait` claim the replies they print: the same guarantee."""
    from hail.commands import converse
    from hail.context import Ctx
    from hail.store import fs

    assert world.run("whoami", cwd="worker").returncode == 0
    ids = [world.send("worker", "fyi", f"reply {i}") for i in range(3)]
    real_read = fs.read_text
    calls = {"n": 0}

    def failing_read(path: str, errors: str = "replace") -> str | None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise PermissionError(13, "Permission denied", path)
        return real_read(path, errors)

    monkeypatch.setattr(fs, "read_text", failing_read)
    monkeypatch.chdir(world.seat_dir("worker"))
    ctx = Ctx.from_env(world.env)
    with pytest.raises(PermissionError):
        converse.show_replies(ctx, [(msg_id, "worker") for msg_id in ids])
    for msg_id in ids:
        assert world.run("sent", msg_id).stdout == "delivered\n"


# --- gc and a claim in progress ------------------------------------------------------------------


class _GcAfterRename:
    """`os` for the mailbox module, running gc right after each rename: the widest race window."""

    def __init__(self, store: Store, days: int, ran: list[object]) -> None:
        self._store = store
        self._days = days
        self._ran = ran

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def rename(self, src: str, dst: str) -> None:
        os.rename(src, dst)
        if "/new/" in src and "/cur/" in dst:
            self._ran.append(store_gc.collect(self._store, time.time(), self._days))


def test_gc_never_takes_a_message_a_hook_is_claiming(
    world: World, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    assert world.run("whoami", cwd="worker").returncode == 0
    msg_id = world.send("worker", "ask", "waited long", body="the body")
    path = world.state / "seats" / "worker" / "new" / f"{msg_id}.md"
    old = time.time() - 100 * DAY
    os.utime(path, (old, old))
    ran: list[object] = []
    monkeypatch.setattr(maildir, "os", _GcAfterRename(Store(str(world.state)), 90, ran))
    for k, v in world.env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.chdir(world.seat_dir("worker"))
    capfd.readouterr()
    assert deliver_mod.deliver("claude", "UserPromptSubmit") == 0
    out = capfd.readouterr().out
    assert ran, "gc never ran inside the claim"
    assert delivered_ids(out) == [msg_id]
    assert "the body" in context_of(out)
    monkeypatch.undo()
    receipt = world.run("sent", msg_id).stdout.split()
    assert receipt[0] == "injected"
    assert (world.state / "seats" / "worker" / "cur" / f"{msg_id}.injected.md").exists()
