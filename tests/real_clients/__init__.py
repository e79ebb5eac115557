"""End-to-end tests against the real Claude Code and Codex TUIs (opt-in; see conftest.py)."""

from __future__ import annotations
