"""The state and config roots are computed without platformdirs (it would cost every hook call
its imports: DESIGN.md "XDG paths"); they must agree with its Unix rule on every OS."""

from __future__ import annotations

from pathlib import Path

import platformdirs.unix
import pytest

from hail.store.store import config_root, state_root


@pytest.mark.parametrize("xdg", [None, "", "   ", "/tmp/some/state"])
def test_state_root_agrees_with_platformdirs_xdg(
    xdg: str | None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    if xdg is None:
        monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_STATE_HOME", xdg)
    import os

    expected = platformdirs.unix.Unix(appname="hail").user_state_dir
    assert str(state_root(os.environ)) == expected


def test_state_root_is_never_the_macos_library_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("HOME", "/Users/someone")
    assert state_root({"HOME": "/Users/someone"}) == "/Users/someone/.local/state/hail"


@pytest.mark.parametrize("xdg", [None, "", "   ", "/tmp/some/config"])
def test_config_root_agrees_with_platformdirs_xdg(
    xdg: str | None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os

    monkeypatch.setenv("HOME", str(tmp_path))
    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    assert config_root(os.environ) == platformdirs.unix.Unix(appname="hail").user_config_dir
