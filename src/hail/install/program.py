"""How `hail setup` names hail in hook commands and in Codex's rule, what counts as hail's shape of
a hook program, and where `hail doctor` finds the program a hook names (the PATH, the lookup).

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


def hook_word(program: str) -> str | None:
    """The program a hook command's first part names, when it is hail's own shape: `hail` or a path
    to an executable named `hail`, written as `shlex.quote` writes it (as setup does), so that a
    shell reads it as exactly that one word; a leading `~/` is allowed. None for anything else: a
    `;`, `$(…)`, a backtick, a second word — text a shell would run as more than a program name.
    """
    tilde = "~/" if program.startswith("~/") else ""
    rest = program[len(tilde) :]
    try:
        words = shlex.split(rest)
    except ValueError:
        return None
    if len(words) != 1 or shlex.quote(words[0]) != rest:
        return None
    word = tilde + words[0]
    return word if os.path.basename(word) == BARE else None


def find_program(word: str, env: Mapping[str, str], cwd: str) -> str | None:
    """Where a shell started with `env` in `cwd` finds the program `word`, looked up here rather
    than by a shell: a path as it is (`~/` from env's HOME, a relative one from `cwd`), a bare name
    on env's PATH. None when it is not there or not executable."""
    if word.startswith("~/"):
        home = env.get("HOME", "")
        if not home:
            return None
        word = os.path.join(home, word[2:])
    if "/" in word:
        return shutil.which(os.path.join(cwd, word))  # an absolute word stays as it is
    return shutil.which(word, path=env.get("PATH", os.defpath))


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
