"""The macOS-shaped runs (`just macos-shaped`, tests/macos/hail_macos_shape.py): whether this run is
one, the skip of a test that cannot hold there, and the check that fails a test whose hail reached
/proc or a Linux-only call."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

#: This interpreter, and every one the tests start, is shaped like macOS's.
SHAPED = "hail_macos_shape" in sys.modules
#: The log of reaches by hail processes that were not given the test's own (their environment
#: was rebuilt, as the real clients do).
SHARED_LOG = Path(sys.prefix) / "macos-reaches.log"


SHAPE_DIR = Path(__file__).parents[1] / "macos"


def run_shaped(tmp_path: Path, code: str) -> tuple[str, str]:
    """Run `code` in a fresh interpreter shaped as `.venv-macos` shapes each one: (its stdout, the
    reaches it recorded); it must exit 0."""
    log = tmp_path / "reaches.log"
    proc = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(SHAPE_DIR)!r})\n"
         f"import hail_macos_shape\n{code}"],
        env={"HAIL_MACOS_REACHES": str(log), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, log.read_text() if log.exists() else ""


def not_on_macos(why: str) -> pytest.MarkDecorator:
    """Skip in a macOS-shaped run (and on a Mac), saying why; docs/real-clients.md lists them."""
    return pytest.mark.skipif(SHAPED or sys.platform == "darwin", reason=f"macOS: {why}")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _since(path: Path, offset: int) -> str:
    try:
        with path.open("rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


@pytest.fixture(autouse=True)
def macos_reaches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """In a shaped run: the test fails if any hail process reached /proc or a removed call."""
    if not SHAPED:
        yield
        return
    own = tmp_path / "macos-reaches.log"
    monkeypatch.setenv("HAIL_MACOS_REACHES", str(own))
    offset = _size(SHARED_LOG)
    yield
    found = _since(own, 0) + _since(SHARED_LOG, offset)
    if found:
        pytest.fail(
            "hail reached /proc or a Linux-only call in a macOS-shaped run"
            f" (pid, what, where, argv):\n{found}",
            pytrace=False,
        )
