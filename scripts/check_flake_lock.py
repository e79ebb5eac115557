#!/usr/bin/env python3
"""Check the structure of flake.lock without Nix or the network.

Nix only re-checks a lock against the inputs it fetches, so a hand-edited or
merged lock can be malformed in ways nothing notices until someone builds.
This checks what can be checked offline: lock version 7, a root node whose
inputs all exist, every GitHub input locked to a 40-hex rev with an SRI sha256
narHash and the same owner/repo as its original, and nixpkgs following
nixos-unstable. Prints one line per problem and exits 1 if there is any.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

LOCK_VERSION = 7
NIXPKGS_REF = "nixos-unstable"
REV = re.compile(r"[0-9a-f]{40}")
# base64 of a 32-byte digest: 43 characters and one "=" of padding.
NAR_HASH = re.compile(r"sha256-[A-Za-z0-9+/]{43}=")


def _object(value: Any, where: str, problems: list[str]) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    problems.append(f"{where}: expected an object, found {type(value).__name__}")
    return {}


def _check_github(name: str, locked: dict[str, Any], original: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    rev = locked.get("rev")
    if not isinstance(rev, str) or not REV.fullmatch(rev):
        problems.append(f"nodes.{name}.locked.rev: expected 40 lowercase hex digits, found {rev!r}")
    nar_hash = locked.get("narHash")
    if not isinstance(nar_hash, str) or not NAR_HASH.fullmatch(nar_hash):
        problems.append(
            f"nodes.{name}.locked.narHash: expected an SRI hash 'sha256-…=', found {nar_hash!r}"
        )
    last_modified = locked.get("lastModified")
    if not isinstance(last_modified, int) or isinstance(last_modified, bool) or last_modified <= 0:
        problems.append(
            f"nodes.{name}.locked.lastModified: expected a positive integer, "
            f"found {last_modified!r}"
        )
    if original.get("type") != "github":
        problems.append(
            f"nodes.{name}.original.type: locked is github, original is {original.get('type')!r}"
        )
    for key in ("owner", "repo"):
        mine, theirs = locked.get(key), original.get(key)
        if not isinstance(mine, str) or not mine:
            problems.append(f"nodes.{name}.locked.{key}: missing")
        # GitHub owner and repository names are case-insensitive.
        elif not isinstance(theirs, str) or mine.lower() != theirs.lower():
            problems.append(
                f"nodes.{name}: locked {key} {mine!r} differs from original {key} {theirs!r}"
            )
    if "ref" in locked and locked.get("ref") != original.get("ref"):
        problems.append(f"nodes.{name}: locked ref differs from original ref")
    return problems


def check_lock(lock: Any) -> list[str]:
    """Return the problems found in a parsed flake.lock (empty when it is sound)."""
    problems: list[str] = []
    top = _object(lock, "flake.lock", problems)
    if not top:
        return problems or ["flake.lock: empty"]

    version = top.get("version")
    if version != LOCK_VERSION:
        problems.append(f"version: expected {LOCK_VERSION}, found {version!r}")

    nodes = _object(top.get("nodes"), "nodes", problems)
    root_name = top.get("root")
    if not isinstance(root_name, str) or root_name not in nodes:
        problems.append(f"root: {root_name!r} is not a node")
        return problems
    root = _object(nodes[root_name], f"nodes.{root_name}", problems)
    root_inputs = _object(root.get("inputs", {}), f"nodes.{root_name}.inputs", problems)

    for name, raw in nodes.items():
        if name == root_name:
            continue
        node = _object(raw, f"nodes.{name}", problems)
        inputs = _object(node.get("inputs", {}), f"nodes.{name}.inputs", problems)
        for input_name, target in inputs.items():
            # A string names a node; a list is a `follows` path, resolved by Nix.
            if isinstance(target, str) and target not in nodes:
                problems.append(f"nodes.{name}.inputs.{input_name}: no node {target!r}")
        locked = _object(node.get("locked"), f"nodes.{name}.locked", problems)
        original = _object(node.get("original"), f"nodes.{name}.original", problems)
        if locked.get("type") == "github":
            problems.extend(_check_github(name, locked, original))
        elif "narHash" not in locked:
            problems.append(f"nodes.{name}.locked: no narHash")

    for input_name, target in root_inputs.items():
        if isinstance(target, str) and target not in nodes:
            problems.append(f"nodes.{root_name}.inputs.{input_name}: no node {target!r}")

    nixpkgs_node = root_inputs.get("nixpkgs")
    if not isinstance(nixpkgs_node, str) or nixpkgs_node not in nodes:
        problems.append("root has no nixpkgs input")
    else:
        nixpkgs = _object(nodes[nixpkgs_node], f"nodes.{nixpkgs_node}", problems)
        original = _object(nixpkgs.get("original", {}), f"nodes.{nixpkgs_node}.original", problems)
        wanted = {"type": "github", "owner": "nixos", "repo": "nixpkgs", "ref": NIXPKGS_REF}
        found = {key: str(original.get(key, "")) for key in wanted}
        found["owner"] = found["owner"].lower()
        if found != wanted:
            problems.append(
                f"nodes.{nixpkgs_node}.original: expected github:NixOS/nixpkgs/{NIXPKGS_REF}, "
                f"found {json.dumps(original, sort_keys=True)}"
            )
    return problems


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else Path("flake.lock")
    try:
        lock = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        print(f"{path}: {error}", file=sys.stderr)
        return 1
    problems = check_lock(lock)
    for problem in problems:
        print(f"{path}: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"{path}: ok (version {LOCK_VERSION}, nixpkgs follows {NIXPKGS_REF})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
