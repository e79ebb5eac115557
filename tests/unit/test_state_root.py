"""The state and config roots are computed without platformdirs (it would cost every hook call
its imports: DESIGN.md "XDG paths"); they must agree with its Unix rule on every OS."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs.unix
import pytest

from hail.store.store import config_root, state_root

ROOTS = {
    "XDG_STATE_HOME": (state_root, "user_state_dir"),
    "XDG_CONFIG_HOME": (config_root, "user_config_dir"),
}


@pytest.mark.parametrize("variable", sorted(ROOTS))
@pytest.mark.parametrize("xdg", [None, "", "   ", "/tmp/some/dir"])
def test_each_root_agrees_with_platformdirs_xdg(
    variable: str, xdg: str | None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    if xdg is None:
        monkeypatch.delenv(variable, raising=False)
    else:
        monkeypatch.setenv(variable, xdg)
    resolve, attribute = ROOTS[variable]
    expected = getattr(platformdirs.unix.Unix(appname="hail"), attribute)
    assert resolve(os.environ) == expected


def test_state_root_is_never_the_macos_library_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("HOME", "/Users/someone")
    assert state_root({"HOME": "/Users/someone"}) == "/Users/someone/.local/state/hail"
