"""How `hail setup` names hail in hook commands, and the PATH `hail doctor` runs them with.

A harness runs each hook with `sh -c` in its own environment, which need not have the PATH of the
shell that ran setup: a desktop launcher, a service manager or another terminal starts it with less.
So setup names hail bare only when a login PATH finds this very hail — a stable place such as
`~/.local/bin` (pip --user, uv tool, pipx) or a Nix profile — and names it by its absolute path
otherwise (a virtual environment, a checkout), which any PATH finds.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping

#: The bare name, for a hail every login PATH finds.
BARE = "hail"


def login_path(env: Mapping[str, str]) -> str:
    """A minimal login PATH: the system's directories, the user's own and the Nix profiles."""
    home = env.get("HOME", "")
    user = env.get("USER", "")
    dirs = [
        os.path.join(home, ".local", "bin") if home else "",
        os.path.join(home, "bin") if home else "",
        os.path.join(home, ".nix-profile", "bin") if home else "",
        f"/etc/profiles/per-user/{user}/bin" if user else "",
        "/run/current-system/sw/bin",
        "/nix/var/nix/profiles/default/bin",
        "/opt/homebrew/bin",
        "/usr/local/bin",
        "/usr/bin",
        "/bin",
    ]
    return os.pathsep.join(d for d in dirs if d)


def running_hail(env: Mapping[str, str], argv0: str) -> str | None:
    """The hail running now: its script when started as one, else the one PATH finds."""
    if os.path.basename(argv0) == BARE and os.path.isfile(argv0):
        return os.path.abspath(argv0)
    return shutil.which(BARE, path=env.get("PATH"))


def hook_program(env: Mapping[str, str], argv0: str) -> str:
    """How hook commands name hail: bare when a login PATH finds this hail, else its absolute path."""
    me = running_hail(env, argv0)
    if me is None:
        return BARE
    found = shutil.which(BARE, path=login_path(env))
    try:
        if found is not None and os.path.samefile(found, me):
            return BARE
    except OSError:
        pass
    return shlex.quote(me)
