"""hail: messages between coding agents that share one machine and one tmux server."""

from __future__ import annotations

#: The one place the version is written: the package metadata (hatch) and Nix (nix/version.nix)
#: read it here, and CHANGELOG.md names it.
__version__ = "0.7.0"
