"""hail: messages between coding agents that share one machine and one tmux server."""

from __future__ import annotations

__version__ = "0.7.0"
