"""`hail nudge` on a scratch tmux server [docs/commands.md "nudge"]: a seat whose mail sits unread
(a send that did not wake it) is woken again by its route, with the envelope of its oldest unread
message, and nothing is filed twice."""

from __future__ import annotations

from tests.scenarios.conftest import Scene


def test_nudge_types_the_oldest_unread_envelope_and_files_nothing(scene: Scene) -> None:
    first = scene.as_pane(scene.sender, "worker", "ask", "--no-wake", "Is the schema frozen?")
    second = scene.as_pane(scene.sender, "worker", "fyi", "--no-wake", "and the index too")
    assert (first.rc, second.rc) == (5, 5), (first.err, second.err)
    files = scene.new_files("worker")
    assert "Is the schema frozen?" not in scene.screen(scene.recv), "nothing typed yet"

    nudged = scene.run("nudge", "worker", cwd=scene.root)

    assert nudged.rc == 0, nudged.err
    assert nudged.out == f"id={first.id}\n"
    assert f"hail: typed: into {scene.recv}" in nudged.err
    envelope = f"[hail kind:ask from:boss/{scene.sender} id:{first.id}] Is the schema frozen?"
    assert scene.wait_count(scene.recv, f"id:{first.id}", 2), scene.screen(scene.recv)
    assert envelope in scene.screen(scene.recv)
    assert f"id:{second.id}" not in scene.screen(scene.recv), "one envelope: the oldest"
    assert scene.new_files("worker") == files, "nothing filed, nothing claimed"


def test_nudge_of_a_seat_with_nothing_unread_does_nothing(scene: Scene) -> None:
    scene.as_pane(scene.recv, "whoami")
    nudged = scene.run("nudge", "worker", cwd=scene.root)
    assert nudged.rc == 0, nudged.err
    assert nudged.out == ""
    assert "nothing unread in worker: nothing to wake it for" in nudged.err
    assert "[hail" not in scene.screen(scene.recv)


def test_nudge_of_a_pane_showing_a_dialog_types_nothing(scene: Scene) -> None:
    sent = scene.as_pane(scene.sender, "worker", "ask", "--no-wake", "Is the schema frozen?")
    assert sent.rc == 5, sent.err
    dialog = [
        " Bash command",
        " Do you want to proceed?",
        " ❯ 1. Yes",
        "   2. No",
        "",
        " Esc to cancel",
    ]
    scene.show_then_cat(scene.recv, scene.seat_dir("worker"), dialog)

    nudged = scene.run("nudge", "worker", cwd=scene.root)

    assert nudged.rc == 4, nudged.err
    assert nudged.out == ""
    assert (
        f"error: {scene.recv} shows a permission dialog; nothing was typed. Answer it first"
        " (hail watch: d), then nudge again" in nudged.err
    )
    assert "[hail" not in scene.screen(scene.recv)
    assert scene.new_files("worker") == [f"{sent.id}.md"]
