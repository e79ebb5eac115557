"""hail's Home Manager module evaluated inside the real Home Manager (`tests/nix/home-manager/
eval.nix`), for the module tests (`tests/nix`) and the real-client test of the module's files.

Home Manager and nixpkgs' lib come from HAIL_HM_SOURCE and HAIL_HM_NIXPKGS when set (scripts/nix-check
sets them), else from the offline snapshots in shared/vendor beside the clone (beside the main checkout
for a git worktree; HAIL_VENDOR names another directory), unpacked once per test run.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
EVAL = REPO / "tests" / "nix" / "home-manager" / "eval.nix"
STAND_INS = REPO / "tests" / "nix" / "home-manager" / "nixpkgs" / "nixos"


@dataclass(frozen=True)
class Sources:
    home_manager: str
    nixpkgs: str


class EvaluationError(Exception):
    def __init__(self, stderr: str) -> None:
        super().__init__(stderr)
        self.stderr = stderr


def vendor() -> Path | None:
    """The directory holding both snapshots, or None."""
    named = os.environ.get("HAIL_VENDOR")
    candidates = [Path(named)] if named else [REPO.parent / "shared" / "vendor"]
    if not named:
        common = subprocess.run(
            ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if common:  # a worktree: beside the main checkout
            candidates.append(Path(common).parent.parent / "shared" / "vendor")
    for candidate in candidates:
        if any(candidate.glob("home-manager-*.tar.gz")) and any(
            candidate.glob("nixpkgs-lib-*.tar.gz")
        ):
            return candidate
    return None


def available() -> bool:
    """Whether `sources` can give anything, without unpacking the snapshots."""
    given = bool(os.environ.get("HAIL_HM_SOURCE") and os.environ.get("HAIL_HM_NIXPKGS"))
    return shutil.which("nix-instantiate") is not None and (given or vendor() is not None)


@cache
def sources() -> Sources | None:
    """Home Manager's source and a nixpkgs directory (lib/ and nixos/modules/misc/), or None."""
    if shutil.which("nix-instantiate") is None:
        return None
    home_manager = os.environ.get("HAIL_HM_SOURCE", "")
    nixpkgs = os.environ.get("HAIL_HM_NIXPKGS", "")
    if home_manager and nixpkgs:
        return Sources(home_manager, nixpkgs)
    snapshots = vendor()
    if snapshots is None:
        return None
    hm_tar = sorted(snapshots.glob("home-manager-*.tar.gz"))
    lib_tar = sorted(snapshots.glob("nixpkgs-lib-*.tar.gz"))
    # Kept for the test run: evaluations read from it until the interpreter exits.
    unpacked = Path(tempfile.mkdtemp(prefix="hail-hm-"))
    atexit.register(shutil.rmtree, unpacked, ignore_errors=True)
    for tar in (hm_tar[-1], lib_tar[-1]):
        with tarfile.open(tar) as archive:
            archive.extractall(unpacked, filter="data")
    root = unpacked / "nixpkgs"
    root.mkdir()
    (root / "lib").symlink_to(unpacked / "nixpkgs-lib" / "lib")
    shutil.copytree(STAND_INS, root / "nixos")
    return Sources(str(unpacked / "home-manager"), str(root))


def evaluate(
    config: str, package: str, home: str = "/home/alice", at: Sources | None = None
) -> dict[str, Any]:
    """What Home Manager would install for the module `{ <config> }` (see eval.nix)."""
    found = at or sources()
    if found is None:
        raise RuntimeError("no Home Manager sources: set HAIL_VENDOR or HAIL_HM_SOURCE")
    argv = [
        "nix-instantiate",
        "--eval",
        "--strict",
        "--json",
        "--read-write-mode",  # the stand-in package set writes generated files into the store
        str(EVAL),
        "--arg",
        "nixpkgs",
        found.nixpkgs,
        "--arg",
        "homeManager",
        found.home_manager,
        "--arg",
        "configuration",
        "{ " + config + " }",
        "--argstr",
        "packagePath",
        package,
        "--argstr",
        "homeDirectory",
        home,
    ]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    if out.returncode != 0:
        raise EvaluationError(out.stderr)
    result: dict[str, Any] = json.loads(out.stdout)
    return result
