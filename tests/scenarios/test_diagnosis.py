"""`hail doctor` and `hail watch --json` name the same troubles, from one set of rules
(src/hail/diagnosis.py; docs/watch.md "What it shows", docs/commands.md "doctor"): here, agents of
each of the four harnesses that never run a hook, on a scratch tmux server."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hail import policy
from tests.scenarios.conftest import Scene, script_command
from tests.support.procs import wait_until

HARNESSES = ("claude", "codex", "gemini", "opencode")


def _doctor_silent(scene: Scene) -> set[str]:
    """The seats doctor names for an agent that ran no hook since it started."""
    out = scene.run("doctor", cwd=scene.root).out
    return set(re.findall(r"\(seat (\S+)\) started \S+ ago and no hail hook has run in", out))


def _watch_silent(scene: Scene) -> set[str]:
    run = scene.run("watch", "--json", cwd=scene.root)
    assert run.rc == 0, run.err
    return {t["seat"] for t in json.loads(run.out)["trouble"] if t["kind"] == "hooks"}


def test_doctor_and_watch_name_the_same_silent_agents_of_every_harness(
    scene: Scene, tmp_path: Path
) -> None:
    scene.env["HAIL_AGENT_COMMANDS"] = ",".join(HARNESSES)
    quiet = tmp_path / "quiet.py"
    quiet.write_text("import time\ntime.sleep(600)\n")  # an agent that never runs a hook
    for harness in HARNESSES:
        seat = f"seat-{harness}"
        scene.make_seat(seat)
        agent = script_command(scene.root, harness, quiet)
        scene.new_pane(scene.seat_dir(seat), str(agent))
    # Each is judged once it is past the grace an agent has to run its first hook.
    grace = policy.DOCTOR_AGENT_GRACE_SECONDS + 20
    expected = {f"seat-{h}" for h in HARNESSES}
    assert wait_until(lambda: _doctor_silent(scene) == expected, grace, 0.5), scene.run(
        "doctor", cwd=scene.root
    ).out
    assert _watch_silent(scene) == expected
    # A hook run in one seat clears it in both.
    scene.as_pane(scene.sender, "deliver", "--format", "claude", cwd=scene.seat_dir("seat-gemini"))
    assert _doctor_silent(scene) == _watch_silent(scene) == expected - {"seat-gemini"}
