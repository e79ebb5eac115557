"""The version is written once, in `src/hail/__init__.py`; everything else that names it reads it
there and agrees: the package metadata (hatch), the Nix package (`nix/version.nix`), CHANGELOG.md."""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from hail import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_the_version_is_a_semantic_version() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_pyproject_holds_no_version_of_its_own_and_reads_hails() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["hatch"]["version"]["path"] == "src/hail/__init__.py"


def test_the_installed_metadata_carries_hails_version() -> None:
    # An editable install keeps the metadata of its install: after a version change, run
    # scripts/bootstrap again.
    assert importlib.metadata.version("hail") == __version__


@pytest.mark.skipif(shutil.which("nix-instantiate") is None, reason="nix is not installed")
def test_nix_reads_hails_version() -> None:
    out = subprocess.run(
        ["nix-instantiate", "--eval", "--strict", str(ROOT / "nix" / "version.nix")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.strip() == f'"{__version__}"'


def test_nix_package_takes_its_version_from_version_nix() -> None:
    package = (ROOT / "nix" / "package.nix").read_text()
    assert "version = import ./version.nix;" in package
    assert not re.search(r"\d+\.\d+\.\d+", package), "no version written in the package"


def test_the_changelog_starts_with_unreleased_then_the_current_version() -> None:
    headings = re.findall(r"^## \[([^\]]+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings[:2] == ["Unreleased", __version__]
