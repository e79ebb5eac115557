"""DESIGN.md's layers hold in the code: every module is placed in one layer and named in the code
map, no module imports one from a higher layer, no modules import each other in a cycle, and click and libtmux each
stay in the one module that owns them, tomlkit in its two (Codex's config and hail's own) (textual and rich in the full-screen view's: `watch/app`, `watch/page`, `watch/forms`,
`watch/keys`).

Every import counts, wherever it stands: the lazy ones inside functions (the hot paths are full of
them) and the ones read only by the type checker.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "hail"

#: Third-party packages and the modules allowed to import each.
_VIEW = ("watch/app", "watch/page", "watch/forms", "watch/keys")
OWNERS = {
    "click": ("cli",),
    "libtmux": ("transport/tmux",),
    "tomlkit": ("install/codex_toml", "config"),
    "textual": _VIEW,
    "rich": _VIEW,
}


def modules() -> dict[str, Path]:
    """`store/fs`-style names of every module; `__init__` is hail's own (the sub-packages' are empty)."""
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "__init__.py" and path.parent != SRC:
            assert not path.read_text().strip(), f"{path} is expected to be empty"
            continue
        out[path.relative_to(SRC).with_suffix("").as_posix()] = path
    return out


def design_layers() -> list[tuple[str, list[str]]]:
    """The numbered list under DESIGN.md's "Layers" heading: (layer name, its `module` patterns)."""
    text = (REPO / "DESIGN.md").read_text()
    section = text.split("\n## Layers", 1)[1].split("\n## ", 1)[0]
    items = re.split(r"\n(?=\d+\. )", section)
    layers = []
    for item in items:
        head = re.match(r"\d+\. \*\*(.+?)\*\*", item)
        if head:
            layers.append((head.group(1), re.findall(r"`([a-z_/*]+)`", item)))
    return layers


def layer_of(names: dict[str, Path]) -> dict[str, int]:
    """Each module's layer index; a module named outright wins over a `folder/*` pattern."""
    rank: dict[str, int] = {}
    explicit: dict[str, int] = {}
    for index, (_, patterns) in enumerate(design_layers()):
        for pattern in patterns:
            if pattern.endswith("/*"):
                for name in names:
                    if name.startswith(pattern[:-1]):
                        assert name not in rank, f"{name} matches two layers' patterns"
                        rank[name] = index
            else:
                assert pattern in names, f"DESIGN.md places `{pattern}`, which is no module"
                assert pattern not in explicit, f"DESIGN.md places `{pattern}` twice"
                explicit[pattern] = index
    return rank | explicit


def imported(path: Path, names: dict[str, Path]) -> tuple[set[str], set[str]]:
    """The hail modules a file imports (by module name) and the top-level packages of the rest."""
    hail: set[str] = set()
    other: set[str] = set()

    def target(module: str, attr: str | None) -> str:
        base = "/".join(module.split(".")[1:])
        if attr is not None:
            candidate = f"{base}/{attr}" if base else attr
            if candidate in names:
                return candidate
        return base or "__init__"

    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "hail":
                    hail.add(target(alias.name, None))
                else:
                    other.add(alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: a relative import"
            module = node.module or ""
            if module.split(".")[0] == "hail":
                hail |= {target(module, alias.name) for alias in node.names}
            else:
                other.add(module.split(".")[0])
    return hail, other


def graph() -> dict[str, set[str]]:
    names = modules()
    return {name: imported(path, names)[0] - {name} for name, path in names.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_design_places_every_module_in_one_layer() -> None:
    names = modules()
    unplaced = sorted(set(names) - set(layer_of(names)))
    assert not unplaced, f"DESIGN.md's layers do not place: {unplaced}"


def test_the_code_map_names_every_module() -> None:
    text = (REPO / "DESIGN.md").read_text()
    code_map = text.split("\n## Code map", 1)[1].split("\n## ", 1)[0]
    missing = [
        name
        for name, path in modules().items()
        if f"`src/hail/{name}.py`" not in code_map and f"`{path.name}`" not in code_map
    ]
    assert not missing, f"DESIGN.md's code map does not name: {missing}"


def test_no_module_imports_a_higher_layer() -> None:
    names = modules()
    rank = layer_of(names)
    layers = [name for name, _ in design_layers()]
    upward = [
        f"{m} ({layers[rank[m]]}) imports {d} ({layers[rank[d]]})"
        for m, deps in sorted(graph().items())
        for d in sorted(deps)
        if rank[d] > rank[m]
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycle() -> None:
    assert cycles(graph()) == []


def test_click_libtmux_and_tomlkit_each_stay_in_their_module() -> None:
    names = modules()
    strays = [
        f"{name} imports {package}"
        for name, path in names.items()
        for package in imported(path, names)[1]
        if package in OWNERS and name not in OWNERS[package]
    ]
    assert not strays, "\n".join(strays)


def test_only_the_transport_runs_the_tmux_binary() -> None:
    """A command line spelled `["tmux", …]` anywhere else would bypass the one adapter."""
    strays = [
        f"{name}:{node.lineno}"
        for name, path in modules().items()
        if name != "transport/tmux"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.List | ast.Tuple)
        and node.elts
        and isinstance(node.elts[0], ast.Constant)
        and node.elts[0].value == "tmux"
    ]
    assert not strays, strays


def test_the_checks_see_what_they_look_for() -> None:
    """The parsing above finds real edges and real cycles, so an empty result means something."""
    edges = graph()
    assert "errors" in edges["argv"] and "transport/tmux" in edges["transport/wake"]
    assert "commands/send" in edges["verbs"]  # a lazy import inside a function
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert len(design_layers()) >= 5
