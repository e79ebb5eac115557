"""No function in src/ is over 50 lines: a long function is several jobs, and the next change to it
would make it longer."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "hail"
LIMIT = 50


def long_functions() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LIMIT:
                    found.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name} ({length})")
    return found


def test_the_check_sees_functions() -> None:
    count = sum(
        isinstance(n, ast.FunctionDef)
        for p in SRC.rglob("*.py")
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
    )
    assert count > 500


def test_no_function_in_src_is_over_fifty_lines() -> None:
    assert long_functions() == []
