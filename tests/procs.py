"""Old import path, kept only until no test imports it: use tests.support.procs."""

from __future__ import annotations

from tests.support.procs import alive, children_of, descendants, wait_until

__all__ = ["alive", "children_of", "descendants", "wait_until"]
