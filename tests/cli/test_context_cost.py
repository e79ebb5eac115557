"""scripts/context_cost.py against the installed hail: the figures docs/context-cost.md states hold.

The formats themselves are pinned in tests/unit/test_frame.py and test_envelope.py; this checks the
goals of docs/envelope-and-frames.md "Cost" end to end, path by path, as the script measures them.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.entry import hail_bin

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "context_cost.py"


@pytest.fixture(scope="module")
def cost() -> ModuleType:
    sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("context_cost", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["context_cost"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_path_meets_the_goals(cost: ModuleType, tmp_path: Path) -> None:
    rows = cost.measure(cost.World(tmp_path, hail_bin()))
    assert [r.variant.name for r in rows] == [v.name for v in cost.VARIANTS]
    for r in rows:
        content = r.variant.content
        assert r.preamble <= 110
        assert r.framing <= 70, r
        assert r.paths["SessionStart brief"] == 0, "the first prompt delivers unread mail in full"
        assert not r.repeats_headline, "the prompt is the envelope: its headline is not repeated"
        for path in ("PostToolUse", "Stop", "hail inbox"):
            assert r.paths[path] is not None and r.paths[path] - content <= 110 + 70 + 1, (path, r)
