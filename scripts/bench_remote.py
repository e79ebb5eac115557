#!/usr/bin/env python3
"""A send to a seat on another machine over localhost ssh [docs/seats.md "Other machines"]: the
wall time of a warm send (its host's shared connection open) and of a cold one (the connection
closed first, so the send pays ssh's handshake), median of --runs (5), beside a bare
`python -c pass` of the same interpreter.

A private sshd (tests/support/sshd.py) on 127.0.0.1 stands in for the far machine: its own HOME and
state root, the seat `worker` known there, no tmux server (so the far send files and wakes nobody:
exit 5). Goal: a warm send within 0.5 s.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.support.sshd import Sshd, have_sshd  # noqa: E402

from hail.remote import ssh  # noqa: E402

WARM_GOAL = 0.5


def _time(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - start, proc.returncode


def run(hail: str, runs: int) -> int:
    if not have_sshd():
        print("bench: --remote needs OpenSSH's sshd and ssh", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="hb", dir="/tmp"))
    sshd = Sshd()
    try:
        far = {
            "HOME": str(root / "far"),
            "XDG_STATE_HOME": str(root / "far" / "state"),
            "PATH": f"{Path(hail).parent}:/usr/bin:/bin",
            "HAIL_HOST": "far",
            "HAIL_SOCKET": str(root / "no-tmux"),
            "LANG": "C.UTF-8",
        }
        (root / "far" / "state" / "hail" / "seats" / "worker").mkdir(parents=True, mode=0o700)
        sshd.machine("far", far)
        config = sshd.client_config("near", ["far"])
        sshd.start()
        seat = root / "boss"
        seat.mkdir()
        (seat / ".hail-seat").write_text("boss\n")
        env = {
            "HOME": str(root / "near"),
            "XDG_STATE_HOME": str(root / "near" / "state"),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HAIL_HOST": "near",
            "HAIL_SSH": f"ssh -F {config}",
            "HAIL_SOCKET": str(root / "no-tmux"),
            "LANG": "C.UTF-8",
        }
        sshd.controls.add(str(root / "near" / "state" / "hail" / "ssh"))  # its master ends with it
        send = [hail, "worker@far", "ask", "--no-wake", "bench: are you there?"]
        py = Path(hail).read_text().split("\n", 1)[0].removeprefix("#!").strip()
        bare, warm, cold = [], [], []
        _time(send, env, seat)  # the first ever: keys, the far state, and the near state
        # The control socket lies in the near state, which the first send made.
        close = [*ssh.base_command(env, "far"), "-O", "exit", "--", "far"]
        for _ in range(runs):
            bare.append(_time([py, "-c", "pass"], env, seat)[0])
            t, code = _time(send, env, seat)
            assert code == 5, f"a warm send exited {code}"
            warm.append(t)
            subprocess.run(close, env=env, capture_output=True, check=False)
            t, code = _time(send, env, seat)
            assert code == 5, f"a cold send exited {code}"
            cold.append(t)
        b, w, c = (statistics.median(x) for x in (bare, warm, cold))
        print(f"a send to worker@far over localhost ssh, median of {runs}:")
        print(f"  python -c pass  {b * 1000:7.1f} ms")
        print(
            f"  warm send       {w * 1000:7.1f} ms  {w / b:5.1f}x  (goal <= {WARM_GOAL * 1000:.0f} ms)"
        )
        print(f"  cold send       {c * 1000:7.1f} ms  {c / b:5.1f}x  (ssh's handshake included)")
        return 0 if w <= WARM_GOAL else 1
    finally:
        sshd.stop()
        import shutil

        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    hail_bin = str(Path(sys.executable).parent / "hail")
    raise SystemExit(run(sys.argv[1] if len(sys.argv) > 1 else hail_bin, 5))
