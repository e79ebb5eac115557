"""`hail setup`: install hail's hooks into Claude Code's and Codex's configs [docs/hooks.md
"Merge rule"], and hail's rule into Codex's rules directory, which lets `hail` run outside Codex's
sandbox [docs/hooks.md "Codex rule"].

The merges are pure (`install/`, one module per config format); the rule is a file of hail's own, written whole: the template
`data/hail.rules` filled with the paths of the hail the hooks run. This module finds the files
(Codex's hooks.json too, where hail's Codex hooks stay when it already holds them), shows the diff,
asks, backs up and writes. Every config is read
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

from hail.errors import StateError, UsageError
from hail.install import managed
from hail.install.claude_json import merge_claude
from hail.install.codex_hooks_json import (
    CODEX_HOOKS_JSON,
    HooksElsewhere,
    codex_json_holds_hail,
    merge_codex_json,
)
from hail.install.codex_toml import codex_toml_holds_hail, codex_untrusted, merge_codex
from hail.install.hook_table import DEFAULT_PROGRAM, HOOKED_EVENTS, Harness, hook_specs
from hail.install.merge_rule import MergeError, error_text
from hail.install.program import hook_program, rule_paths

if TYPE_CHECKING:
    from hail.output import CheckLine

#: What to do after a write, per harness [docs/commands.md "setup"].
NEXT_STEP: dict[Harness, str] = {
    "claude": "a new session picks it up",
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
    #: "hooks" for a config hail merges into, "rule" for the rule file hail owns whole.
    holds: str = "hooks"

    @property
    def what(self) -> str:
        return "hail hooks" if self.holds == "hooks" else "hail's rule"

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


@dataclass(frozen=True)
class _Seen:
    """A config as setup read it: its bytes, and which file it was when (None: there was none)."""

    data: bytes
    identity: tuple[int, int, int, int] | None


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    # Another program's save either renames a new file in (a new inode) or rewrites this one (a
    # new mtime, and mostly a new size).
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _look(path: Path) -> _Seen:
    """The file's bytes and identity, both from one open file."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return _Seen(b"", None)
    with os.fdopen(fd, "rb") as f:
        identity = _identity(os.fstat(f.fileno()))
        return _Seen(f.read(), identity)


def _read(path: Path) -> str:
    """The config's text; a missing file counts as empty."""
    return _read_seen(path)[0]


def _read_seen(path: Path) -> tuple[str, _Seen]:
    """The config's text, and the file as it was read (for the compare before a write)."""
    try:
        seen = _look(path)
    except OSError as e:
        raise StateError(
            f"cannot read {path}: {e.strerror or e}; fix it, then rerun hail setup"
        ) from None
    data = seen.data
    try:
        return data.decode("utf-8"), seen
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
    elsewhere: HooksElsewhere | None = None,
) -> str:
    if cfg.holds == "rule":
        # hail's own file: its whole text is hail's, letting out the hail the hooks run.
        return codex_rules(rule_paths(program, env))
    try:
        if cfg.harness == "claude":
            return merge_claude(text, program=program)
        if cfg.path.name == CODEX_HOOKS_JSON:
            return merge_codex_json(text, program)
        return merge_codex(text, cfg.trust_path, trust_codex, program, elsewhere)
    except MergeError as e:
        raise StateError(error_text(cfg.harness, str(cfg.path), e)) from None


def _hooks_json(cfg: ConfigFile) -> ConfigFile:
    """Codex's hooks.json beside its config.toml, where Codex reads hooks too."""
    return ConfigFile(
        cfg.name,
        cfg.harness,
        cfg.directory,
        cfg.path.with_name(CODEX_HOOKS_JSON),
        str(Path(cfg.trust_path).with_name(CODEX_HOOKS_JSON)),
    )


def _hail_hooks_json(
    cfg: ConfigFile, program: str | None, env: Mapping[str, str]
) -> tuple[ConfigFile, str] | None:
    """Codex's hooks.json and its text when it holds any of hail's hooks: they belong there then,
    not in config.toml, where Codex would run each a second time [docs/hooks.md "Codex"].

    `program` is the one setup writes; None (doctor) takes the one the file's hooks name."""
    if cfg.harness != "codex" or cfg.holds != "hooks":
        return None
    beside = _hooks_json(cfg)
    if program is None:
        program = _program_in(beside, env)
    text = _read(beside.path)
    try:
        holds = codex_json_holds_hail(text, program)
    except MergeError as e:
        raise StateError(error_text(beside.harness, str(beside.path), e)) from None
    return (beside, text) if holds else None


@dataclass(frozen=True)
class _Plan:
    cfg: ConfigFile
    old: str
    new: str
    #: For config.toml when hail's hooks are in hooks.json: that file, as the merge saw it.
    elsewhere: HooksElsewhere | None = None


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
        elsewhere = None
        found = _hail_hooks_json(cfg, program, env)
        if found is not None:
            beside, text = found
            json_plan = _Plan(beside, text, _merge(beside, text, trust_codex, program, env))
            plans.append(json_plan)
            elsewhere = HooksElsewhere(json_plan.new, beside.trust_path)
        old = _read(cfg.path)
        plans.append(
            _Plan(cfg, old, _merge(cfg, old, trust_codex, program, env, elsewhere), elsewhere)
        )

    drift = False
    untrusted: list[str] = []  # hail's Codex hooks still untrusted once this run is done
    hooks_json: str | None = None  # hooks.json as this run leaves it, when hail's hooks are there
    for plan in plans:
        if isinstance(plan, ConfigFile):
            if plan.holds == "hooks":  # one line per missing harness, not per file
                _say(out, f"skip  {plan.name}: {plan.directory} not installed")
            continue
        if plan.elsewhere is not None and hooks_json != plan.elsewhere.text:
            # hooks.json was left as it was (or changed meanwhile): trust what it holds now.
            elsewhere = HooksElsewhere(hooks_json or "", plan.elsewhere.trust_path)
            plan = _Plan(
                plan.cfg,
                plan.old,
                _merge(plan.cfg, plan.old, trust_codex, program, env, elsewhere),
                elsewhere,
            )
        cfg, path = plan.cfg, str(plan.cfg.path)
        is_json = cfg.path.name == CODEX_HOOKS_JSON
        codex_config = cfg.harness == "codex" and cfg.holds == "hooks" and not is_json
        if codex_config:
            untrusted = codex_untrusted(plan.new, cfg.trust_path, program, plan.elsewhere)
        if is_json:
            hooks_json = plan.new if plan.old == plan.new or check else plan.old
        if plan.old == plan.new:
            _say(out, _current_line(plan))
            continue
        drift = True
        out.write(unified_diff(plan.old, plan.new, path))
        if check:
            _say(out, f"drift {cfg.name}: run hail setup")
            continue
        settled = _settle(plan, yes, out, stdin, trust_codex, program, env)  # written unless None
        if settled is None:
            _say(out, f"left {cfg.name}: unchanged")
            if codex_config:
                untrusted = codex_untrusted(plan.old, cfg.trust_path, program, plan.elsewhere)
            continue
        if is_json:
            hooks_json = settled.new
        if settled.old == settled.new:  # someone else made it current meanwhile
            _say(out, _current_line(settled))
            continue
        where = "" if plan.elsewhere is None else f" (hail's hooks are in {_hooks_json(cfg).path})"
        _say(out, f"done  {cfg.name}: updated {path}{where}; {_next_step(cfg, trust_codex)}")
    if not check:
        harnesses = sorted({c.harness for c in files if c.installed}) or ["claude", "codex"]
        for line in summary(harnesses, program):
            _say(out, line)
        if untrusted:
            _say(out, CODEX_TRUST_HINT)
    return 1 if check and drift else 0


def _current_line(plan: _Plan) -> str:
    cfg = plan.cfg
    if plan.elsewhere is not None:
        return (
            f"ok    {cfg.name}: hail's hooks are in {_hooks_json(cfg).path}, so none go in"
            f" {cfg.path}"
        )
    return f"ok    {cfg.name}: {cfg.what} current in {cfg.path}"


def _settle(
    plan: _Plan,
    yes: bool,
    out: TextIO,
    stdin: TextIO,
    trust_codex: bool,
    program: str,
    env: Mapping[str, str],
) -> _Plan | None:
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
        if not yes and not _confirm(f"update {path}?", out, stdin):
            return None
        now, seen = _read_seen(cfg.path)
        if now == plan.old and _install(plan, seen):
            return plan
        if yes:
            raise StateError(
                f"{path} changed while hail setup ran; nothing was written to it: rerun hail setup"
            )
        now = _read(cfg.path)
        plan = _Plan(
            cfg, now, _merge(cfg, now, trust_codex, program, env, plan.elsewhere), plan.elsewhere
        )
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


def summary(harnesses: list[Harness], program: str) -> list[str]:
    """The trailing lines after a run (not with --check): the hooks every handled file now has,
    one per event, the harness's name in the arguments shown as `claude|codex`."""
    shown = "|".join(harnesses)
    lines: dict[str, str] = {}
    for harness in harnesses:
        for spec in hook_specs(harness):
            args = [shown if arg == harness else arg for arg in spec.args]
            lines.setdefault(spec.event, f"      {spec.event}: {' '.join([program, *args])}")
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


def _install(plan: _Plan, seen: _Seen) -> bool:
    """Back up a non-empty old file beside it, then write the new text atomically, unless the
    file is no longer the one `seen` (then nothing is written but the backup: False)."""
    path = plan.cfg.path
    try:
        if plan.old:
            _write_backup(path.with_name(path.name + BACKUP_SUFFIX), plan.old)
        path.parent.mkdir(parents=True, exist_ok=True)  # Codex's rules/ may not exist yet
        return write_config(path, plan.new, seen)
    except OSError as e:
        raise StateError(
            f"cannot write {path}: {e.strerror or e}; fix its permissions, then rerun hail setup"
        ) from None


def _write_backup(backup: Path, text: str) -> None:
    """A fresh 0600 file renamed over the backup's name: a config may hold tokens, and a link at
    that name (to anything) is replaced, never written through."""
    _replace(backup, text, NEW_FILE_MODE)


def write_config(path: Path, text: str, seen: _Seen) -> bool:
    """Write `.<name>.<pid>.tmp` beside the file, then rename it over the file, unless the file is
    no longer the one `seen` (False, nothing written).

    A new file is 0600; an existing one keeps its mode. A symlinked config (a dotfiles checkout) is
    written through to its target, so the link survives.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    return _replace(target, text, mode, seen)


def _replace(target: Path, text: str, mode: int, seen: _Seen | None = None) -> bool:
    """A new file of `mode` beside `target`, renamed over it (a link at `target` included).

    With `seen` (a config, not a backup), the new file is synced to disk, and the target is
    compared with `seen` after that and once more just before the rename, so that another
    program's save is replaced only if it lands between that last stat and the rename; when it
    differs the new file is removed (False). The directory is synced after the rename.
    """
    tmp = target.parent / f".{target.name}.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            # The umask must not narrow an existing file's mode.
            os.fchmod(f.fileno(), mode)
            f.write(text)
            if seen is not None:
                f.flush()
                os.fsync(f.fileno())
        if seen is not None and (_look(target) != seen or _identity_now(target) != seen.identity):
            tmp.unlink()
            return False
        tmp.replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if seen is not None:
        _sync_directory(target.parent)
    return True


def _identity_now(path: Path) -> tuple[int, int, int, int] | None:
    try:
        return _identity(os.stat(path))
    except FileNotFoundError:
        return None


def _sync_directory(directory: Path) -> None:
    """Make the rename durable; a filesystem that cannot sync a directory is left as it is."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


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
            found = _hail_hooks_json(cfg, None, env)
            if found is not None:
                lines += _hooks_json_lines(cfg, *found, env)
                continue
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
        lines.append(("ok", f"{cfg.name} hooks current ({cfg.path})"))
        if cfg.harness == "codex":
            untrusted = codex_untrusted(text, cfg.trust_path, program)
            if untrusted:
                lines.append(("note", _untrusted_note(untrusted, cfg.path)))
    return lines


def _hooks_json_lines(
    cfg: ConfigFile, beside: ConfigFile, json_text: str, env: Mapping[str, str]
) -> list[CheckLine]:
    """Doctor's lines for Codex when hail's hooks are in its hooks.json: current there, none left
    in config.toml (Codex would run each twice), and their trust, which config.toml records."""
    program = _program_in(beside, env)
    elsewhere = HooksElsewhere(json_text, beside.trust_path)
    text = _read(cfg.path)
    lines: list[CheckLine] = []
    if _merge(beside, json_text, False, program, env) == json_text:
        lines.append(("ok", f"{cfg.name} hooks current ({beside.path})"))
    else:
        lines.append(("FIX", _outdated(beside)))
    if _merge(cfg, text, False, program, env, elsewhere) != text:
        twice = codex_toml_holds_hail(text, program)
        lines.append(
            (
                "FIX",
                f"hail's hooks are in both {beside.path} and {cfg.path}, so Codex runs each twice:"
                f" run hail setup (it removes them from {cfg.path})"
                if twice
                else f"{cfg.name} hooks are in {beside.path}, but {cfg.path} is not current for"
                " them ([features] hooks = true): run hail setup",
            )
        )
    untrusted = codex_untrusted(text, cfg.trust_path, program, elsewhere)
    if untrusted:
        lines.append(("note", _untrusted_note(untrusted, beside.path)))
    return lines


def installed_hook_programs(env: Mapping[str, str]) -> list[tuple[ConfigFile, str]]:
    """Each hook config holding hail's hooks, with the program they run (doctor runs it); for
    Codex, its hooks.json first (where hail's hooks go when that file has them)."""
    found: list[tuple[ConfigFile, str]] = []
    for cfg in config_files(env):
        if cfg.installed and cfg.holds == "hooks":
            places = [cfg.path]
            if cfg.harness == "codex":
                places.insert(0, _hooks_json(cfg).path)
            program = next(
                (p for p in (managed.hail_program(cfg.harness, at) for at in places) if p), None
            )
            if program is not None:
                found.append((cfg, program))
    return found


def _program_in(cfg: ConfigFile, env: Mapping[str, str]) -> str:
    """The hail the file's hooks run (Home Manager's activation step names its store path); for
    Codex's rule, the hail Codex's hooks run, else the one setup would name now."""
    if cfg.holds == "hooks":
        return managed.hail_program(cfg.harness, cfg.path) or DEFAULT_PROGRAM
    config = cfg.directory / "config.toml"
    for path in (config, config.with_name(CODEX_HOOKS_JSON)):
        program = managed.hail_program("codex", path)
        if program is not None:
            return program
    return hook_program(env, sys.argv[0])


def _managed_lines(cfg: ConfigFile, owned: Path) -> list[CheckLine]:
    """Doctor's lines for a file Home Manager owns: checked, never pointed at hail setup."""
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
    if cfg.holds == "rule":
        return (
            f"hail's Codex rule is missing or outdated in {cfg.path}: Codex runs hail in its"
            " sandbox, where it cannot send: run hail setup"
        )
    return f"{cfg.name} hooks missing or outdated in {cfg.path}: run hail setup"


def _untrusted_note(events: list[str], path: Path) -> str:
    names = " ".join(e for e in HOOKED_EVENTS if e in events)
    return (
        f"Codex has not trusted hail's {names} hook{'s' if len(events) > 1 else ''} in {path} yet;"
        " until then they do not run: run /hooks in Codex, or hail setup --trust-codex"
    )
