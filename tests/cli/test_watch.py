"""`hail watch --once` and `--json` through the installed `hail`, on real traffic between two
seats without tmux [docs/watch.md "--once and --json"]: what they show, the JSON's schema, that
they write nothing, and that the view needs a terminal."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from tests.support.world import World

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def traffic(world: World) -> dict[str, str]:
    """An ask worker received by its hook, worker's reply, a hold, and an ask nobody read yet."""
    ask = world.send("worker", "ask", "Is the migration safe to run twice?", body="details")
    hook = world.run("deliver", "--format", "claude", cwd="worker", stdin='{"prompt":"go on"}')
    assert ask in hook.stdout, hook.stderr
    reply = world.send("boss", "fyi", "--re", ask, "GO: safe to run twice", cwd="worker")
    hold = world.send("worker", "hold", "--for", "2h", "HOLD: no landing")
    open_ask = world.send("worker", "ask", "Which migration: 0042 or 0043?")
    return {"ask": ask, "reply": reply, "hold": hold, "open": open_ask}


def tree(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for top, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(top, name)
            st = os.lstat(path)
            out[os.path.relpath(path, root)] = (st.st_mtime_ns, st.st_size)
    return out


def section(out: str, heading: str) -> list[str]:
    """The lines under a heading of the frame, up to the blank line."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    body = []
    for line in lines[start + 1 :]:
        if not line:
            break
        body.append(line)
    return body


def test_once_prints_seats_messages_conversations_and_trouble(world: World) -> None:
    ids = traffic(world)
    proc = world.run("watch", "--once")
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    out = proc.stdout
    assert out.startswith(f"hail watch — {world.state} — ")
    assert "no tmux: HAIL_SOCKET=/nonexistent/socket is not a tmux socket" in out.splitlines()[0]

    seats = section(out, "SEATS (2)")
    assert seats[0].split() == [
        *("SEAT", "AGENTS", "ROUTE", "STATE", "UNREAD", "HOOK", "HOLDS", "CONTEXT", "ON")
    ]
    boss, worker = (line.split() for line in seats[1:])
    assert boss[:5] == ["boss", "-", "?", "?,", "no"] and boss[6] == "1"  # unread: the reply
    assert worker[:4] == ["worker", "-", "?", "?"] and worker[4] == "2"  # the hold and the open ask
    assert worker[-3:] == [ids["hold"], "-", "-"], "no agent: no gauge, no task line"

    messages = section(out, "MESSAGES (4 of 4, newest first, times UTC)")
    assert messages[0].split()[:4] == ["TIME", "FROM", "→", "TO"]
    by_headline = {
        "GO: safe to run twice": "reply",
        "Is the migration safe to run twice?": "ask",
        "HOLD: no landing": "hold",
        "Which migration": "open",
    }
    rows = {
        name: next(line for line in messages if text in line) for text, name in by_headline.items()
    }
    assert re.search(
        r"boss → worker +ask +Is the migration safe to run twice\? +injected \+\d+s +replied "
        + ids["reply"],
        rows["ask"],
    )
    assert re.search(
        r"worker → boss +fyi +GO: safe to run twice +delivered +re " + ids["ask"], rows["reply"]
    )
    assert re.search(r"boss → worker +hold +HOLD: no landing +delivered", rows["hold"])
    order = [
        next(name for text, name in by_headline.items() if text in line) for line in messages[1:]
    ]
    assert order == ["open", "hold", "reply", "ask"]  # newest first, also within one second

    talk = section(out, "CONVERSATIONS AND HOLDS")
    assert talk[0] == "  open asks (1)"
    assert talk[1].startswith(f"    {ids['open']} boss → worker: Which migration: 0042 or 0043? (")
    assert "  waits (0)" in talk and "  holds (1)" in talk
    hold_line = talk[talk.index("  holds (1)") + 1]
    assert re.fullmatch(
        rf"    {ids['hold']} boss → worker: HOLD: no landing \(until \S+, lapses in 1h59m\)",
        hold_line,
    ), hold_line

    trouble = section(out, "TROUBLE (1)")
    assert trouble == [
        f"  boss has 1 unread (oldest {ids['reply']}) and no hook ever ran",
        f"    fix: hail setup, then start a new session in {world.root / 'boss'} (hail doctor says more)",
    ]


def test_json_is_the_same_state_in_a_fixed_shape(world: World) -> None:
    ids = traffic(world)
    proc = world.run("watch", "--json")
    assert (proc.returncode, proc.stderr) == (0, "")
    data = json.loads(proc.stdout)
    assert set(data) == {
        "version", "state", "time", "only", "tmux", "seats", "messages", "messages_total",
        "open_asks", "waits", "holds", "trouble", "far", "far_seats", "person",
    }  # fmt: skip
    assert data["person"] == {"mailbox": "person", "unread": 0, "open_asks": [], "messages": []}
    assert data["version"] == 1 and data["state"] == str(world.state) and ISO.match(data["time"])
    assert data["only"] is None and data["tmux"]["source"] is None and data["tmux"]["error"]

    seat_keys = {"mailbox", "seat", "agents", "panes", "jump", "route", "state", "hooks",
                 "unread", "last_hook", "holds", "root", "root_gone"}  # fmt: skip
    assert [set(s) for s in data["seats"]] == [seat_keys, seat_keys]
    boss, worker = data["seats"]
    assert (boss["mailbox"], boss["unread"], boss["hooks"], boss["last_hook"]) == (
        "boss",
        1,
        "never",
        None,
    )
    assert (worker["hooks"], worker["holds"], worker["root"]) == (
        "live",
        [ids["hold"]],
        str(world.root / "worker"),
    )
    assert ISO.match(worker["last_hook"]) and worker["agents"] == [] and worker["route"] == "?"

    msg_keys = {
        "id",
        "time",
        "from",
        "reply",
        "to",
        "kind",
        "headline",
        "scope",
        "re",
        "replies",
        "receipt",
    }
    assert all(set(m) == msg_keys for m in data["messages"])
    assert data["messages_total"] == 4
    by_id = {m["id"]: m for m in data["messages"]}
    ask = by_id[ids["ask"]]
    assert (ask["from"], ask["to"], ask["kind"], ask["replies"]) == (
        "boss",
        "worker",
        "ask",
        [ids["reply"]],
    )
    assert ask["receipt"]["status"] == "injected" and ISO.match(ask["receipt"]["time"])
    assert isinstance(ask["receipt"]["seconds"], int) and ask["receipt"]["seconds"] >= 0
    reply = by_id[ids["reply"]]
    assert (reply["re"], reply["receipt"]) == (
        ids["ask"],
        {"status": "delivered", "time": None, "seconds": None},
    )
    assert data["open_asks"] == [ids["open"]]
    assert data["waits"] == []
    (hold,) = data["holds"]
    assert set(hold) == {"id", "issuer", "to", "scope", "headline", "since", "until", "lapses_in"}
    assert (hold["id"], hold["issuer"], hold["to"], hold["headline"]) == (
        ids["hold"],
        "boss",
        "worker",
        "HOLD: no landing",
    )
    assert 7000 < hold["lapses_in"] <= 7200
    (trouble,) = data["trouble"]
    assert set(trouble) == {"kind", "seat", "text", "fix"}
    assert (trouble["kind"], trouble["seat"]) == ("unread", "boss")


def test_a_seat_filters_the_frame_to_what_involves_it(world: World) -> None:
    ids = traffic(world)
    world.make_seat("peer")
    world.run("whoami", cwd="peer")
    other = world.send("peer", "fyi", "unrelated", cwd="boss")
    data = json.loads(world.run("watch", "worker", "--json").stdout)
    assert data["only"] == "worker"
    assert [s["mailbox"] for s in data["seats"]] == ["worker"]
    shown = {m["id"] for m in data["messages"]}
    assert other not in shown and set(ids.values()) <= shown


def test_watch_writes_nothing_and_never_creates_the_state(world: World) -> None:
    proc = world.run("watch", "--once")
    assert proc.returncode == 0 and not world.state.exists()
    ids = traffic(world)
    # what a brief would clean (a pending record with a receipt) stays for the brief
    pending = world.state / "seats/boss/pending" / ids["ask"]
    assert pending.exists()
    before = tree(world.state)
    for args in (("watch", "--once"), ("watch", "--json"), ("watch", "worker", "--once")):
        assert world.run(*args).returncode == 0
    assert tree(world.state) == before


def test_the_view_needs_a_terminal(world: World) -> None:
    proc = world.run("watch")
    assert proc.returncode == 1
    assert proc.stderr == (
        "error: hail watch draws on a terminal; hail watch --once prints one frame, --json the state\n"
    )


def test_a_state_another_user_could_write_is_refused(world: World) -> None:
    traffic(world)
    os.chmod(world.state, 0o777)
    try:
        proc = world.run("watch", "--once")
    finally:
        os.chmod(world.state, 0o700)
    assert proc.returncode == 1
    assert (
        "is writable by others" in proc.stderr
        and "hail reads and writes no mail there" in proc.stderr
    )


def test_peer_text_reaches_the_frame_as_one_clean_line(world: World) -> None:
    world.send("worker", "ask", "ok\u202e evil [bold]markup[/bold]")
    out = world.run("watch", "--once").stdout
    assert "ok evil [bold]markup[/bold]" in out and "\u202e" not in out and "\x1b" not in out


def test_json_lists_the_persons_mail_and_it_is_no_trouble(world: World) -> None:
    (world.root / "api").mkdir()
    (world.root / "api" / ".hail-seat").write_text("api\n")
    asked = world.run("person", "ask", "May I force-push main?", cwd="api")
    told = world.run("person", "fyi", "main is green", cwd="api")
    assert (asked.returncode, told.returncode) == (0, 0), asked.stderr + told.stderr
    ask, fyi = asked.stdout.split("=", 1)[1].strip(), told.stdout.split("=", 1)[1].strip()
    data = json.loads(world.run("watch", "--json").stdout)
    assert data["person"] == {
        "mailbox": "person",
        "unread": 2,
        "open_asks": [ask],
        "messages": [fyi, ask],
    }
    assert ask in data["open_asks"]
    assert not [t for t in data["trouble"] if t["seat"] == "person"]
