"""The message format's old place: `commands/send.py` still imports `render` from here until it
names `hail.message`, the pure module (see DESIGN.md's layers). Nothing else may."""

from __future__ import annotations

from hail.message import render

__all__ = ["render"]
