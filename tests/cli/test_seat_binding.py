"""Which verbs bind the seat they run in (docs/seats.md "Binding"): every verb that needs its
seat binds it on first use, hooks included; the verbs that only read, and doctor, never do."""

from __future__ import annotations

import os

import pytest

from tests.support.world import World

UNKNOWN_ID = "1201T000000-0000"

BINDING = [
    ("whoami",),
    ("inbox",),
    ("inbox", "--peek"),
    ("brief",),
    ("brief", "--hook"),
    ("deliver",),
    ("deliver", "--format", "claude"),
    ("deliver", "--format", "codex", "--event", "Stop"),
    ("await", "--reply", UNKNOWN_ID, "--timeout", "0"),
    ("worker", "fyi", "hello", "--no-wake"),
]

NOT_BINDING = [
    ("sent", UNKNOWN_ID),
    ("show", UNKNOWN_ID),
    ("await", UNKNOWN_ID, "--timeout", "0"),
    ("doctor",),
    ("seats",),
    ("read", "fresh"),
]


@pytest.mark.parametrize("args", BINDING, ids=" ".join)
def test_a_verb_that_needs_its_seat_binds_it(world: World, args: tuple[str, ...]) -> None:
    assert world.run("whoami", cwd="worker").returncode == 0  # known: the send's recipient
    fresh = world.make_seat("fresh")
    proc = world.run(*args, cwd="fresh")
    root = world.state / "seats" / "fresh" / "root"
    assert root.exists(), (proc.returncode, proc.stderr)
    assert root.read_text() == os.path.realpath(fresh) + "\n"


@pytest.mark.parametrize("args", NOT_BINDING, ids=" ".join)
def test_a_verb_that_only_reads_never_binds(world: World, args: tuple[str, ...]) -> None:
    assert world.run("whoami", cwd="worker").returncode == 0
    world.make_seat("fresh")
    world.run(*args, cwd="fresh")
    assert not (world.state / "seats" / "fresh").exists()
