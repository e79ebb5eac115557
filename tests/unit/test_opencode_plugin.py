"""hail's opencode plugin as setup renders it: each slot filled once, and the file still a module
node parses (as `.mjs`: node 20's `--check` passes a broken ESM `.js` file unparsed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hail.install.formats import opencode_plugin

NODE = shutil.which("node")

#: Program paths that hold the template's own markers.
MARKED = [
    "/opt/@HAIL_HOOKS@/bin/hail",
    '/opt/"@HAIL_PROGRAM@"/hail',
    "/a b/@HAIL_HOOKS@@HAIL_HOOKS@",
]


def node_parses(text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    copy = tmp_path / "hail.mjs"
    copy.write_text(text)
    return subprocess.run([NODE, "--check", str(copy)], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("program", MARKED)
def test_a_program_path_holding_a_marker_is_written_as_it_is(program: str) -> None:
    text = opencode_plugin.render(program)
    assert opencode_plugin.program_in(text) == program, "setup --check sees it current"
    assert text.count(opencode_plugin.hooks_literal()) == 1, "the hook table filled in once"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("program", ["hail", *MARKED])
def test_the_rendered_plugin_is_a_module_node_parses(program: str, tmp_path: Path) -> None:
    checked = node_parses(opencode_plugin.render(program), tmp_path)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_parses_a_mjs_copy_so_a_broken_module_fails(tmp_path: Path) -> None:
    checked = node_parses(
        opencode_plugin.render("hail").replace("const HOOKS =", "const ="), tmp_path
    )
    assert checked.returncode != 0, "the check can fail"
