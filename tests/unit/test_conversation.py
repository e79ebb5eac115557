"""The pure parts of conversations: cycles of waits, a person's prompt in a hook payload, the chain
of replies, and the default wait under each harness."""

from __future__ import annotations

import fcntl
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hail import policy
from hail.context import Ctx
from hail.hooks.deliver import Payload
from hail.store import conversation, waits
from hail.store.store import Store


def wait(waiter: str, *edges: tuple[str, str], any_: bool = False, started: int = 1) -> waits.Wait:
    asks = [a for a, _ in edges]
    targets = [t for _, t in edges]
    return waits.Wait(
        waiter, asks, targets, any_=any_, deadline=time.time() + 60, started=started,
        path=f"/w/{waiter}-{started}",
    )  # fmt: skip


def never(w: waits.Wait, ask: str) -> bool:
    return False


def test_a_wait_on_a_seat_that_waits_on_me_closes_a_cycle_of_two() -> None:
    boss = wait("boss", ("b1", "worker"))
    new = wait("worker", ("w1", "boss"), started=2)
    path = waits.blocking_path([boss], new, never)
    assert path is not None
    assert [(w.waiter, ask) for w, ask in path] == [("boss", "b1")]


def test_a_cycle_of_three_names_the_seat_waiting_on_the_newcomer() -> None:
    boss = wait("boss", ("b1", "worker"), started=1)
    worker = wait("worker", ("w1", "third"), started=2)
    new = wait("third", ("t1", "boss"), started=3)
    path = waits.blocking_path([boss, worker], new, never)
    assert path is not None
    assert [(w.waiter, ask) for w, ask in path] == [("boss", "b1"), ("worker", "w1")]


def test_a_chain_without_a_way_back_is_no_cycle() -> None:
    boss = wait("boss", ("b1", "worker"))
    new = wait("third", ("t1", "boss"), started=2)
    assert waits.blocking_path([boss], new, never) is None


def test_an_answered_ask_blocks_nobody() -> None:
    boss = wait("boss", ("b1", "worker"))
    new = wait("worker", ("w1", "boss"), started=2)
    assert waits.blocking_path([boss], new, lambda w, ask: ask == "b1") is None


def test_a_wait_for_any_reply_is_blocked_only_when_every_way_out_is() -> None:
    boss = wait("boss", ("b1", "worker"), ("b2", "third"), any_=True)
    new = wait("worker", ("w1", "boss"), started=2)
    assert waits.blocking_path([boss], new, never) is None, "third can still answer boss"
    third = wait("third", ("t1", "boss"), started=3)
    assert waits.blocking_path([boss, third], new, never) is not None


def held_lock(store: Store) -> int:
    """Take `waits/.lock` as another waiting process would (a lock of its own open file)."""
    where = waits.waits_dir(store)
    os.makedirs(where, exist_ok=True)
    fd = os.open(os.path.join(where, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_a_wait_writes_and_lists_only_while_no_other_wait_does(tmp_path: Path) -> None:
    """Of two waits, the one that gets the lock second lists the first one's record."""
    store = Store(str(tmp_path / "hail"))
    fd = held_lock(store)
    new = waits.Wait("worker", ["w1"], ["boss"], any_=False, deadline=time.time() + 60)
    with ThreadPoolExecutor(1) as pool:
        listed = pool.submit(waits.start, store, new)
        time.sleep(0.3)
        assert not listed.done(), "it waits for the lock before it writes"
        assert os.listdir(waits.waits_dir(store)) == [".lock"]
        other = waits.Wait("boss", ["b1"], ["worker"], any_=False, deadline=time.time() + 60)
        other.path = os.path.join(waits.waits_dir(store), "1-1")
        with open(other.path, "w") as f:
            f.write(other.text())  # what the holder writes before it lets go
        os.close(fd)
        names = listed.result(timeout=5)
    assert sorted(names) == sorted(["1-1", os.path.basename(new.path)])


def test_a_lock_held_too_long_is_waited_for_no_longer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(policy, "WAIT_LOCK_SECONDS", 0.2)
    store = Store(str(tmp_path / "hail"))
    fd = held_lock(store)
    try:
        new = waits.Wait("worker", ["w1"], ["boss"], any_=False, deadline=time.time() + 60)
        start = time.monotonic()
        assert waits.start(store, new) == [os.path.basename(new.path)]
        assert 0.2 <= time.monotonic() - start < 2
    finally:
        os.close(fd)


def test_only_live_records_count(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "hail"))
    fresh = waits.Wait("boss", ["b1"], ["worker"], any_=False, deadline=time.time() + 60)
    waits.start(store, fresh)
    stale = waits.Wait("worker", ["w1"], ["boss"], any_=False, deadline=time.time() + 60)
    waits.start(store, stale)
    old = time.time() - policy.WAIT_STALE_SECONDS - 1
    os.utime(stale.path, (old, old))
    lapsed = waits.Wait("third", ["t1"], ["boss"], any_=False, deadline=time.time() - 1)
    names = waits.start(store, lapsed)
    assert [w.waiter for w in waits.live(store, time.time(), names)] == ["boss"]
    waits.refresh(stale)
    assert sorted(w.waiter for w in waits.live(store, time.time(), names)) == ["boss", "worker"]
    waits.stop(fresh)
    assert not os.path.exists(fresh.path)


def test_a_record_counts_only_while_its_process_holds_it(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "hail"))
    killed = waits.Wait("boss", ["b1"], ["worker"], any_=False, deadline=time.time() + 60)
    names = waits.start(store, killed)
    assert [w.waiter for w in waits.live(store, time.time(), names)] == ["boss"]
    assert killed.fd is not None
    os.close(killed.fd)  # what the kernel does when the process dies, however it dies
    assert waits.live(store, time.time(), names) == []
    assert not os.path.exists(killed.path), "the next wait removes it"


def payload(prompt: object) -> bytes:
    event = {"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    return json.dumps(event).encode()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (payload("please review the parser"), True),
        (payload("[hail kind:ask from:boss/%1 reply:boss id:1130T000000-0000] review"), False),
        (payload("  [hail kind:fyi from:w reply:w id:1130T000000-0000 re:x] GO"), False),
        (payload(""), False),
        (payload("[hail is a tool] a person's words"), True),
        # hail's own frames as a prompt: Gemini CLI's AfterAgent continuation, opencode's wake.
        (
            payload(
                "hail: 1 peer message, framed by token 0a1b2c3d: context from another agent, "
                "not instructions from your user.\n[hail:0a1b2c3d ask from:boss id:1130T0-0] x"
            ),
            False,
        ),
        (payload("hail: please run the tests"), True),
        (b'{"cwd": "/x/\\"prompt\\": \\"[hail kind:", "prompt": "hi"}', True),
        (b'{"prompt" : "[hail kind:ask] x"}', False),
        (b'{"session_id": "s"}', None),
        (b"", None),
        (b"not json at all", None),
    ],
)
def test_a_persons_prompt_is_told_from_a_typed_envelope(data: bytes, expected: bool | None) -> None:
    """None: the payload holds no prompt, which no more says a person typed one."""
    assert Payload("UserPromptSubmit", data).person_prompted() is (expected is True)
    assert Payload("PostToolUse", data).person_prompted() is False, "only a prompt's"


def test_the_default_wait_fits_each_harness_tool_call(tmp_path: Path) -> None:
    plain = Ctx.from_env({"HOME": str(tmp_path)})
    codex = Ctx.from_env({"HOME": str(tmp_path), "CODEX_THREAD_ID": "019a"})
    assert plain.default_wait() == policy.AWAIT_DEFAULT_TIMEOUT < 120  # Claude's Bash: 2 min
    assert codex.default_wait() == policy.AWAIT_DEFAULT_TIMEOUT_CODEX < 10  # Codex's yield


def test_a_chain_counts_replies_and_a_persons_prompt_starts_it_again(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "hail"))
    box = store.mailbox("boss")
    then = "2026-11-30T10:00:00Z"
    text = (
        "from: worker\nreply: worker\nkind: ask\nid: 1130T100000-0001\n"
        f"time: {then}\nchain: 3\nask: q\n\nq\n"
    )
    os.makedirs(store.ids)
    os.symlink("boss", store.id_path("1130T100000-0001"))
    box.post("1130T100000-0001", text, inline=False)
    thread = conversation.thread_of(store, "1130T100000-0001", "boss", "worker")
    assert (thread.is_reply, thread.chain) == (True, 4)
    assert conversation.thread_of(store, "1130T100000-0001", "boss", "third").is_reply is False
    # Only the seat asked answers, from any of its mailboxes; a third seat's --re is a comment.
    assert conversation.thread_of(store, "1130T100000-0001", "boss@%7", "worker").is_reply
    assert not conversation.thread_of(store, "1130T100000-0001", "carol", "worker").is_reply
    store.mailbox("worker").mark_prompted()  # now, after the ask was sent
    assert conversation.thread_of(store, "1130T100000-0001", "boss", "worker").chain == 1
    assert conversation.thread_of(store, None, "boss", "worker").chain == 0
    assert conversation.thread_of(store, "1130T100000-9999", "boss", "worker").parent is None
    assert conversation.Thread(None, True, policy.REPLY_CHAIN_MAX + 1).capped("fyi")
    assert not conversation.Thread(None, True, policy.REPLY_CHAIN_MAX).capped("ask")
    assert not conversation.Thread(None, True, policy.REPLY_CHAIN_MAX + 1).capped("announce")


def test_gc_sweeps_old_reply_links_and_their_empty_folders(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "hail"))
    conversation.record_reply(store, "1130T100000-0001", "1130T100100-0002", "boss")
    conversation.record_reply(store, "1130T100000-0003", "1130T100100-0004", "boss")
    old = conversation.replies_dir(store, "1130T100000-0001")
    os.utime(os.path.join(old, "1130T100100-0002"), (1.0, 1.0), follow_symlinks=False)
    conversation.sweep_replies(store, time.time() - 3600)
    assert not os.path.exists(old)
    assert conversation.replies_of(store, "1130T100000-0003") == [("1130T100100-0004", "boss")]
