"""What `hail setup` and `hail doctor` ask of a harness file, whichever format answers
[docs/hooks.md "Merge rule", docs/commands.md "doctor"].

A harness names each of its config files' formats (`harnesses/base.ConfigPlace`), and
`formats/registry.get` resolves the name to one module of this package, holding its `FORMAT`. A
`ConfigFile` carries its format, so setup and doctor ask it, never which file it is. setup writes
what a format's merge makes and doctor compares the file with it, so the two verbs never disagree.

Formats come in two families, with the answers each family shares: `HooksFormat`, hail's hooks
merged among a person's own config (Claude Code's and Gemini CLI's settings.json, Codex's
config.toml and hooks.json), and `OwnFile`, a file that is hail's whole and written whole (Codex's
rule, opencode's plugin).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hail.errors import StateError
from hail.harnesses import registry
from hail.install import managed
from hail.install.hook_table import DEFAULT_PROGRAM, HarnessName
from hail.install.merge_rule import MergeError, error_text
from hail.install.write import read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.install.codex_hooks_json import HooksElsewhere
    from hail.install.managed import Found, Parse
    from hail.output import CheckLine


@dataclass(frozen=True)
class Wanted:
    """What setup wants a file to hold: hail's part running `program`, with the harness's trust in
    hail's hooks recorded too when `trust` (`setup --trust-codex`), and none of hail's hooks when
    `elsewhere` keeps them in another file."""

    program: str
    env: Mapping[str, str]
    trust: bool = False
    elsewhere: HooksElsewhere | None = None


@dataclass(frozen=True)
class ConfigFile:
    """One harness file hail manages, with the format that edits and checks it."""

    #: The harness's name in sentences ("Claude Code"): setup's and doctor's lines say it.
    name: str
    harness: HarnessName
    #: The harness's config folder: the harness is handled only when it exists.
    directory: Path
    path: Path
    #: The file's path as the harness spells it (Codex keys its hooks' trust by it).
    trust_path: str
    format: ConfigFormat

    @property
    def what(self) -> str:
        return self.format.manages

    @property
    def installed(self) -> bool:
        """A harness is handled only when its config directory exists."""
        return self.directory.is_dir()


class ConfigFormat:
    """The questions; a format answers `merge`, `program_in`, its texts and its Home Manager
    lines, and refines the rest where it differs."""

    #: Its name: its module's, as a harness's `ConfigPlace` names it.
    name = ""
    #: What of hail's it holds, as setup's lines say it.
    manages = "hail hooks"

    def merge(self, cfg: ConfigFile, text: str, wanted: Wanted) -> str:
        """The file's text with hail's part (its hooks, or the whole file) as `wanted`; MergeError
        for a text hail cannot merge into."""
        raise NotImplementedError

    def program_in(self, cfg: ConfigFile, env: Mapping[str, str]) -> str:
        """The hail the file names (Home Manager's activation step names its store path), else the
        one setup names by default."""
        raise NotImplementedError

    def hook_program(self, cfg: ConfigFile) -> str | None:
        """The program hail's hooks run where the harness reads them for this file, for doctor to
        start; None when it holds no hooks."""
        return None

    def hooks_elsewhere(
        self, cfg: ConfigFile, program: str | None, env: Mapping[str, str]
    ) -> tuple[ConfigFile, str] | None:
        """Another file holding hail's hooks in this one's place, and its text: they stay there
        then. `program` is the one setup writes; None (doctor) takes the one the file names."""
        return None

    def ok_line(self, cfg: ConfigFile, where: str) -> str:
        """doctor's line for a current file, `where` naming it."""
        return f"{cfg.name} hooks current ({where})"

    def outdated(self, cfg: ConfigFile) -> str:
        """doctor's fix for a file whose hail part is missing or outdated."""
        raise NotImplementedError

    def current(self, cfg: ConfigFile, text: str, program: str) -> list[CheckLine]:
        """doctor's lines for a current file: its `ok`, and what else its text tells."""
        return [("ok", self.ok_line(cfg, str(cfg.path)))]

    def managed_by(self, cfg: ConfigFile, env: Mapping[str, str]) -> Path | None:
        """The link into the Nix store that makes this file Home Manager's, or None when hail
        setup may edit it."""
        return cfg.path if managed.store_link(cfg.path, env) else None

    def managed_lines(self, cfg: ConfigFile, owned: Path) -> list[CheckLine]:
        """doctor's lines for a file Home Manager owns (`owned`): checked, never pointed at hail
        setup."""
        raise NotImplementedError

    def trust_hint(
        self, cfg: ConfigFile, text: str, program: str, elsewhere: HooksElsewhere | None
    ) -> str:
        """setup's closing line when hail's hooks in `text` still wait for the harness's trust
        before they run; "" when none do."""
        return ""

    def next_step(self, cfg: ConfigFile, trust: bool) -> str:
        """What to do after setup wrote the file [docs/commands.md "setup"]."""
        return registry.get(cfg.harness).next_step

    # --- what every format shares --------------------------------------------------------------

    def merged(self, cfg: ConfigFile, text: str, wanted: Wanted) -> str:
        """`merge`; a text hail cannot merge into is a StateError naming the file and the fix."""
        try:
            return self.merge(cfg, text, wanted)
        except MergeError as e:
            raise StateError(error_text(cfg.harness, str(cfg.path), e)) from None

    def check(self, cfg: ConfigFile, env: Mapping[str, str]) -> list[CheckLine]:
        """`hail doctor`'s lines for the file: (`ok` | `FIX` | `note`, text).

        Current ⇒ `ok`, and the notes its text calls for; missing, outdated or unreadable ⇒ `FIX`
        naming the fix; a file Home Manager owns ⇒ its own lines.
        """
        owned = self.managed_by(cfg, env)
        if owned is not None:
            return self.managed_lines(cfg, owned)
        try:
            text = read(cfg.path)
            program = self.program_in(cfg, env)
            current = self.merged(cfg, text, Wanted(program, env)) == text
        except StateError as e:
            return [("FIX", e.message)]
        if not current:
            return [("FIX", self.outdated(cfg))]
        return self.current(cfg, text, program)


class HooksFormat(ConfigFormat):
    """hail's hooks merged among a person's own config: told by their shape, and read the same
    way where Home Manager's activation wrote them."""

    def parse(self, text: str) -> object:
        """The file's top level (ValueError for a text that is none): JSON here."""
        return json.loads(text) if text.strip() else {}

    def hook_files(self, cfg: ConfigFile) -> list[tuple[Path, Parse]]:
        """The files the harness reads hooks from for this config, each with how it is parsed."""
        return [(cfg.path, self.parse)]

    def program_in(self, cfg: ConfigFile, env: Mapping[str, str]) -> str:
        return self.hook_program(cfg) or DEFAULT_PROGRAM

    def hook_program(self, cfg: ConfigFile) -> str | None:
        return managed.hail_program(cfg.harness, cfg.path, self.parse) or None

    def outdated(self, cfg: ConfigFile) -> str:
        return f"{cfg.name} hooks missing or outdated in {cfg.path}: run hail setup"

    def managed_lines(self, cfg: ConfigFile, owned: Path) -> list[CheckLine]:
        """hail's hooks present by any store path in the files the harness reads, once."""
        found: list[Found] = []
        tops: dict[Path, dict[str, object]] = {}
        try:
            for source, parse in self.hook_files(cfg):
                tops[source] = managed.load(source, parse)
                found += managed.find_hail(cfg.harness, tops[source].get("hooks"), source)
        except (OSError, ValueError) as e:
            return [("FIX", f"cannot read {source} ({e}); {managed.USE_THE_MODULE}")]
        missing = managed.missing_line(cfg.name, cfg.harness, found, owned)
        if missing is not None:
            return [("FIX", missing)]
        lines: list[CheckLine] = [("ok", self.ok_line(cfg, f"{owned}, from Home Manager"))]
        return (
            lines + managed.twice_notes(found, owned) + self.managed_notes(cfg, found, tops, owned)
        )

    def managed_notes(
        self,
        cfg: ConfigFile,
        found: list[Found],
        tops: Mapping[Path, Mapping[str, object]],
        owned: Path,
    ) -> list[CheckLine]:
        """What else doctor says of hail's hooks `found` in Home Manager's files (`tops`, as read)."""
        return []


class OwnFile(ConfigFormat):
    """A file that is hail's whole, written whole: its merge ignores the text it replaces."""

    def is_current(self, text: str) -> bool:
        """Whether `text` is hail's current file for some hail (Home Manager's names its store
        path)."""
        raise NotImplementedError

    def managed_outdated(self, owned: Path) -> str:
        """doctor's fix when Home Manager's copy (`owned`) is not current."""
        raise NotImplementedError

    def managed_lines(self, cfg: ConfigFile, owned: Path) -> list[CheckLine]:
        try:
            current = self.is_current(read(owned))
        except StateError as e:
            return [("FIX", e.message)]
        if current:
            return [("ok", self.ok_line(cfg, f"{owned}, from Home Manager"))]
        return [("FIX", self.managed_outdated(owned))]
