"""read, type and keys where no tmux server answers: the error points at hail doctor
[docs/commands.md "read, type, keys"]."""

from __future__ import annotations

from pathlib import Path

from tests.support.world import World


def test_pane_verbs_without_a_tmux_server_point_at_doctor(world: World, tmp_path: Path) -> None:
    # No HAIL_SOCKET, no $TMUX, and tmux's default socket in an empty private folder.
    env = {"HAIL_SOCKET": "", "TMUX_TMPDIR": str(tmp_path / "no-server")}
    for args in (["read", "worker"], ["type", "worker", "x"], ["keys", "worker", "Enter"]):
        r = world.run(*args, env=env)
        assert r.returncode == 1, args
        assert r.stderr == (
            "error: worker: no tmux server answers; hail doctor says why tmux is unreachable\n"
        ), r.stderr
