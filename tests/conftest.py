"""The shared fixtures and helpers live in `tests/support`, loaded here as a plugin."""

from __future__ import annotations

pytest_plugins = ["tests.support"]
