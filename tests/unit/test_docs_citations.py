"""The reference in docs/ is what code, tests and pages cite: every `docs/<page>.md "<Section>"`
citation names a page and a heading that exist, the pages' references to each other resolve, and
nothing cites the behavioural documents the repository never held."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: Where citations live; docs/ itself is checked by its own page-to-page references.
CITING = [ROOT / "src", ROOT / "tests", ROOT / "scripts", ROOT / "skills"]
CITING_FILES = [ROOT / "README.md", ROOT / "DESIGN.md"]

# A section name may continue on the next line of a comment or docstring; more sections of the same
# page may follow (`docs/commands.md "sent", "await" and "show"`).
_GAP = r"\s*(?:#:?\s*)?"
_NAME = r'"([^"\n]+)"'
CITATION = re.compile(rf"docs/([A-Za-z0-9_-]+\.md){_GAP}{_NAME}((?:(?:,|\s+and){_GAP}{_NAME})*)")
PAGE_REFERENCE = re.compile(rf"`([A-Za-z0-9_-]+\.md){_GAP}{_NAME}`")
MORE = re.compile(_NAME)
# Spelled apart so that this file does not cite them itself.
FORBIDDEN = ("\u00a7", "SP" + "EC", "REAL" + "-CLIENTS")
#: Numbered scenarios of that document: names and docstrings say what a test does instead.
SCENARIO_NUMBER = re.compile(r"[Ss]cenarios?[ _][0-9]")


def headings(page: Path) -> set[str]:
    """The headings of a markdown page, outside code blocks."""
    found: set[str] = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{1,6} (.+?)\s*$", line)):
            found.add(m.group(1))
    return found


def source_files() -> list[Path]:
    files = [*CITING_FILES]
    for top in CITING:
        files += [
            p
            for p in top.rglob("*")
            if p.is_file()
            and "__pycache__" not in p.parts
            and p.suffix in (".py", ".md", ".nix", "")
            and "data" not in p.relative_to(ROOT).parts
        ]
    return sorted(files)


def citations(text: str) -> list[tuple[str, str]]:
    out = []
    for m in CITATION.finditer(text):
        out.append((m.group(1), m.group(2)))
        out += [(m.group(1), extra) for extra in MORE.findall(m.group(3))]
    return out


def unresolved(pairs: list[tuple[str, str]], where: str) -> list[str]:
    bad = []
    for page, section in pairs:
        path = DOCS / page
        if not path.is_file():
            bad.append(f"{where}: docs/{page} does not exist")
        elif section not in headings(path):
            bad.append(f'{where}: docs/{page} has no section "{section}"')
    return bad


def test_the_citation_pattern_reads_wrapped_and_listed_sections() -> None:
    text = (
        '[docs/hooks.md\n    #: "Codex trust"] and (docs/commands.md "sent",\n"await" and "show")'
    )
    assert citations(text) == [
        ("hooks.md", "Codex trust"),
        ("commands.md", "sent"),
        ("commands.md", "await"),
        ("commands.md", "show"),
    ]


def test_code_and_tests_cite_the_reference() -> None:
    files = source_files()
    found = {f: citations(f.read_text(encoding="utf-8", errors="replace")) for f in files}
    assert sum(len(c) for c in found.values()) > 100, "the citations are found at all"
    bad = [line for f, c in found.items() for line in unresolved(c, str(f.relative_to(ROOT)))]
    assert not bad, "\n".join(bad)


def test_the_reference_pages_resolve_their_references_to_each_other() -> None:
    bad = []
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        pairs = [(m.group(1), m.group(2)) for m in PAGE_REFERENCE.finditer(text)]
        bad += unresolved(pairs, f"docs/{page.name}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("word", FORBIDDEN)
def test_nothing_cites_documents_the_repository_does_not_hold(word: str) -> None:
    pages = sorted(DOCS.glob("*.md"))
    hits = [
        f"{f.relative_to(ROOT)}:{n}: {line.strip()}"
        for f in [*source_files(), *pages]
        if f != Path(__file__).resolve()
        for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if re.search(rf"(?<![A-Za-z_]){re.escape(word)}(?![A-Za-z_])", line)
    ]
    assert not hits, "\n".join(hits)


def test_no_test_is_named_after_a_numbered_scenario() -> None:
    hits = [
        f"{f.relative_to(ROOT)}:{n}: {line.strip()}"
        for f in source_files()
        if f != Path(__file__).resolve()
        for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if SCENARIO_NUMBER.search(line)
    ]
    assert not hits, "\n".join(hits)
