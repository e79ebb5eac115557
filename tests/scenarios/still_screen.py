"""A stand-in agent that shows a captured screen and then does nothing: `still_screen.py FILE
[DIR]` prints FILE's bytes (a capture with its attributes) and sleeps until it is killed. Started
under an agent's name (`script_command`), it gives the send a screen to judge and a process to route
to.

With DIR it also runs hooks as a harness does, as its own children: on SIGUSR2 it starts the
command `DIR/spawn.json` names (`argv`, `env`, `cwd`, `stdin`: a file), writes the child's pid to
`DIR/pid`, and its exit status to `DIR/status-<pid>` once it ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time


def _spawn(spawn_dir: str) -> None:
    with open(os.path.join(spawn_dir, "spawn.json")) as f:
        spec = json.load(f)
    with open(spec["stdin"], "rb") as stdin:
        child = subprocess.Popen(
            spec["argv"], env=spec["env"], cwd=spec["cwd"], stdin=stdin, stderr=subprocess.DEVNULL
        )
    with open(os.path.join(spawn_dir, "pid.tmp"), "w") as f:
        f.write(str(child.pid))
    os.rename(os.path.join(spawn_dir, "pid.tmp"), os.path.join(spawn_dir, "pid"))

    def reap() -> None:
        status = child.wait()
        done = os.path.join(spawn_dir, f"status-{child.pid}")
        with open(f"{done}.tmp", "w") as f:
            f.write(str(status))
        os.rename(f"{done}.tmp", done)  # whole, as the test reads it

    threading.Thread(target=reap, daemon=True).start()


def main(path: str, spawn_dir: str | None = None) -> None:
    if spawn_dir is not None:
        signal.signal(signal.SIGUSR2, lambda *_: _spawn(spawn_dir))
    with open(path, "rb") as f:
        os.write(1, f.read())
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main(*sys.argv[1:3])
