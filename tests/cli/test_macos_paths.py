"""Paths as macOS shapes them (docs/guarantees.md, its macOS paragraph): `/var` links to
`/private/var`, so one directory has two names, and a home may be deep, where a Unix socket's path
is capped at 104 bytes."""

from __future__ import annotations

from pathlib import Path

from tests.support.entry import run_hail
from tests.support.world import clean_env


def test_a_home_named_through_a_link_still_ends_the_seat_search(tmp_path: Path) -> None:
    """HOME=/var/… while the working directory reads /private/var/…: the search for a seat marker
    stops at the home all the same, and never takes a marker above it."""
    real = tmp_path / "private" / "var"
    (real / "home" / "proj").mkdir(parents=True)
    (real / ".hail-seat").write_text("outer\n")  # above the home: never a seat
    (tmp_path / "var").symlink_to(real)
    env = {**clean_env(tmp_path), "HOME": str(tmp_path / "var" / "home")}
    r = run_hail("whoami", cwd=tmp_path / "var" / "home" / "proj", env=env)
    assert r.returncode == 3 and "outer" not in r.stdout, (r.stdout, r.stderr)
    (real / "home" / "proj" / ".hail-seat").write_text("proj\n")
    r = run_hail("whoami", cwd=real / "home" / "proj", env=env)
    assert r.returncode == 0 and "seat: proj" in r.stdout, r.stderr


def test_a_ninety_character_home_holds_the_state_and_the_mail(tmp_path: Path) -> None:
    """Everything hail makes lives in the state under the home (no socket or FIFO of its own): a
    deep home holds a send and its delivery."""
    home = tmp_path / "h"
    home = home / ("d" * (90 - len(str(home)) - 1))
    assert len(str(home)) == 90
    for seat in ("boss", "worker"):
        (home / seat).mkdir(parents=True)
        (home / seat / ".hail-seat").write_text(seat + "\n")
    env = {k: v for k, v in clean_env(tmp_path).items() if k != "XDG_STATE_HOME"}
    env.update(HOME=str(home), HAIL_SOCKET="/nonexistent/socket")
    assert run_hail("whoami", cwd=home / "worker", env=env).returncode == 0
    sent = run_hail("worker", "ask", "--no-wake", "from deep", cwd=home / "boss", env=env)
    assert sent.returncode == 5, sent.stderr
    out = run_hail("deliver", "--format", "claude", cwd=home / "worker", env=env).stdout
    assert "from deep" in out
    assert (home / ".local" / "state" / "hail" / "seats" / "worker" / "cur").is_dir()
