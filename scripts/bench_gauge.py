#!/usr/bin/env python3
"""The context gauge's cost at scale [docs/performance.md "The context gauge"]: reading the
gauges of 30 agents whose files are 50 MB each, against reading none.

In a temp directory: 10 Claude Code transcripts, 10 Codex rollouts and 10 Gemini CLI session
files of 50 MB each, in the formats the pinned clients write (tests/support/gauge_files.py). Each
case is a whole process of the interpreter that runs hail, as `hail seats` or a watch refresh would
be: import the readers, load a config.toml holding two prices, and read every listed gauge.

Cases, interleaved in shuffled rounds, median of --runs (20):
  python -c pass   the bare interpreter;
  none, no config  the readers imported, no config.toml read (no tomlkit), no gauge read;
  none             the readers imported and the config loaded, no gauge read;
  30 near          every file's newest call within its last kilobytes (a turn just ended);
  30 far           no usage within the last MiB of any file (tool output after the newest
                   call): each read stops at its bound, the worst case.
Then in-process, the same reads timed alone: per agent and per refresh of 30.
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.support import gauge_files as files  # noqa: E402

from hail import policy  # noqa: E402
from hail.config import load  # noqa: E402
from hail.gauge.base import Where  # noqa: E402
from hail.gauge.choose import reader  # noqa: E402

AGENTS_PER_CLIENT = 10
FILE_BYTES = 50 * 1024 * 1024
RUNS = 20
#: The model each client's hooks name (Claude Code's at SessionStart, Codex's on every payload).
MODELS = {"claude": "claude-opus-5-5", "codex": "gpt-5.5", "gemini": ""}
CONFIG = """[gauge.prices."claude-opus-5-5"]
input = 5.0
output = 25.0
cache_read = 0.5
cache_write = 6.25

[gauge.prices."gpt-5.5"]
input = 1.25
output = 10.0
cache_read = 0.125
"""
#: The child process: read the gauge of every `<harness> <path>` line of its argument's file.
CHILD = """
import os
import sys
from hail.config import Config, load
from hail.gauge.base import Where
from hail.gauge.choose import reader
config = load(os.environ) if sys.argv[2:] != ["no-config"] else Config()
for line in open(sys.argv[1]):
    harness, model, path = line.split(" ", 2)
    reader(harness).gauge(Where(path.strip(), model.strip("-")), config)
"""


def history(client: str) -> tuple[str, Callable[[int], str]]:
    """A session's opening and its filler (tool results, prompts) for `client`'s format."""
    if client == "claude":
        return files.claude_call("msg_0", (3000, 20000, 500, 40)), files.claude_filler
    if client == "codex":
        return files.codex_turn(), files.codex_filler
    return files.gemini_header(), files.gemini_filler


def newest(client: str, n: int) -> str:
    """The newest call's lines, distinct for file `n`."""
    usage = (3000 + n, 20000 + n, 500, 40 + n)
    if client == "claude":
        return files.claude_call(f"msg_{n}", usage) + files.claude_filler(200)
    if client == "codex":
        return files.codex_turn() + files.codex_record(usage) + files.codex_count(usage, usage)
    return files.gemini_reply(f"g{n}", usage) + files.gemini_set(lastUpdated="t")


def write_file(path: Path, client: str, n: int) -> None:
    """50 MB of a session's history, then its newest call."""
    opening, filler = history(client)
    block = "".join(filler(3000 + 97 * i) for i in range(64)).encode()
    tail = newest(client, n).encode()
    with path.open("wb") as f:
        f.write(opening.encode())
        while f.tell() + len(block) + len(tail) < FILE_BYTES:
            f.write(block)
        f.write(tail)


def build(root: Path) -> list[tuple[str, Path]]:
    agents = []
    for client in ("claude", "codex", "gemini"):
        first = root / f"{client}-0.jsonl"
        write_file(first, client, 0)
        for n in range(AGENTS_PER_CLIENT):
            path = root / f"{client}-{n}.jsonl"
            if n:
                shutil.copyfile(first, path)
                with path.open("r+b") as f:  # each its own newest call
                    f.seek(-len(newest(client, 0).encode()), os.SEEK_END)
                    f.truncate()
                    f.write(newest(client, n).encode())
            agents.append((client, path))
    return agents


def push_far(agents: list[tuple[str, Path]]) -> None:
    """Past each newest call, more than the bound of output with no usage in it."""
    for client, path in agents:
        _, filler = history(client)
        line = filler(60000).encode()
        with path.open("ab") as f:
            for _ in range(policy.GAUGE_READ_MAX // len(line) + 2):
                f.write(line)


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(cases: dict[str, list[str]], env: dict[str, str], runs: int) -> dict[str, list[float]]:
    walls: dict[str, list[float]] = {name: [] for name in cases}
    cpus: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        order = list(cases)
        random.shuffle(order)
        for name in order:
            wall, cpu = timed(cases[name], env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    return {name: [statistics.median(walls[name]), statistics.median(cpus[name])] for name in cases}


def where(client: str, path: Path) -> Where:
    """Where the integration looks: the file and the model its hooks named."""
    return Where(str(path), MODELS[client])


def in_process(agents: list[tuple[str, Path]], env: dict[str, str], rounds: int = 50) -> str:
    config = load(env)
    per_client = []
    for client in ("claude", "codex", "gemini"):
        mine = [p for c, p in agents if c == client]
        times, read = [], 0
        for _ in range(rounds):
            start = time.perf_counter()
            for path in mine:
                read = reader(client).gauge(where(client, path), config).bytes_read
            times.append((time.perf_counter() - start) / len(mine))
        per_client.append(f"{client} {statistics.median(times) * 1e6:.0f} µs ({read} bytes)")
    start = time.perf_counter()
    for _ in range(rounds):
        for client, path in agents:
            reader(client).gauge(where(client, path), config)
    refresh = (time.perf_counter() - start) / rounds
    return f"per agent: {', '.join(per_client)}; 30 agents: {refresh * 1e3:.2f} ms"


def run(python: str, runs: int) -> int:
    root = Path(tempfile.mkdtemp(prefix="hail-gauge-"))
    try:
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(root),
            "XDG_CONFIG_HOME": str(root / "config"),
            "PYTHONPATH": str(ROOT / "src"),
            "LANG": "C.UTF-8",
        }
        (root / "config" / "hail").mkdir(parents=True)
        (root / "config" / "hail" / "config.toml").write_text(CONFIG)
        started = time.perf_counter()
        agents = build(root)
        print(
            f"built {len(agents)} files of {FILE_BYTES >> 20} MB in {time.perf_counter() - started:.0f} s"
        )
        none, listed = root / "none.txt", root / "agents.txt"
        none.write_text("")
        listed.write_text("".join(f"{c} {MODELS[c] or '-'} {p}\n" for c, p in agents))
        child = [python, "-c", CHILD]
        cases = {
            "python -c pass": [python, "-c", "pass"],
            "none, no config": [*child, str(none), "no-config"],
            "none": [*child, str(none)],
        }
        near = measure({**cases, "30 near": [*child, str(listed)]}, env, runs)
        near_in = in_process(agents, env)
        push_far(agents)
        far = measure({**cases, "30 far": [*child, str(listed)]}, env, runs)
        far_in = in_process(agents, env)
        print(f"\n{'case':<16}{'wall ms':>9}{'CPU ms':>9}{'×none':>8}{'×python':>9}")
        for label, table in (("near", near), ("far", far)):
            base, zero = table["python -c pass"], table["none"]
            for name, (wall, cpu) in table.items():
                print(
                    f"{name:<16}{wall * 1e3:>9.1f}{cpu * 1e3:>9.1f}"
                    f"{wall / zero[0]:>8.2f}{wall / base[0]:>9.2f}"
                )
            print(f"in process, {label}: {near_in if label == 'near' else far_in}\n")
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(run(sys.executable, int(sys.argv[1]) if len(sys.argv) > 1 else RUNS))
