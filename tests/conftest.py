"""The shared fixtures and helpers live in `tests/support`, loaded here as a plugin."""

from __future__ import annotations

import pytest

pytest_plugins = ["tests.support"]
# Its asserts report their operands only if rewritten, which must happen before the import below.
pytest.register_assert_rewrite("tests.support")

from tests.support.entry import hail_bin  # noqa: E402
from tests.support.world import SCRUBBED, Seats, World  # noqa: E402

# Old import paths, kept only until no test imports them from here: import from tests.support.
__all__ = ["SCRUBBED", "Seats", "World", "hail_bin", "send"]


def send(world: World, kind: str, headline: str, body: str | None = None, *opts: str) -> str:
    """Old spelling of `world.send("worker", kind, headline, *opts, body=body)`."""
    return world.send("worker", kind, headline, *opts, body=body)
