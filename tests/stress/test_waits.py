"""Crossing waits started at the same moment: of every pair exactly one gives way at once
[docs/conversations.md "Crossing waits"].

Bounded: a fixed number of processes and a deadline well inside their own wait.
"""

from __future__ import annotations

import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.stress.conftest import spawn
from tests.support.world import World

pytestmark = pytest.mark.stress

PAIRS = 90
WAIT = 300  # each process's own wait: far longer than any prompt refusal takes
DEADLINE = 60.0  # every pair has given way by then, or it waits its whole WAIT


def test_crossing_asks_with_wait_started_at_once_never_both_wait(
    world: World, figures: Any
) -> None:
    """Each pair asks the other and waits at the same moment: one of the two exits 6 promptly."""
    seats = [(f"a{i}", f"b{i}") for i in range(PAIRS)]
    for a, b in seats:
        world.make_seat(a)
        world.make_seat(b)
    with ThreadPoolExecutor(8) as pool:  # make every seat known (no tmux: a send needs that)
        done = pool.map(
            lambda s: world.run("whoami", cwd=s).returncode, [s for p in seats for s in p]
        )
        assert set(done) == {0}
    procs: list[tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]] = []
    start = time.monotonic()
    try:
        for a, b in seats:
            one = spawn(world, b, "ask", "--wait", str(WAIT), f"{a} asks {b}", cwd=a)
            two = spawn(world, a, "ask", "--wait", str(WAIT), f"{b} asks {a}", cwd=b)
            procs.append((one, two))

        def settled(pair: tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]) -> bool:
            return any(p.poll() is not None for p in pair)

        while time.monotonic() - start < DEADLINE and not all(settled(p) for p in procs):
            time.sleep(0.1)
        took = time.monotonic() - start
        stuck = [seats[i] for i, pair in enumerate(procs) if not settled(pair)]
        codes = [tuple(p.poll() for p in pair) for pair in procs]
    finally:
        for pair in procs:
            for p in pair:
                if p.poll() is None:
                    p.terminate()
        for pair in procs:
            for p in pair:
                p.communicate(timeout=30)
    figures(pairs=PAIRS, processes=2 * PAIRS, seconds=f"{took:.1f}", stuck=len(stuck))
    assert not stuck, f"{len(stuck)} of {PAIRS} pairs both waited: {stuck}"
    assert all(set(c) == {6, None} for c in codes), f"exactly one of each pair gives way: {codes}"
