"""`hail setup`: install hail's hooks into Claude Code's and Codex's configs [docs/hooks.md
"Merge rule"], and hail's rule into Codex's rules directory, which lets `hail` run outside Codex's
sandbox [docs/hooks.md "Codex rule"].

The run goes by steps: find the configs (`install/configs.py`), plan each merge (`install/plan.py`,
the pure merges of `install/`), then per file show the diff, ask, back up and write
(`install/write.py`), and summarise. Every config is read and merged before anything is printed or
written, so a file setup cannot parse stops the run with nothing changed. `hail doctor` reports
from the same merges (`install/checks.py`), so the two verbs never disagree.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TextIO

from hail.errors import StateError, UsageError
from hail.harnesses import registry
from hail.install import managed
from hail.install.codex_hooks_json import HooksElsewhere
from hail.install.codex_toml import codex_untrusted
from hail.install.configs import (
    ConfigFile,
    ConfigKind,
    config_files,
    hooks_json,
    read,
    read_seen,
    unified_diff,
)
from hail.install.hook_table import Harness, hook_specs
from hail.install.plan import Plan, hail_hooks_json, merged
from hail.install.program import hook_program
from hail.install.write import install

#: What to do after a write is each harness's `next_step` [docs/commands.md "setup"].
#: After writing hail's Codex rule: Codex reads rules when it starts.
NEXT_STEP_RULE = "a new Codex session may run hail outside its sandbox"
#: The note when `--trust-codex` recorded the trust itself, so no `/hooks` review is due.
NEXT_STEP_TRUSTED = "hail's hooks are trusted; a new session picks them up"

#: The closing line when Codex is handled and its hooks still await the user's trust.
CODEX_TRUST_HINT = (
    "      Codex runs new or changed hooks only once trusted: hail setup --trust-codex trusts"
    " hail's own (or review them with /hooks in Codex)"
)

#: Besides letters and digits, what `--program` may hold: a hook command is run by a shell.
PROGRAM_CHARACTERS = "/._+-@:"

ACCEPT = frozenset({"y", "Y", "yes"})


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
    #: hail's Codex hooks still untrusted once this run is done.
    untrusted: list[str] = field(default_factory=list)
    #: hooks.json as this run leaves it, when hail's hooks are there.
    hooks_json: str | None = None

    def say(self, line: str) -> None:
        self.out.write(line + "\n")

    def merge(self, cfg: ConfigFile, text: str, elsewhere: HooksElsewhere | None = None) -> str:
        return merged(cfg, text, self.trust_codex, self.program, self.env, elsewhere)

    def untrusted_in(self, plan: Plan, text: str) -> list[str]:
        """hail's Codex hooks untrusted when config.toml is `text`."""
        return codex_untrusted(text, plan.cfg.trust_path, self.program, plan.elsewhere)


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
        owned = managed.managed_path(cfg, run.env)
        if owned is not None:
            run.say(managed.skip_line(cfg.name, owned))
            continue
        plans += _plan(run, cfg)
    return plans


def _plan(run: _Run, cfg: ConfigFile) -> list[Plan]:
    """The config's plan, after that of Codex's hooks.json when hail's hooks are there."""
    plans: list[Plan] = []
    elsewhere = None
    found = hail_hooks_json(cfg, run.program, run.env)
    if found is not None:
        beside, text = found
        json_plan = Plan(beside, text, run.merge(beside, text))
        plans.append(json_plan)
        elsewhere = HooksElsewhere(json_plan.new, beside.trust_path)
    old = read(cfg.path)
    plans.append(Plan(cfg, old, run.merge(cfg, old, elsewhere), elsewhere))
    return plans


def _carry_out(run: _Run, step: Plan | ConfigFile) -> None:
    """One file's step: its line, and for a file not current its diff, then (without `--check`)
    the question and the write."""
    if isinstance(step, ConfigFile):
        if step.kind is not ConfigKind.CODEX_RULE:  # one line per missing harness, not per file
            run.say(f"skip  {step.name}: {step.directory} not installed")
        return
    plan = _replanned(run, step)
    kind = plan.cfg.kind
    if kind is ConfigKind.CODEX_CONFIG:
        run.untrusted = run.untrusted_in(plan, plan.new)
    if kind is ConfigKind.CODEX_HOOKS_JSON:
        run.hooks_json = plan.new if plan.old == plan.new or run.check else plan.old
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
    """config.toml's plan merged again when hooks.json was left as it was (or changed meanwhile):
    the trust it records is that of what hooks.json holds now."""
    if plan.elsewhere is None or run.hooks_json == plan.elsewhere.text:
        return plan
    elsewhere = HooksElsewhere(run.hooks_json or "", plan.elsewhere.trust_path)
    return Plan(plan.cfg, plan.old, run.merge(plan.cfg, plan.old, elsewhere), elsewhere)


def _write(run: _Run, plan: Plan) -> None:
    """Ask, write, and say what became of the file."""
    cfg = plan.cfg
    settled = _settle(run, plan)  # written unless None
    if settled is None:
        run.say(f"left {cfg.name}: unchanged")
        if cfg.kind is ConfigKind.CODEX_CONFIG:
            run.untrusted = run.untrusted_in(plan, plan.old)
        return
    if cfg.kind is ConfigKind.CODEX_HOOKS_JSON:
        run.hooks_json = settled.new
    if settled.old == settled.new:  # someone else made it current meanwhile
        run.say(_current_line(settled))
        return
    where = "" if plan.elsewhere is None else f" (hail's hooks are in {hooks_json(cfg).path})"
    run.say(f"done  {cfg.name}: updated {cfg.path}{where}; {_next_step(cfg, run.trust_codex)}")


def _summarise(run: _Run, files: list[ConfigFile]) -> None:
    harnesses = sorted({c.harness for c in files if c.installed}) or [
        h.name for h in registry.every() if h.shared_events
    ]
    for line in summary(harnesses, run.program):
        run.say(line)
    if run.untrusted:
        run.say(CODEX_TRUST_HINT)


def _current_line(plan: Plan) -> str:
    cfg = plan.cfg
    if plan.elsewhere is not None:
        return (
            f"ok    {cfg.name}: hail's hooks are in {hooks_json(cfg).path}, so none go in"
            f" {cfg.path}"
        )
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
        plan = Plan(cfg, now, run.merge(cfg, now, plan.elsewhere), plan.elsewhere)
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


def summary(harnesses: list[Harness], program: str) -> list[str]:
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


def _next_step(cfg: ConfigFile, trust_codex: bool) -> str:
    if cfg.kind is ConfigKind.CODEX_RULE:
        return NEXT_STEP_RULE
    if trust_codex and cfg.kind in (ConfigKind.CODEX_CONFIG, ConfigKind.CODEX_HOOKS_JSON):
        return NEXT_STEP_TRUSTED
    return registry.get(cfg.harness).next_step


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
