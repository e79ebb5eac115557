"""Texts that no other test reads cannot drift from the registry and the bindings: the package
descriptions (pyproject.toml, flake.nix, nix/package.nix) agree and name no list of harnesses, no
help line of the verb table names a partial list of them, docs/watch.md's "Panes and screens"
names none partly, and docs/watch.md's key tables list exactly the keys `hail watch` binds, its forms' and lists' too."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from hail import argv
from hail.harnesses import registry
from tests.support.docs import page, sections

REPO = Path(__file__).resolve().parents[2]
TITLES = [h.title for h in registry.every()]


def partial_list(text: str) -> list[str]:
    """The harnesses a text names when it names two or more but not all: a stale list."""
    named = [t for t in TITLES if re.search(rf"(?<!\w){re.escape(t)}(?!\w)", text)]
    return named if 2 <= len(named) < len(TITLES) else []


def descriptions() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["description"]
    flake = re.search(r'^\s*description = "(.+)";', (REPO / "flake.nix").read_text(), re.M)
    package = re.search(r'^\s*description = "(.+)";', (REPO / "nix/package.nix").read_text(), re.M)
    assert flake is not None and package is not None
    return {"pyproject.toml": project, "flake.nix": flake.group(1), "nix/package.nix": package[1]}


def test_the_package_descriptions_agree_and_list_no_harnesses() -> None:
    found = descriptions()
    assert found["flake.nix"].lower().endswith(found["pyproject.toml"].lower())
    assert found["nix/package.nix"] == found["pyproject.toml"]
    for where, text in found.items():
        assert not any(t in text for t in TITLES), f"{where} names harnesses: {text}"


@pytest.mark.parametrize("verb", list(argv.VERB))
def test_no_help_line_names_a_partial_list_of_harnesses(verb: str) -> None:
    for usage, line in argv.VERB[verb].help:
        assert partial_list(f"{usage} {line}") == [], (verb, line)


def test_the_watch_page_names_no_partial_list_of_captured_harnesses() -> None:
    text = sections(page("watch.md"))["Panes and screens"]
    assert partial_list(text) == []


def documented_keys() -> set[str]:
    """The keys of docs/watch.md's "Keys" table: each backticked word of its first column."""
    rows = [r for r in sections(page("watch.md"))["Keys"].splitlines() if r.startswith("| `")]
    return {k for r in rows for k in re.findall(r"`([^`]+)`", r.split(" | ")[0])}


def bound_keys() -> set[str]:
    from hail.watch import keys

    moves = keys._move_keys()  # the tables' own moves, as the help page names them
    forms = [b for _, bindings in keys.SCREENS for b in bindings]  # each form's and list's
    return set(moves) | {k for b in (*keys.BINDINGS, *forms) for k in keys._keys(b)}


def test_the_watch_page_lists_exactly_the_keys_watch_binds() -> None:
    assert documented_keys() == bound_keys()


# --- the seat rows' JSON, as the pages give its keys ----------------------------------------------


def test_the_watch_page_gives_exactly_the_seat_rows_keys() -> None:
    """docs/watch.md's `--json` table: a seat row's keys, its agents' and a gauge's, as
    `seat_rows.row_json` writes them (and `hail seats --json`, which writes the same rows)."""
    from hail.gauge.agents import AgentFigures
    from hail.gauge.base import Figure, Gauge
    from hail.seat_rows import Box, PaneRow, build, row_json

    table = sections(page("watch.md"))["--once and --json"]
    line = next(r for r in table.splitlines() if r.startswith("| `seats` |"))
    rows_span, gauge_span = re.findall(r"`(\[\{.+?\}\])`|`(\{\"model\".+?\})`", line)
    inner = re.search(r'"agents": \[\{(.+?)\}\]', rows_span[0])
    assert inner is not None, line
    agent_keys = set(re.findall(r'"(\w+)"', inner.group(1)))
    documented = set(re.findall(r'"(\w+)"', rows_span[0].replace(inner.group(0), '"agents"')))
    gauge_keys = set(re.findall(r'"(\w+)"', gauge_span[1]))
    figure = Figure(1, "transcript")
    figures = AgentFigures("task", Gauge(figure, figure, figure, figure))
    (row,) = build([Box("a")], [PaneRow("%1", "a", "claude", figures=figures)], 0.0)
    shown = row_json(row)
    agents = shown["agents"]
    assert isinstance(agents, list)
    assert documented == set(shown), documented ^ set(shown)
    assert agent_keys == set(agents[0]), agent_keys ^ set(agents[0])
    assert gauge_keys == set(agents[0]["gauge"]), gauge_keys ^ set(agents[0]["gauge"])


def test_the_commands_page_names_every_reason_an_agent_has_no_gauge() -> None:
    from hail.gauge import agents

    reasons = {v for k, v in vars(agents).items() if k.isupper() and isinstance(v, str)}
    text = sections(page("commands.md"))["seats"]
    assert reasons and all(f"`{r}`" in text for r in reasons), reasons


@pytest.mark.parametrize("name", registry.NAMES)
def test_a_harness_says_its_hooks_record_its_route_as_the_presence_registry_does(name: str) -> None:
    """The hook path asks the harness whether its hooks keep its route's record, so a route with
    no record costs no import of the presence registry; the two must agree."""
    from hail.store.presence.registry import RECORDED_BY_HOOKS

    harness = registry.get(name)
    assert harness.hooks_record == (harness.route in RECORDED_BY_HOOKS)
