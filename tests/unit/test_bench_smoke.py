"""scripts/bench.py builds states hail reads as docs/files.md "Layout" describes, and its cases do
what they claim.

No timing is asserted here (docs/hooks.md "Hook-path performance": speed is checked by `just bench`,
not by timed tests).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.entry import hail_bin

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_every_case_behaves_as_the_benchmark_assumes_against_the_installed_hail() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--validate", "--hail", hail_bin()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok: ")


def test_a_generated_state_holds_the_files_its_shape_names(
    bench: ModuleType, tmp_path: Path
) -> None:
    shape = bench.Shape(
        "tiny", other_seats=20, read_messages=300, bench_read=50, holds=40, pending=25
    )
    world = bench.large_world(tmp_path, shape)
    hail = world.hail
    seats = sorted(os.listdir(hail / "seats"))
    assert len(seats) == 25
    for seat in seats:
        assert (hail / "seats" / seat / "root").read_text() == f"{world.seat_dir(seat)}\n"
        assert (world.seat_dir(seat) / ".hail-seat").read_text() == f"{seat}\n"
    read = [p for p in hail.glob("seats/*/cur/*") if p.name.endswith(".read.md")]
    assert len(read) == 300
    assert len(os.listdir(hail / "seats" / "bench" / "cur")) == 50
    # every message is indexed: the read ones, inbox5's five, bench's one late send
    assert len(os.listdir(hail / "ids")) == 300 + 5 + 1
    assert os.readlink(hail / "ids" / world.sent_id) == "peer"
    assert len(os.listdir(hail / "holds")) == 40
    assert len(list(hail.glob("seats/*/pending/*"))) == 25
    assert sorted(os.listdir(hail / "seats" / "inbox5" / "new")) == [
        f"{i}.md" for i in world.unread_ids
    ]
    assert oct((hail / "holds").stat().st_mode & 0o777) == "0o700"
    assert oct(read[0].stat().st_mode & 0o777) == "0o600"


def test_a_cached_state_is_reused_and_put_back_as_it_was_built(
    bench: ModuleType, tmp_path: Path
) -> None:
    shape = bench.Shape("tiny", other_seats=3, read_messages=30, bench_read=5, holds=12, pending=4)
    first = bench.large_world(tmp_path, shape)
    marker = (first.root / "complete").read_text()
    box = first.mailbox("inbox5")
    claimed = first.unread_ids[0]
    os.rename(box / "new" / f"{claimed}.md", box / "cur" / f"{claimed}.injected.md")
    (first.mailbox("sink") / "new" / "1130T000000-abcd.md").write_text("x\n")

    again = bench.large_world(tmp_path, shape)

    assert (again.root / "complete").read_text() == marker
    assert again.sent_id == first.sent_id
    assert (box / "new" / f"{claimed}.md").exists()
    assert os.listdir(again.mailbox("sink") / "new") == []


def test_the_gauge_benchmark_reads_the_files_it_claims_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bench.py --gauge`'s near files give their newest call in one step; its far files give none
    within the bound, which is then read to its end (docs/performance.md "The context gauge")."""
    from hail import policy
    from hail.config import Config
    from hail.gauge.choose import reader

    spec = importlib.util.spec_from_file_location("bench_gauge", SCRIPT.parent / "bench_gauge.py")
    assert spec is not None and spec.loader is not None
    gauge_bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gauge_bench)
    monkeypatch.setattr(gauge_bench, "FILE_BYTES", 3 * policy.GAUGE_READ_MAX)
    agents = gauge_bench.build(tmp_path)
    assert len(agents) == 30 and len({p for _, p in agents}) == 30
    contexts = set()
    for client, path in agents:
        assert path.stat().st_size >= 2 * policy.GAUGE_READ_MAX
        gauge = reader(client).gauge(gauge_bench.where(client, path), Config())
        assert gauge.bytes_read == policy.GAUGE_READ_STEP, (client, gauge.as_json())
        assert gauge.context.value is not None
        contexts.add((client, gauge.context.value))
    assert len(contexts) == 30, "each file its own newest call"
    gauge_bench.push_far(agents)
    for client, path in agents:
        gauge = reader(client).gauge(gauge_bench.where(client, path), Config())
        assert gauge.bytes_read == policy.GAUGE_READ_MAX and gauge.context.why == "not-in-tail"
