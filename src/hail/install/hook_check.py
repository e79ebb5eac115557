"""`hail doctor`'s checks that hooks really run: each harness's hook command run the way the
harness runs it, and agent panes whose seat has had no hook since the agent started.

A hook that cannot start (`sh: hail: not found`) fails silently: the harness shows an error, the
send still types its envelope, and mail piles up unread. So doctor runs the program each hook names,
in the environment of a running agent of that harness where it can be read (else a minimal login
PATH), and asks it only for its version, so nothing is claimed or written.

A config's text is never handed to a shell: the program must be exactly hail's shape (`hail` or a
path to it, as setup writes it), is looked up on that environment's PATH here, and is run with an
argument list. A hook command of any other shape is reported, not run.
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

from hail import policy
from hail.install.program import find_program, hook_word, login_path
from hail.process.choose import backend
from hail.text import clip_value

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hail.context import Ctx
    from hail.output import CheckLine as Line
    from hail.transport.panes import Pane, Panes


def hook_run_lines(ctx: Ctx, panes: Panes | None) -> list[Line]:
    from hail.install.checks import installed_hook_programs

    lines: list[Line] = []
    checked: set[tuple[str, str]] = set()
    for cfg, program in installed_hook_programs(ctx.env):
        harness = cfg.harness
        if (harness, program) in checked:  # two Claude configs naming one hail: one run
            continue
        checked.add((harness, program))
        name = cfg.name
        word = hook_word(program)
        if word is None:
            lines.append(
                (
                    "FIX",
                    f"{name}'s hooks run {clip_value(program, policy.FRAME_VALUE_MAX)}, which is not"
                    " hail's shape (hail, or a path to it, then hail's arguments): doctor does not"
                    " run it; run hail setup, which writes hail's own hook commands",
                )
            )
            continue
        env, whose = harness_env(ctx.env, harness, panes)
        failure = run_as_hook(word, env)
        if failure is None:
            lines.append(("ok", f"{name} can start {program} as a hook ({whose})"))
        else:
            lines.append(
                (
                    "FIX",
                    f"{name} cannot run its hooks: {failure} (with {whose},"
                    f" PATH={env.get('PATH', '')}); {_fix(word)}",
                )
            )
    return lines


def harness_env(
    env: Mapping[str, str], harness: str, panes: Panes | None
) -> tuple[dict[str, str], str]:
    """The environment the harness runs hooks in: a running agent's, else a minimal login one."""
    for pane in panes.panes if panes is not None else []:
        if pane.agent != harness:
            continue
        procs = backend(env)
        pid = procs.agent_pid(pane.pid, harness)
        found = procs.environment(pid) if pid is not None else None
        if found is not None:
            return found, f"the environment of {harness} in {pane.id}"
    minimal = {k: env[k] for k in ("HOME", "USER", "LANG") if k in env}
    minimal["PATH"] = login_path(env)
    return minimal, f"a login PATH, no {harness} running"


def run_as_hook(word: str, env: Mapping[str, str]) -> str | None:
    """Run `<word> --version` where a harness would start the hook's program: found on env's
    PATH (or at its path) from HOME, with env, as an argument list, never by a shell. What failed,
    or None. `word` is a program name already checked to be hail's shape (`hook_word`)."""
    cwd = env.get("HOME") or "/"
    found = find_program(word, env, cwd)
    if found is None:
        return f"{word}: not found"  # the words a shell would say
    try:
        proc = subprocess.run(
            [found, "--version"],
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=policy.DOCTOR_HOOK_RUN_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{word} --version: {e}"
    if proc.returncode == 0:
        return None
    said = " ".join(proc.stderr.split()) or f"exit status {proc.returncode}"
    return f"{word} --version said: {said}"


def _fix(program: str) -> str:
    if program == "hail":
        return (
            "run hail setup where hail is not on a login PATH (it then names hail by its absolute"
            " path), or put hail's directory on the PATH the harness starts with, then restart it"
        )
    return "run hail setup again with the hail you use (the path in the hooks is gone or broken)"


def silent_agent_lines(ctx: Ctx, panes: Panes | None) -> list[Line]:
    """Agent panes whose seat has had no hook run since the agent started (`diagnosis.silent`,
    the rule `hail watch` flags by)."""
    from hail import diagnosis

    if panes is None:
        return []
    now = ctx.now()
    lines: list[Line] = []
    for pane in panes.panes:
        if pane.agent is None or pane.seat is None:
            continue
        agent = diagnosis.Agent(pane.id, pane.seat, pane.agent, _started(ctx, pane), native=False)
        found = diagnosis.silent(agent, ctx.store.mailbox(pane.seat).hooked_at(), now)
        if found is not None:
            lines.append(("FIX" if found.certain else "note", found.line()))
    return lines


def _started(ctx: Ctx, pane: Pane) -> float | None:
    pid = ctx.procs().agent_pid(pane.pid, pane.agent or "")
    return ctx.procs().started_at(pid) if pid is not None else None
