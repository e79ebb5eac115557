"""The harness registry holds together: one module per name, the hook table's harnesses are the
registry's, the verb table's waiter formats are the harnesses with a `listen` hook, every screen
shape has a reader, and each harness's route is a route module."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hail.harnesses import base, registry
from hail.install.hook_table import TABLE_PATH, hook_specs
from hail.transport import screen
from hail.transport.routes import registry as routes

HARNESSES = Path(registry.__file__).parent


def test_every_name_is_a_module_holding_its_own_record() -> None:
    modules = {p.stem for p in HARNESSES.glob("*.py")} - {"__init__", "base", "registry"}
    assert modules == set(registry.NAMES)
    assert [h.name for h in registry.every()] == list(registry.NAMES)


def test_the_hook_table_has_the_registry_s_harnesses() -> None:
    with open(TABLE_PATH, encoding="utf-8") as f:
        table = json.load(f)
    assert [key for key in table if key != "about"] == list(registry.NAMES)


def test_the_waiter_formats_are_the_harnesses_whose_hooks_run_it() -> None:
    listening = [n for n in registry.NAMES if any(s.args[0] == "listen" for s in hook_specs(n))]
    assert list(registry.LISTENING) == listening
    assert all(routes.get(registry.get(n).route).name == "waiter" for n in listening)


def test_every_screen_shape_has_a_reader_and_every_route_a_name() -> None:
    for harness in registry.every():
        assert harness.screen.shape in screen.READERS, harness
        assert harness.route in routes.NAMES, harness
        assert harness.output in (base.HOOK_JSON, base.TOP_CONTEXT, base.PLAIN), harness


def test_an_unknown_harness_is_no_record() -> None:
    with pytest.raises(KeyError):
        registry.get("base")  # a module of the package, but no harness


def test_get_imports_only_the_harness_asked_for() -> None:
    code = (
        "import sys; from hail.harnesses import registry; registry.get('gemini');"
        "print(sorted(m for m in sys.modules if m.startswith('hail.harnesses.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == str(
        ["hail.harnesses.base", "hail.harnesses.gemini", "hail.harnesses.registry"]
    )
