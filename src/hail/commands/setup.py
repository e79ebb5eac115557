"""`hail setup`: install hail's hooks into each harness's config [docs/hooks.md "Merge rule"], and
hail's own files (Codex's rule, which lets `hail` run outside Codex's sandbox [docs/hooks.md "Codex
rule"]; opencode's plugin).

The run goes by steps: find the configs (`install/configs.py`), plan each merge (each file's format,
`install/formats/`), then per file show the diff, ask, back up and write (`install/write.py`), and
summarise. Every config is read and merged before anything is printed or written, so a file setup
cannot parse stops the run with nothing changed. `hail doctor` reports from the same merges
(`install/checks.py`), so the two verbs never disagree.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from hail.errors import StateError, UsageError
from hail.harnesses import registry
from hail.install import managed
from hail.install.codex_hooks_json import HooksElsewhere
from hail.install.configs import config_files, unified_diff
from hail.install.formats.base import ConfigFile, Wanted
from hail.install.hook_table import HarnessName, hook_specs
from hail.install.program import hook_program
from hail.install.write import install, read, read_seen

#: Besides letters and digits, what `--program` may hold: a hook command is run by a shell.
PROGRAM_CHARACTERS = "/._+-@:"

ACCEPT = frozenset({"y", "Y", "yes"})


@dataclass(frozen=True)
class Plan:
    """One file's text as read (`old`) and as hail's merge makes it (`new`)."""

    cfg: ConfigFile
    old: str
    new: str
    #: For a config whose hooks are kept in another file (Codex's config.toml when its hooks.json
    #: has them): that file, and its text as the merge saw it.
    beside: ConfigFile | None = None
    elsewhere: HooksElsewhere | None = None


@dataclass
class _Run:
    """One run of setup: what it was asked, and what it has found so far."""

    env: Mapping[str, str]
    check: bool
    yes: bool
    trust_codex: bool
    program: str
    out: TextIO
    stdin: TextIO
    #: Whether some file was not current (`--check` exits 1 then).
    drift: bool = False
    #: Per file, setup's closing line while hail's hooks in it, as this run leaves it, wait for
    #: the harness's trust ("" once none do).
    trust_hints: dict[Path, str] = field(default_factory=dict)
    #: Each file's text as this run leaves it, so far.
    left: dict[Path, str] = field(default_factory=dict)
    #: The harnesses' folders already reported as not installed (one line for a folder's files).
    skipped: set[tuple[str, Path]] = field(default_factory=set)

    def say(self, line: str) -> None:
        self.out.write(line + "\n")

    def merge(self, cfg: ConfigFile, text: str, elsewhere: HooksElsewhere | None = None) -> str:
        wanted = Wanted(self.program, self.env, self.trust_codex, elsewhere)
        return cfg.format.merged(cfg, text, wanted)

    def note_trust(self, plan: Plan, text: str) -> None:
        """Whether hail's hooks wait for the harness's trust once the file is `text`."""
        cfg = plan.cfg
        self.trust_hints[cfg.path] = cfg.format.trust_hint(cfg, text, self.program, plan.elsewhere)


def run_setup(
    env: Mapping[str, str],
    check: bool,
    yes: bool,
    trust_codex: bool,
    out: TextIO,
    stdin: TextIO,
    program: str | None = None,
) -> int:
    """`hail setup [--check] [--yes] [--trust-codex] [--program PATH]`; returns the exit code.

    Hook commands run `program`, by default this hail as a harness will find it
    [docs/hooks.md "How hooks name hail"]. A file Home Manager owns (a link into the Nix store) is left
    alone. Exit 1 only for `--check` with drift; errors are raised as `HailError`s.
    """
    if program is None:
        program = hook_program(env, sys.argv[0])
    else:
        _check_program(program)
    run = _Run(env, check, yes, trust_codex, program, out, stdin)
    files = config_files(env)
    for step in _plan_all(run, files):
        _carry_out(run, step)
    if not check:
        _summarise(run, files)
    return 1 if check and run.drift else 0


def _plan_all(run: _Run, files: list[ConfigFile]) -> list[Plan | ConfigFile]:
    """Every file's plan, read and merged before anything is written; a harness not installed
    stays a bare `ConfigFile`, and a file Home Manager owns is skipped here, with its line."""
    plans: list[Plan | ConfigFile] = []
    for cfg in files:
        if not cfg.installed:
            plans.append(cfg)
            continue
        owned = cfg.format.managed_by(cfg, run.env)
        if owned is not None:
            run.say(managed.skip_line(cfg.name, owned))
            continue
        plans += _plan(run, cfg)
    return plans


def _plan(run: _Run, cfg: ConfigFile) -> list[Plan]:
    """The config's plan, after that of the file holding hail's hooks in its place (Codex's
    hooks.json) when there is one."""
    found = cfg.format.hooks_elsewhere(cfg, run.program, run.env)
    old = read(cfg.path)
    if found is None:
        return [Plan(cfg, old, run.merge(cfg, old))]
    beside, text = found
    beside_plan = Plan(beside, text, run.merge(beside, text))
    elsewhere = HooksElsewhere(beside_plan.new, beside.trust_path)
    return [beside_plan, Plan(cfg, old, run.merge(cfg, old, elsewhere), beside, elsewhere)]


def _carry_out(run: _Run, step: Plan | ConfigFile) -> None:
    """One file's step: its line, and for a file not current its diff, then (without `--check`)
    the question and the write."""
    if isinstance(step, ConfigFile):
        folder = (step.harness, step.directory)
        if folder not in run.skipped:  # one line per missing folder, not per file
            run.skipped.add(folder)
            run.say(f"skip  {step.name}: {step.directory} not installed")
        return
    plan = _replanned(run, step)
    run.note_trust(plan, plan.new)
    run.left[plan.cfg.path] = plan.new if plan.old == plan.new or run.check else plan.old
    if plan.old == plan.new:
        run.say(_current_line(plan))
        return
    run.drift = True
    run.out.write(unified_diff(plan.old, plan.new, str(plan.cfg.path)))
    if run.check:
        run.say(f"drift {plan.cfg.name}: run hail setup")
        return
    _write(run, plan)


def _replanned(run: _Run, plan: Plan) -> Plan:
    """A plan merged again when the file holding hail's hooks in its place was left as it was (or
    changed meanwhile): the trust config.toml records is that of what hooks.json holds now."""
    if plan.beside is None or plan.elsewhere is None:
        return plan
    left = run.left.get(plan.beside.path)
    if left == plan.elsewhere.text:
        return plan
    elsewhere = HooksElsewhere(left or "", plan.elsewhere.trust_path)
    new = run.merge(plan.cfg, plan.old, elsewhere)
    return Plan(plan.cfg, plan.old, new, plan.beside, elsewhere)


def _write(run: _Run, plan: Plan) -> None:
    """Ask, write, and say what became of the file."""
    cfg = plan.cfg
    settled = _settle(run, plan)  # written unless None
    if settled is None:
        run.say(f"left {cfg.name}: unchanged")
        run.note_trust(plan, plan.old)
        return
    run.left[cfg.path] = settled.new
    if settled.old == settled.new:  # someone else made it current meanwhile
        run.say(_current_line(settled))
        return
    where = "" if plan.beside is None else f" (hail's hooks are in {plan.beside.path})"
    next_step = cfg.format.next_step(cfg, run.trust_codex)
    run.say(f"done  {cfg.name}: updated {cfg.path}{where}; {next_step}")


def _summarise(run: _Run, files: list[ConfigFile]) -> None:
    harnesses = sorted({c.harness for c in files if c.installed}) or [
        h.name for h in registry.every() if h.shared_events
    ]
    for line in summary(harnesses, run.program):
        run.say(line)
    for hint in dict.fromkeys(h for h in run.trust_hints.values() if h):
        run.say(f"      {hint}")


def _current_line(plan: Plan) -> str:
    cfg = plan.cfg
    if plan.beside is not None:
        return f"ok    {cfg.name}: hail's hooks are in {plan.beside.path}, so none go in {cfg.path}"
    return f"ok    {cfg.name}: {cfg.what} current in {cfg.path}"


def _settle(run: _Run, plan: Plan) -> Plan | None:
    """Write the plan once the person said yes to the file as it is now, and return what was
    written (nothing when it became current meanwhile); None for a no.

    The file is read again after the answer, and compared with that read once more just before
    the new text replaces it: an edit saved while setup waited at its prompt or while it wrote is
    merged and shown as a new diff, and asked about again, never overwritten. With --yes nobody
    saw the new text, so setup refuses instead. Only an edit saved in the moment between that last
    compare and the rename can still be replaced: the other program holds no lock.
    """
    cfg, path = plan.cfg, str(plan.cfg.path)
    while True:
        if not run.yes and not _confirm(f"update {path}?", run.out, run.stdin):
            return None
        now, seen = read_seen(cfg.path)
        if now == plan.old and install(cfg.path, plan.old, plan.new, seen):
            return plan
        if run.yes:
            raise StateError(
                f"{path} changed while hail setup ran; nothing was written to it: rerun hail setup"
            )
        now = read(cfg.path)
        plan = Plan(cfg, now, run.merge(cfg, now, plan.elsewhere), plan.beside, plan.elsewhere)
        if plan.old == plan.new:
            return plan
        run.say(f"{path} changed since the diff above; the diff against it now:")
        run.out.write(unified_diff(plan.old, plan.new, path))


def _check_program(program: str) -> None:
    """A hook command is a shell line: the program must be one plain word."""
    if not program or not all(
        (c.isascii() and c.isalnum()) or c in PROGRAM_CHARACTERS for c in program
    ):
        raise UsageError(
            f"--program {program!r} is not a plain path: give the path to hail,"
            f" made of letters, digits and {PROGRAM_CHARACTERS}"
        )


def summary(harnesses: list[HarnessName], program: str) -> list[str]:
    """The trailing lines after a run (not with --check): the hooks every handled file now has,
    one per event, the harness's name in the arguments shown as `claude|codex`."""
    # The harnesses whose hooks have the same events; the others' are listed under their names.
    shared = [h for h in harnesses if registry.get(h).shared_events]
    lines: dict[tuple[str, str], str] = {}
    for harness in harnesses:
        for spec in hook_specs(harness):
            event, args = spec.event, list(spec.args)
            if harness in shared:
                # A hook only one harness has (Claude Code's waiter) names that harness alone.
                having = [
                    h for h in shared if any(s.args[0] == spec.args[0] for s in hook_specs(h))
                ]
                args = ["|".join(having) if arg == harness else arg for arg in args]
            else:
                event = f"{registry.get(harness).title} {spec.event}"
            lines.setdefault((event, spec.args[0]), f"      {event}: {' '.join([program, *args])}")
    return list(lines.values())


def _confirm(question: str, out: TextIO, stdin: TextIO) -> bool:
    """Ask on the terminal; a non-terminal stdin cannot say yes, so it is refused with the fix."""
    try:
        interactive = stdin.isatty()
    except (ValueError, OSError):
        interactive = False
    if not interactive:
        raise UsageError(f"{question} needs a yes: rerun with --yes, or run it in a terminal")
    out.write(f"{question} [y/N] ")
    out.flush()
    return stdin.readline().strip() in ACCEPT
