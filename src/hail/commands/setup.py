"""`hail setup`: install hail's hooks into Claude Code's and Codex's configs [docs/hooks.md
"Merge rule"], and hail's rule into Codex's rules directory, which lets `hail` run outside Codex's
sandbox [docs/hooks.md "Codex rule"].

The merges are pure (`setup_merge.py`); the rule is a file of hail's own, written whole: the template
`data/hail.rules` filled with the paths of the hail the hooks run. This module finds the files, shows the diff, asks, backs up and writes. Every config is read
and merged before anything is printed or written, so a file setup cannot parse stops the run with
nothing changed. `doctor_hook_lines` gives `hail doctor` its hook
lines [docs/commands.md "doctor"] from the same merges, so the two verbs never disagree.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from hail import gemini_settings, opencode_plugin
from hail.commands import managed
from hail.errors import StateError, UsageError
from hail.hook_program import hook_program, rule_paths
from hail.hook_table import DEFAULT_PROGRAM, Harness, hook_specs
from hail.setup_merge import (
    EVENTS,
    MergeError,
    codex_untrusted,
    error_text,
    merge_claude,
    merge_codex,
)

if TYPE_CHECKING:
    from hail.output import CheckLine

#: What to do after a write, per harness [docs/commands.md "setup"].
NEXT_STEP: dict[Harness, str] = {
    "claude": "a new session picks it up",
    "gemini": "a new session picks it up",
    "opencode": "opencode loads it when it next starts",
    "codex": (
        "run hail setup --trust-codex (or /hooks in Codex) once to trust the changed hooks;"
        " a new session picks them up"
    ),
}
#: After writing hail's Codex rule: Codex reads rules when it starts.
NEXT_STEP_RULE = "a new Codex session may run hail outside its sandbox"
#: The note when `--trust-codex` recorded the trust itself, so no `/hooks` review is due.
NEXT_STEP_TRUSTED = "hail's hooks are trusted; a new session picks them up"

#: The closing line when Codex is handled and its hooks still await the user's trust.
CODEX_TRUST_HINT = (
    "      Codex runs new or changed hooks only once trusted: hail setup --trust-codex trusts"
    " hail's own (or review them with /hooks in Codex)"
)

#: hail's Codex rule, shipped as a file of its own so the Nix module installs the same text.
RULES_SOURCE = Path(__file__).resolve().parent.parent / "data" / "hail.rules"
#: Where the rule lists the paths of the hail it lets out; the Nix module fills it the same way.
RULES_PATHS = "@HAIL_PATHS@"
#: What a path in the rule may not hold: it is written as a Starlark string, verbatim.
RULES_PATH_UNSAFE = frozenset('"\\') | frozenset(map(chr, range(32))) | {chr(127)}
#: Where Codex finds it: every `*.rules` file in `rules/` beside its config is read at startup.
RULES_NAME = "hail.rules"

#: Besides letters and digits, what `--program` may hold: a hook command is run by a shell.
PROGRAM_CHARACTERS = "/._+-@:"

BACKUP_SUFFIX = ".hail-backup"
NEW_FILE_MODE = 0o600
ACCEPT = frozenset({"y", "Y", "yes"})


@dataclass(frozen=True)
class ConfigFile:
    """One harness file hail manages: a config holding hail's hooks, or Codex's rule file."""

    name: str
    harness: Harness
    directory: Path
    path: Path
    #: How Codex spells this config's path in its trust keys (unused for Claude).
    trust_path: str
    #: "hooks" for a config hail merges into, "rule" for the rule file hail owns whole, "plugin"
    #: for opencode's plugin, also hail's whole.
    holds: str = "hooks"

    @property
    def what(self) -> str:
        return {"hooks": "hail hooks", "rule": "hail's rule"}.get(self.holds, "hail's plugin")

    @property
    def installed(self) -> bool:
        """A harness is handled only when its config directory exists."""
        return self.directory.is_dir()


def config_files(env: Mapping[str, str]) -> list[ConfigFile]:
    """The configs setup and doctor handle, in the order they report them.

    `~/.claude/settings.json`, then `$CLAUDE_CONFIG_DIR/settings.json` when that names another
    directory (sessions on one machine may use either), then `$CODEX_HOME/config.toml`
    (default `~/.codex/config.toml`).
    """
    home = env.get("HOME", "")
    if not home:
        raise StateError("HOME is not set; set it to your home directory, then rerun hail setup")
    claude_dir = Path(home) / ".claude"
    dirs = [claude_dir]
    other = env.get("CLAUDE_CONFIG_DIR", "")
    if other and os.path.realpath(other) != os.path.realpath(claude_dir):
        dirs.append(Path(other).absolute())
    files = [
        ConfigFile("Claude Code", "claude", d, d / "settings.json", str(d / "settings.json"))
        for d in dirs
    ]
    codex_home = env.get("CODEX_HOME", "")
    if codex_home:
        codex_dir = Path(codex_home).absolute()
        # Codex canonicalises a CODEX_HOME it is given, and keys its hook trust by that path.
        trust_dir = os.path.realpath(codex_home)
    else:
        codex_dir = Path(home) / ".codex"
        trust_dir = str(codex_dir)
    files.append(
        ConfigFile(
            "Codex",
            "codex",
            codex_dir,
            codex_dir / "config.toml",
            str(Path(trust_dir) / "config.toml"),
        )
    )
    files.append(
        ConfigFile("Codex", "codex", codex_dir, codex_dir / "rules" / RULES_NAME, "", "rule")
    )
    gemini_dir = Path(gemini_settings.settings_dir(env))
    files.append(ConfigFile("Gemini CLI", "gemini", gemini_dir, gemini_dir / "settings.json", ""))
    plugins = Path(opencode_plugin.plugin_dir(env))
    files.append(
        ConfigFile(
            "opencode",
            "opencode",
            plugins.parent,
            plugins / opencode_plugin.FILE_NAME,
            "",
            "plugin",
        )
    )
    return files


def _rules_template() -> str:
    try:
        return RULES_SOURCE.read_text(encoding="utf-8")
    except OSError as e:
        raise StateError(
            f"cannot read hail's Codex rule {RULES_SOURCE}: {e.strerror or e}; reinstall hail"
        ) from None


def codex_rules(paths: Sequence[str]) -> str:
    """hail's Codex rule file, letting out the hail at `paths` (and a bare `hail`).

    Codex refuses a relative path, and a path that cannot be written verbatim as a string is left
    out: that hail then leaves the sandbox only by its bare name, never under another path.
    """
    listed = ", ".join(f'"{p}"' for p in paths if _rule_path_ok(p))
    return _rules_template().replace(RULES_PATHS, listed)


def _rule_path_ok(path: str) -> bool:
    return os.path.isabs(path) and not RULES_PATH_UNSAFE.intersection(path)


def rule_paths_in(text: str) -> list[str] | None:
    """The paths a rules file lets out when it is hail's current rule for them, else None."""
    head, _, tail = _rules_template().partition(RULES_PATHS)
    if len(text) < len(head) + len(tail) or not (text.startswith(head) and text.endswith(tail)):
        return None
    listed = text[len(head) : len(text) - len(tail)]
    paths = listed[1:-1].split('", "') if listed else []
    return paths if codex_rules(paths) == text else None


def _read(path: Path) -> str:
    """The config's text; a missing file counts as empty."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return ""
    except OSError as e:
        raise StateError(
            f"cannot read {path}: {e.strerror or e}; fix it, then rerun hail setup"
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise StateError(
            f"{path} is not UTF-8 text ({e.reason} at byte {e.start}); "
            "fix it, then rerun hail setup"
        ) from None


def _merge(
    cfg: ConfigFile,
    text: str,
    trust_codex: bool,
    program: str,
    env: Mapping[str, str],
) -> str:
    if cfg.holds == "rule":
        # hail's own file: its whole text is hail's, letting out the hail the hooks run.
        return codex_rules(rule_paths(program, env))
    if cfg.holds == "plugin":
        return opencode_plugin.render(program)
    try:
        if cfg.harness == "claude":
            return merge_claude(text, program=program)
        if cfg.harness == "gemini":
            return gemini_settings.merge_gemini(text, program)
        return merge_codex(text, cfg.trust_path, trust_codex, program)
    except MergeError as e:
        raise StateError(error_text(cfg.harness, str(cfg.path), e)) from None


@dataclass(frozen=True)
class _Plan:
    cfg: ConfigFile
    old: str
    new: str


def unified_diff(old: str, new: str, path: str) -> str:
    """A unified diff old → new, both headers naming `path`; every line newline-terminated."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=path, tofile=path
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


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
    files = config_files(env)
    plans: list[_Plan | ConfigFile] = []
    for cfg in files:
        if not cfg.installed:
            plans.append(cfg)
            continue
        owned = managed.managed_path(cfg.harness, cfg.path, cfg.holds, env)
        if owned is not None:
            _say(out, managed.skip_line(cfg.name, owned))
            continue
        old = _read(cfg.path)
        plans.append(_Plan(cfg, old, _merge(cfg, old, trust_codex, program, env)))

    drift = False
    untrusted: list[str] = []  # hail's Codex hooks still untrusted once this run is done
    for plan in plans:
        if isinstance(plan, ConfigFile):
            if plan.holds != "rule":  # one line per missing harness, not per file
                _say(out, f"skip  {plan.name}: {plan.directory} not installed")
            continue
        cfg, path = plan.cfg, str(plan.cfg.path)
        if cfg.harness == "codex" and cfg.holds == "hooks":
            untrusted = codex_untrusted(plan.new, cfg.trust_path, program)
        if plan.old == plan.new:
            _say(out, f"ok    {cfg.name}: {cfg.what} current in {path}")
            continue
        drift = True
        out.write(unified_diff(plan.old, plan.new, path))
        if check:
            _say(out, f"drift {cfg.name}: run hail setup")
            continue
        settled = _settle(plan, yes, out, stdin, trust_codex, program, env)
        if settled is None:
            _say(out, f"left {cfg.name}: unchanged")
            if cfg.harness == "codex" and cfg.holds == "hooks":
                untrusted = codex_untrusted(plan.old, cfg.trust_path, program)
            continue
        if settled.old == settled.new:  # someone else made it current meanwhile
            _say(out, f"ok    {cfg.name}: {cfg.what} current in {path}")
            continue
        _install(settled)
        _say(out, f"done  {cfg.name}: updated {path}; {_next_step(cfg, trust_codex)}")
    if not check:
        harnesses = sorted({c.harness for c in files if c.installed}) or ["claude", "codex"]
        for line in summary(harnesses, program):
            _say(out, line)
        if untrusted:
            _say(out, CODEX_TRUST_HINT)
    return 1 if check and drift else 0


def _settle(
    plan: _Plan,
    yes: bool,
    out: TextIO,
    stdin: TextIO,
    trust_codex: bool,
    program: str,
    env: Mapping[str, str],
) -> _Plan | None:
    """The plan to write once the person said yes to the file as it is now; None for a no.

    The file is read again after the answer: an edit saved while setup waited at its prompt is
    merged and shown as a new diff, and asked about again, never overwritten. With --yes nobody
    saw the new text, so setup refuses instead.
    """
    cfg, path = plan.cfg, str(plan.cfg.path)
    while True:
        if not yes and not _confirm(f"update {path}?", out, stdin):
            return None
        now = _read(cfg.path)
        if now == plan.old:
            return plan
        if yes:
            raise StateError(
                f"{path} changed while hail setup ran; nothing was written to it: rerun hail setup"
            )
        plan = _Plan(cfg, now, _merge(cfg, now, trust_codex, program, env))
        if plan.old == plan.new:
            return plan
        _say(out, f"{path} changed since the diff above; the diff against it now:")
        out.write(unified_diff(plan.old, plan.new, path))


def _check_program(program: str) -> None:
    """A hook command is a shell line: the program must be one plain word."""
    if not program or not all(
        (c.isascii() and c.isalnum()) or c in PROGRAM_CHARACTERS for c in program
    ):
        raise UsageError(
            f"--program {program!r} is not a plain path: give the path to hail,"
            f" made of letters, digits and {PROGRAM_CHARACTERS}"
        )


#: The harnesses whose hooks have the same events.
SHARED_EVENTS = ("claude", "codex")
NAMES: dict[Harness, str] = {
    "claude": "Claude Code",
    "codex": "Codex",
    "gemini": "Gemini CLI",
    "opencode": "opencode",
}


def summary(harnesses: list[Harness], program: str) -> list[str]:
    """The trailing lines after a run (not with --check): the hooks every handled file now has,
    one per event, the harness's name in the arguments shown as `claude|codex` (the two share their
    events; Gemini CLI's and opencode's are listed under their own names)."""
    shown = "|".join(h for h in harnesses if h in SHARED_EVENTS)
    lines: dict[str, str] = {}
    for harness in harnesses:
        for spec in hook_specs(harness):
            args = [shown if arg == harness and shown else arg for arg in spec.args]
            event = spec.event if harness in SHARED_EVENTS else f"{NAMES[harness]} {spec.event}"
            lines.setdefault(event, f"      {event}: {' '.join([program, *args])}")
    return list(lines.values())


def _next_step(cfg: ConfigFile, trust_codex: bool) -> str:
    if cfg.holds == "rule":
        return NEXT_STEP_RULE
    if cfg.harness == "codex" and trust_codex:
        return NEXT_STEP_TRUSTED
    return NEXT_STEP[cfg.harness]


def _say(out: TextIO, line: str) -> None:
    out.write(line + "\n")


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


def _install(plan: _Plan) -> None:
    """Back up a non-empty old file beside it, then write the new text atomically."""
    path = plan.cfg.path
    try:
        if plan.old:
            _write_backup(path.with_name(path.name + BACKUP_SUFFIX), plan.old)
        path.parent.mkdir(parents=True, exist_ok=True)  # Codex's rules/ may not exist yet
        write_config(path, plan.new)
    except OSError as e:
        raise StateError(
            f"cannot write {path}: {e.strerror or e}; fix its permissions, then rerun hail setup"
        ) from None


def _write_backup(backup: Path, text: str) -> None:
    """A fresh 0600 file renamed over the backup's name: a config may hold tokens, and a link at
    that name (to anything) is replaced, never written through."""
    _replace(backup, text, NEW_FILE_MODE)


def write_config(path: Path, text: str) -> None:
    """Write `.<name>.<pid>.tmp` beside the file, then rename it over the file.

    A new file is 0600; an existing one keeps its mode. A symlinked config (a dotfiles checkout) is
    written through to its target, so the link survives.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    _replace(target, text, mode)


def _replace(target: Path, text: str, mode: int) -> None:
    """A new file of `mode` beside `target`, renamed over it (a link at `target` included)."""
    tmp = target.parent / f".{target.name}.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            # The umask must not narrow an existing file's mode.
            os.fchmod(f.fileno(), mode)
            f.write(text)
        tmp.replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def doctor_hook_lines(env: Mapping[str, str]) -> list[CheckLine]:
    """`hail doctor`'s hook lines: (`ok` | `FIX` | `note`, text), one or two per handled file.

    Current ⇒ `ok`; missing, outdated or unreadable ⇒ `FIX` naming the fix; hail hooks Codex has
    not trusted yet ⇒ a `note`. Harnesses whose directory does not exist are not reported.
    """
    try:
        files = config_files(env)
    except StateError as e:
        return [("FIX", e.message)]
    lines: list[CheckLine] = []
    for cfg in files:
        if not cfg.installed:
            continue
        owned = managed.managed_path(cfg.harness, cfg.path, cfg.holds, env)
        if owned is not None:
            lines += _managed_lines(cfg, owned)
            continue
        try:
            text = _read(cfg.path)
            program = _program_in(cfg, env)
            current = _merge(cfg, text, False, program, env) == text
        except StateError as e:
            lines.append(("FIX", e.message))
            continue
        if not current:
            lines.append(("FIX", _outdated(cfg)))
            continue
        if cfg.holds == "rule":
            lines.append(("ok", f"Codex may run hail outside its sandbox (rule {cfg.path})"))
            continue
        if cfg.holds == "plugin":
            lines.append(("ok", f"opencode plugin current ({cfg.path})"))
            continue
        lines.append(("ok", f"{cfg.name} hooks current ({cfg.path})"))
        if cfg.harness == "codex":
            untrusted = codex_untrusted(text, cfg.trust_path, program)
            if untrusted:
                lines.append(("note", _untrusted_note(untrusted, cfg.path)))
        if cfg.harness == "gemini" and gemini_settings.hooks_disabled(text):
            lines.append(
                (
                    "FIX",
                    f"{cfg.path} turns every hook off (hooksConfig.enabled is false): hail's"
                    " hooks do not run; remove that setting",
                )
            )
    return lines


def installed_hook_programs(env: Mapping[str, str]) -> list[tuple[ConfigFile, str]]:
    """Each hook config holding hail's hooks, with the program they run (doctor runs it)."""
    found: list[tuple[ConfigFile, str]] = []
    for cfg in config_files(env):
        if cfg.installed and cfg.holds == "hooks":
            program = managed.hail_program(cfg.harness, cfg.path)
            if program is not None:
                found.append((cfg, program))
    return found


def _program_in(cfg: ConfigFile, env: Mapping[str, str]) -> str:
    """The hail the file's hooks run (Home Manager's activation step names its store path); for
    Codex's rule, the hail Codex's hooks run, else the one setup would name now."""
    if cfg.holds == "hooks":
        return managed.hail_program(cfg.harness, cfg.path) or DEFAULT_PROGRAM
    if cfg.holds == "plugin":
        try:
            text = _read(cfg.path)
        except StateError:
            text = ""
        return opencode_plugin.program_in(text) or hook_program(env, sys.argv[0])
    config = cfg.directory / "config.toml"
    for path in (config, config.with_name(managed.CODEX_HOOKS_JSON)):
        program = managed.hail_program("codex", path)
        if program is not None:
            return program
    return hook_program(env, sys.argv[0])


def _managed_lines(cfg: ConfigFile, owned: Path) -> list[CheckLine]:
    """Doctor's lines for a file Home Manager owns: checked, never pointed at hail setup."""
    if cfg.holds == "plugin":
        try:
            current = opencode_plugin.program_in(_read(owned)) is not None
        except StateError as e:
            return [("FIX", e.message)]
        if current:
            return [("ok", f"opencode plugin current ({owned}, from Home Manager)")]
        return [("FIX", f"hail's opencode plugin is outdated in {owned}: {managed.USE_THE_MODULE}")]
    if cfg.holds == "hooks":
        return managed.doctor_lines(cfg.name, cfg.harness, cfg.path, cfg.trust_path, owned)
    try:
        current = rule_paths_in(_read(owned)) is not None  # the store path is the module's
    except StateError as e:
        return [("FIX", e.message)]
    if current:
        return [("ok", f"Codex may run hail outside its sandbox (rule {owned}, from Home Manager)")]
    return [
        (
            "FIX",
            f"hail's Codex rule is missing or outdated in {owned}, which Home Manager owns: "
            + managed.USE_THE_MODULE,
        )
    ]


def _outdated(cfg: ConfigFile) -> str:
    if cfg.holds == "plugin":
        return f"hail's opencode plugin is missing or outdated in {cfg.path}: run hail setup"
    if cfg.holds == "rule":
        return (
            f"hail's Codex rule is missing or outdated in {cfg.path}: Codex runs hail in its"
            " sandbox, where it cannot send: run hail setup"
        )
    return f"{cfg.name} hooks missing or outdated in {cfg.path}: run hail setup"


def _untrusted_note(events: list[str], path: Path) -> str:
    names = " ".join(e for e in EVENTS if e in events)
    return (
        f"Codex has not trusted hail's {names} hook{'s' if len(events) > 1 else ''} in {path} yet;"
        " until then they do not run: run /hooks in Codex, or hail setup --trust-codex"
    )
