#!/usr/bin/env python3
"""`hail watch`'s cost [docs/watch.md "Cost"]: the view's CPU and memory while nothing happens,
and how long a refresh takes with 1 000 seats and 100 000 read messages.

The view runs as a person runs it: the installed `hail watch` in a pane of a scratch tmux server
(its own socket, TMUX_TMPDIR, HOME and state; killed at the end), read with capture-pane. CPU is
read from /proc: the process's own time and that of the tmux calls it made and reaped.

Modes (default: both):
  --idle   four stand-in agents (`hail demo`'s, named `claude`) in four seats and a little mail;
           the view's CPU and memory over --seconds (30) after it settled
  --scale  scripts/bench.py's large state (1 000 seats, 100 000 read messages, 1 000 holds and
           pending records): in-process, the first read, a sweep that finds nothing, and a refresh
           after one send (sweep, read, rows, frame); the screen's redraw of 1 000 seats (Textual,
           headless); then the view in tmux: its first frame, how long a send takes to show on the
           screen, and its CPU and memory over --seconds
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import importlib.util
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from hail import ids
from hail.message import render
from hail.store.store import Store

HERE = Path(__file__).resolve().parent
TICKS = os.sysconf("SC_CLK_TCK")


def load_bench() -> ModuleType:
    """scripts/bench.py, for its large state."""
    spec = importlib.util.spec_from_file_location("bench", HERE / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


# --- a scratch tmux server --------------------------------------------------------------------


class Server:
    """A private tmux server: its own socket name and TMUX_TMPDIR, no tmux.conf."""

    def __init__(self, env: dict[str, str]) -> None:
        self.tmpdir = tempfile.mkdtemp(prefix="hw")
        self.name = f"hailwatch-{uuid.uuid4().hex[:8]}"
        self.env = {**env, "TMUX_TMPDIR": self.tmpdir}

    def cmd(self, *args: str) -> str:
        proc = subprocess.run(
            ["tmux", "-u", "-L", self.name, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def start(self, cwd: Path, argv: list[str], width: int = 220, height: int = 60) -> str:
        self.cmd(
            "new-session",
            "-d",
            "-s",
            "w",
            "-x",
            str(width),
            "-y",
            str(height),
            "-c",
            str(cwd),
            "--",
            *argv,
        )
        return self.cmd("display-message", "-p", "#{pane_id}").strip()

    def window(self, cwd: Path, argv: list[str]) -> str:
        return self.cmd(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(cwd), "--", *argv
        ).strip()

    @property
    def socket(self) -> str:
        return self.cmd("display-message", "-p", "#{socket_path}").strip()

    def pid(self, pane: str) -> int:
        return int(self.cmd("display-message", "-t", pane, "-p", "#{pane_pid}").strip())

    def server_pid(self) -> int:
        return int(self.cmd("display-message", "-p", "#{pid}").strip())

    def screen(self, pane: str) -> str:
        return self.cmd("capture-pane", "-p", "-J", "-t", pane)

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.cmd("kill-server")
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def shows(server: Server, pane: str, text: str) -> bool:
    return text in server.screen(pane)


def wait_for(check: Callable[[], bool], timeout: float, interval: float = 0.02) -> float:
    """Seconds until `check` held; RuntimeError past `timeout`."""
    start = time.monotonic()
    while not check():
        if time.monotonic() - start > timeout:
            raise RuntimeError("timed out")
        time.sleep(interval)
    return time.monotonic() - start


# --- /proc ----------------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """The process's CPU time, its own and its reaped children's (the tmux calls it made)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(f) for f in fields[11:15])
    return (utime + stime + cutime + cstime) / TICKS


def memory_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) in KiB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0])
    return values["VmRSS"], values["VmHWM"]


def idle_figures(server: Server, pane: str, seconds: float) -> dict[str, float]:
    pid = server.pid(pane)
    tmux_pid = server.server_pid()
    time.sleep(3)  # let the first looks settle
    began, cpu0, tmux0 = time.monotonic(), cpu_seconds(pid), cpu_seconds(tmux_pid)
    time.sleep(seconds)
    elapsed = time.monotonic() - began
    cpu = cpu_seconds(pid) - cpu0
    tmux = cpu_seconds(tmux_pid) - tmux0
    rss, hwm = memory_kib(pid)
    return {
        "seconds": elapsed,
        "cpu_percent": 100 * cpu / elapsed,
        "tmux_percent": 100 * tmux / elapsed,
        "rss_mib": rss / 1024,
        "peak_mib": hwm / 1024,
    }


def print_idle(label: str, f: dict[str, float]) -> None:
    print(
        f"{label}: CPU {f['cpu_percent']:.2f}% of one core over {f['seconds']:.0f} s "
        f"(the tmux server {f['tmux_percent']:.2f}% more), RSS {f['rss_mib']:.1f} MiB "
        f"(peak {f['peak_mib']:.1f} MiB)"
    )


# --- the idle view ----------------------------------------------------------------------------------


def standin_launcher(root: Path) -> Path:
    """An executable named `claude` that runs hail's demo agent (its process name is `claude`)."""
    import hail.demo_agent

    bindir = root / "bin"
    bindir.mkdir()
    impl = bindir / "claude-impl"
    impl.write_text(
        f"#!{sys.executable}\nimport runpy, sys\nsys.argv = [{hail.demo_agent.__file__!r}]\n"
        f"runpy.run_path({hail.demo_agent.__file__!r}, run_name='__main__')\n"
    )
    impl.chmod(0o755)
    (bindir / "claude").symlink_to(impl.name)
    return bindir / "claude"


def scratch_env(root: Path) -> dict[str, str]:
    drop = (
        "TMUX",
        "TMUX_PANE",
        "HAIL_SOCKET",
        "HAIL_SEAT",
        "HAIL_AGENT_COMMANDS",
        "CODEX_THREAD_ID",
    )
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(
        HOME=str(root / "home"),
        XDG_STATE_HOME=str(root / "state"),
        LANG="C.UTF-8",
        TERM="xterm-256color",
        HAIL_AGENT_COMMANDS="claude,codex",
    )
    (root / "home").mkdir(exist_ok=True)
    return env


def run_hail(
    hail: str, env: dict[str, str], cwd: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [hail, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def idle(hail: str, seconds: float) -> None:
    root = Path(tempfile.mkdtemp(prefix="hwi"))
    server = Server(scratch_env(root))
    try:
        env = server.env
        launcher = standin_launcher(root)
        hook = shlex.join([hail, "deliver", "--format", "claude"])
        seats = ["api", "web", "docs", "ops"]
        for i, seat in enumerate(seats):
            ws = root / seat
            ws.mkdir()
            (ws / ".hail-seat").write_text(seat + "\n")
            argv = ["env", f"HAIL_DEMO_HOOK={hook}", str(launcher)]
            pane = server.start(ws, argv) if i == 0 else server.window(ws, argv)
            wait_for(functools.partial(shows, server, pane, "❯\u00a0"), 20)
        env = {**env, "HAIL_SOCKET": server.socket}
        for i, seat in enumerate(seats):  # a little mail between them, some of it read
            to = seats[(i + 1) % len(seats)]
            run_hail(hail, env, root / seat, to, "ask", "--no-wake", f"review change {i}")
        run_hail(hail, env, root / "api", "web", "hold", "--no-wake", "HOLD: no landing")
        run_hail(hail, env, root / "web", "inbox")
        pane = server.window(
            root, ["env", f"HAIL_AGENT_COMMANDS={env['HAIL_AGENT_COMMANDS']}", hail, "watch"]
        )
        first = wait_for(lambda: "Seats (4)" in server.screen(pane), 30)
        print(f"idle view: 4 agents, {len(seats) + 1} messages; first frame after {first:.2f} s")
        print_idle("idle, 4 agents", idle_figures(server, pane, seconds))
    finally:
        server.kill()
        shutil.rmtree(root, ignore_errors=True)


# --- at scale ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    old = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(old)


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms (median of {len(values)}, max {max(values) * 1000:.1f})"


def post(store: Store, to: str, n: int) -> str:
    """A message filed the way a send files it (id link, then new/)."""
    now = time.time()
    msg_id = f"{ids.stamp(now)}-{(n * 7919) & 0xFFFF:04x}"
    os.symlink(to, store.id_path(msg_id))
    headers = {
        "from": "s0001",
        "reply": "s0001",
        "kind": "ask",
        "id": msg_id,
        "time": ids.iso(now),
        "ask": f"probe {n}",
    }
    store.mailbox(to).post(msg_id, render(headers, "body"), inline=False)
    return msg_id


def unpost(store: Store, to: str, msg_id: str) -> None:
    for path in (os.path.join(store.mailbox(to).new, f"{msg_id}.md"), store.id_path(msg_id)):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def in_process(world: Any, env: dict[str, str]) -> None:
    from hail.store.store import state_root
    from hail.watch import model as watch
    from hail.watch import render
    from hail.watch.panes import TmuxState
    from hail.watch.state import Reader

    store = Store(state_root(env))
    no_tmux = TmuxState("", (), "not looked at")
    reader = Reader(store)
    began = time.perf_counter()
    state = reader.read(time.time())
    cold = time.perf_counter() - began
    print(
        f"large state: {len(state.mailboxes)} mailboxes, {state.total} messages, {len(state.holds)} holds"
    )
    print(f"  first read (lists every mailbox once):           {cold * 1000:.0f} ms")
    time.sleep(1.2)  # past the settle time of what the first read saw
    reader.changed(time.time())
    reader.read(time.time())
    sweeps = []
    for _ in range(20):
        began = time.perf_counter()
        found = reader.changed(time.time())
        sweeps.append(time.perf_counter() - began)
        assert not found, "a sweep of an unchanged state found a change"
    print(f"  sweep, nothing changed (4 stats per mailbox):    {ms(sweeps)}")
    refresh, rows, frame = [], [], []
    for n in range(10):
        msg_id = post(store, "s0500", n)
        try:
            began = time.perf_counter()
            assert reader.changed(time.time())
            state = reader.read(time.time())
            read_done = time.perf_counter()
            snap = watch.build(state, no_tmux, time.time())
            built = time.perf_counter()
            lines = render.frame(snap)
            done = time.perf_counter()
            assert any(f"probe {n}" in line for line in lines)
            refresh.append(read_done - began)
            rows.append(built - read_done)
            frame.append(done - built)
        finally:
            unpost(store, "s0500", msg_id)
        time.sleep(1.1)
        reader.changed(time.time())
        reader.read(time.time())
    print(f"  refresh after one send (sweep + read):           {ms(refresh)}")
    print(f"  rows and trouble of 1 000 seats (build):         {ms(rows)}")
    print(f"  the --once frame's text:                         {ms(frame)}")
    asyncio.run(redraw(env, world))


async def redraw(env: dict[str, str], world: Any) -> None:
    """The screen's redraw of the large state, headless: the first fill, and after one send."""
    from hail.context import Ctx
    from hail.watch.app import WatchApp

    with environment(env):
        os.chdir(world.root)
        ctx = Ctx.from_env(env)
        app = WatchApp(ctx, "")
        app.looker.tick(time.time())
        async with app.run_test(size=(220, 60)) as pilot:
            await pilot.pause()
            snap = app.looker.snapshot(time.time())
            app._cells = {"seats": {}, "messages": {}}
            began = time.perf_counter()
            app.draw(snap)
            await pilot.pause()
            fill = time.perf_counter() - began
            times = []
            for n in range(5):
                msg_id = post(ctx.store, "s0500", 100 + n)
                try:
                    app.looker.tick(time.time())
                    snap = app.looker.snapshot(time.time())
                    began = time.perf_counter()
                    app.draw(snap)
                    await pilot.pause()
                    times.append(time.perf_counter() - began)
                finally:
                    unpost(ctx.store, "s0500", msg_id)
    print(f"  screen, first fill of 1 000 seats (headless):    {fill * 1000:.0f} ms")
    print(f"  screen, redraw after one send (headless):        {ms(times)}")


def in_tmux(hail: str, world: Any, env: dict[str, str], seconds: float) -> None:
    root = Path(world.root)
    server = Server(env)
    try:
        began = time.monotonic()
        pane = server.start(root, ["env", hail, "watch"])
        first = wait_for(lambda: "Seats (1000)" in server.screen(pane), 120)
        print(
            f"  the view in tmux: first frame after {first:.2f} s (from the command's start: {time.monotonic() - began:.2f} s)"
        )
        send_env = {**env, "HAIL_SOCKET": server.socket}
        shown = []
        seat = Path(str(world.seat_dir("s0001")))
        for n in range(5):
            proc = run_hail(
                hail, send_env, seat, "s0500", "ask", "--no-wake", f"probe {n} at scale"
            )
            if proc.returncode != 5:
                raise RuntimeError(proc.stderr)
            msg_id = proc.stdout.strip().split("=", 1)[1]
            probe = f"probe {n} at scale"
            shown.append(wait_for(functools.partial(shows, server, pane, probe), 10))
            unpost_path = world.mailbox("s0500") / "new" / f"{msg_id}.md"
            unpost_path.unlink()
            (Path(env["XDG_STATE_HOME"]) / "hail" / "ids" / msg_id).unlink()
            pending = world.mailbox("s0001") / "pending" / msg_id
            pending.unlink(missing_ok=True)
            time.sleep(1.5)
        print(f"  a send shows on the screen after {ms(shown)}")
        print_idle("  idle at scale", idle_figures(server, pane, seconds))
    finally:
        server.kill()


def scale(hail: str, seconds: float, cache: Path | None) -> None:
    bench = load_bench()
    world = bench.large_world(cache)
    scratch = Path(tempfile.mkdtemp(prefix="hws"))
    env = scratch_env(scratch)
    env.update(HOME=str(world.home), XDG_STATE_HOME=str(world.state_home))
    try:
        in_process(world, {**env, "HAIL_SOCKET": "/nonexistent/socket"})
        in_tmux(hail, world, env, seconds)
    finally:
        world.reset()
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    p.add_argument("--idle", action="store_true", help="only the idle view with four agents")
    p.add_argument("--scale", action="store_true", help="only the large state")
    p.add_argument("--seconds", type=float, default=30.0, help="how long idle CPU is measured")
    p.add_argument("--hail", help="the hail entry point (default: beside this interpreter)")
    p.add_argument("--cache", type=Path, help="where bench.py caches the large state")
    args = p.parse_args(argv)
    hail = args.hail or str(Path(sys.executable).parent / "hail")
    if shutil.which("tmux") is None:
        raise SystemExit("watch_bench: needs tmux")
    both = not (args.idle or args.scale)
    if args.idle or both:
        idle(hail, args.seconds)
    if args.scale or both:
        scale(hail, args.seconds, args.cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
