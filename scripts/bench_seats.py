#!/usr/bin/env python3
"""`hail seats` and one `hail watch` refresh with 30 agents whose files are 50 MB each, before and
after the gauge [docs/performance.md "The context gauge"].

A scratch tmux server (its own socket and TMUX_TMPDIR, killed at the end) holds 30 agent panes in
30 seats: 10 processes named `claude`, 10 named `codex` (each a `sleep` under that name) and 10
`node …/gemini` scripts, as a survey tells them apart. Their files are scripts/bench_gauge.py's
(10 Claude Code transcripts, 10 Codex rollouts, 10 Gemini CLI session files, 50 MB each), and each
agent's record (`presence/agent-<session>`) names its pane, server, file and model, as its prompt
hook would have written it.

Cases, each a whole process of the interpreter run with one hail's `src` on its path (`--before
REV` adds hail at that git revision, with no gauge), interleaved with `python -c pass` in shuffled
rounds, median of --runs (10): `hail seats`, and `hail watch --once` (one look at the state and the
panes, the rows, the frame). Then the same once every file has more than the bound of tool output
after its newest call (each read stops at GAUGE_READ_MAX: the worst case). Then, in process, one
watch refresh as the view makes it every WATCH_PANES_SECONDS: the panes looked at (screens,
routes, each agent's gauge) and the rows built.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RUNS = 10
#: One refresh of the view in process: the panes' look (every agent's gauge with it) and the rows.
REFRESH = """
import statistics, sys, time
from hail.context import Ctx
from hail.watch.follow import Watch
from hail.watch.model import build
ctx = Ctx.from_env()
watch = Watch(ctx)
watch.tick(time.time())
times = []
for _ in range(int(sys.argv[1])):
    start = time.perf_counter()
    tmux = watch.surveyor.look()
    build(watch.state, tmux, time.time())
    times.append(time.perf_counter() - start)
agents = sum(1 for p in tmux.panes if p.agent)
shown = sum(1 for p in tmux.panes if getattr(getattr(p, "figures", None), "gauge", None))
print(f"{statistics.median(times) * 1e3:.1f} ms for {agents} agents, {shown} gauges read")
"""


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def tmux(name: str, env: dict[str, str], *args: str) -> str:
    proc = subprocess.run(
        ["tmux", "-u", "-L", name, "-f", "/dev/null", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    return proc.stdout


def source_at(rev: str, into: Path) -> Path:
    """hail's `src` at git revision `rev`, unpacked in `into`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True
    )
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "src"


def agent_commands(bindir: Path) -> dict[str, list[str]]:
    """What each client's pane runs: a process under its name (Gemini CLI's, node's script)."""
    bindir.mkdir()
    for name in ("claude", "codex"):
        (bindir / name).symlink_to(shutil.which("sleep") or "/bin/sleep")
    script = bindir / "gemini"
    script.write_text("setInterval(() => {}, 1000)\n")
    node = shutil.which("node")
    if node is None:
        raise SystemExit("needs node: Gemini CLI's panes run node …/gemini")
    return {
        "claude": [str(bindir / "claude"), "3600"],
        "codex": [str(bindir / "codex"), "3600"],
        "gemini": [node, str(script)],
    }


def record(state: Path, client: str, seat: str, pane: str, socket: str, path: Path) -> None:
    """The agent record its prompt hook would write (docs/gauge.md "The agent record")."""
    gauge = load("bench_gauge")
    session = str(uuid.uuid4())
    here = "" if client == "codex" else pane  # Codex's hooks run from its daemon: no pane
    fields = {
        "agent": client,
        "session": session,
        "mailbox": seat,
        "pane": here,
        "server": socket if here else "",
        "file": str(path),
        "model": gauge.MODELS[client],
        "task": f"the task of {seat}",
        "time": f"{time.time():.3f}",
    }
    presence = state / "hail" / "presence"
    presence.mkdir(parents=True, exist_ok=True)
    (presence / f"agent-{session}").write_text("".join(f"{k}: {v}\n" for k, v in fields.items()))


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - start


def measure(cases: dict[str, tuple[list[str], dict[str, str]]], cwd: Path, runs: int) -> dict[str, float]:  # fmt: skip
    walls: dict[str, list[float]] = {name: [] for name in cases}
    for argv, env in cases.values():  # a warm-up each: bytecode, the page cache
        timed(argv, env, cwd)
    for _ in range(runs):
        order = list(cases)
        random.shuffle(order)
        for name in order:
            walls[name].append(timed(*cases[name], cwd))
    return {name: statistics.median(w) for name, w in walls.items()}


def report(label: str, medians: dict[str, float]) -> None:
    base = medians["python -c pass"]
    print(f"\n{label}")
    for name, wall in medians.items():
        print(f"  {name:<34}{wall * 1e3:>8.1f} ms  {wall / base:>6.2f}× python -c pass")


def run(python: str, runs: int, before: str | None) -> int:
    gauge = load("bench_gauge")
    root = Path(tempfile.mkdtemp(prefix="hail-seats-"))
    name = f"hailseats-{uuid.uuid4().hex[:8]}"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
           "HOME": str(root / "home"), "XDG_STATE_HOME": str(root / "state"),
           "TMUX_TMPDIR": str(root / "tmux"), "TERM": "xterm-256color"}  # fmt: skip
    (root / "home").mkdir()
    (root / "tmux").mkdir()
    try:
        started = time.perf_counter()
        files = gauge.build(root)
        print(f"built {len(files)} files of 50 MB in {time.perf_counter() - started:.0f} s")
        commands = agent_commands(root / "bin")
        socket = ""
        for n, (client, path) in enumerate(files):
            seat = f"s{n:02d}-{client}"
            (root / seat).mkdir()
            (root / seat / ".hail-seat").write_text(seat + "\n")
            argv = ["--", *commands[client]]
            if n == 0:
                tmux(name, env, "new-session", "-d", "-s", "b", "-x", "200", "-y", "50",
                     "-c", str(root / seat), *argv)  # fmt: skip
                socket = tmux(name, env, "display-message", "-p", "#{socket_path}").strip()
                pane = tmux(name, env, "display-message", "-p", "#{pane_id}").strip()
            else:
                pane = tmux(name, env, "new-window", "-d", "-P", "-F", "#{pane_id}",
                            "-c", str(root / seat), *argv).strip()  # fmt: skip
            record(root / "state", client, seat, pane, socket, path)
        time.sleep(1)  # every record newer than its agent's start, as a hook's is
        env["HAIL_SOCKET"] = socket
        sources = {"after": ROOT / "src"}
        if before:
            sources[f"before ({before})"] = source_at(before, root / "before")
        cases: dict[str, tuple[list[str], dict[str, str]]] = {
            "python -c pass": ([python, "-c", "pass"], env)
        }
        for label, src in sources.items():
            with_src = {**env, "PYTHONPATH": str(src)}
            main = "import sys; from hail.entry import main; sys.exit(main())"
            cases[f"hail seats, {label}"] = ([python, "-c", main, "seats"], with_src)
            cases[f"hail watch --once, {label}"] = (
                [python, "-c", main, "watch", "--once"],
                with_src,
            )
        report("30 agents, each file's newest call near its end", measure(cases, root, runs))
        for label, src in sources.items():
            out = subprocess.run([python, "-c", REFRESH, "20"], env={**env, "PYTHONPATH": str(src)},
                                 cwd=root, capture_output=True, text=True, check=True)  # fmt: skip
            print(f"  one watch refresh in process, {label}: {out.stdout.strip()}")
        gauge.push_far(files)
        report("30 agents, no usage in the last MiB of any file", measure(cases, root, runs))
        for label, src in sources.items():
            out = subprocess.run([python, "-c", REFRESH, "20"], env={**env, "PYTHONPATH": str(src)},
                                 cwd=root, capture_output=True, text=True, check=True)  # fmt: skip
            print(f"  one watch refresh in process, {label}: {out.stdout.strip()}")
        return 0
    finally:
        with contextlib.suppress(subprocess.SubprocessError):
            tmux(name, env, "kill-server")
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--before", metavar="REV", help="also hail at this git revision")
    args = parser.parse_args()
    return run(sys.executable, args.runs, args.before)


if __name__ == "__main__":
    sys.exit(main())
