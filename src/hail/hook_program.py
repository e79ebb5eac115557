"""How `hail setup` names hail in hook commands and in Codex's rule, and the PATH `hail doctor`
runs hooks with.

A harness runs each hook with `sh -c` in its own environment, which need not have the PATH of the
shell that ran setup: a desktop launcher, a service manager or another terminal starts it with less.
So setup names hail bare only when a login PATH finds this very hail — a stable place such as
`~/.local/bin` (pip --user, uv tool, pipx) or a Nix profile — and names it by its absolute path
otherwise (a virtual environment, a checkout), which any PATH finds. Codex's rule lets that hail
out of its sandbox by the same paths, and no other program of its name [docs/hooks.md "Codex rule"].
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


def rule_paths(program: str, env: Mapping[str, str]) -> list[str]:
    """The paths of the hail that hook commands run, for Codex's rule to let out of its sandbox:
    the path they name (for a bare `hail`, the one a login PATH finds, as Codex's login shell
    does) and, when that is a link, the file it leads to. Codex compares a path as written, so a
    link the model could make elsewhere is not one of them. None for a hail no path names."""
    try:
        words = shlex.split(program)  # hook_program quotes a path a shell would split
    except ValueError:
        return []
    if len(words) != 1:
        return []
    word = words[0]
    if os.path.isabs(word):
        found: str | None = word
    elif os.sep not in word:
        found = shutil.which(word, path=login_path(env))
    else:
        found = None  # relative to wherever the harness runs the hook: no one path
    if found is None:
        return []
    paths = [found]
    real = os.path.realpath(found)
    if real != found:
        paths.append(real)
    return paths
