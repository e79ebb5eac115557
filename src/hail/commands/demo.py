"""`hail demo`: one ask and its reply between two stand-in agents, on a scratch tmux server.

Everything is private and thrown away: its own tmux server (`tmux -S <temporary socket> -f /dev/null`,
run through the transport like every tmux call), its own HOME and XDG_STATE_HOME. It never talks to the
user's tmux server or reads their hail state. The sends and the hook are the real `hail` entry
point, so the demo shows exactly what a send does: body first, envelope typed and seen, Enter,
the hook injecting the body, the receipt, a reply waking the asker and `await --reply` returning.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from hail import policy
from hail.errors import NOT_WOKEN
from hail.harnesses.claude import HARNESS as CLAUDE
from hail.output import emit
from hail.transport.tmux import Tmux, TmuxError

AGENT_NAME = "hail-demo-agent"
#: Each step of the demo must finish within this (they take well under a second).
STEP_TIMEOUT = 30.0
ASK_HEADLINE = "Review the retry loop in fetch.py before I merge; reply with a verdict"
ASK_BODY = "The loop retries forever on HTTP 500.\nIs a cap of 5 attempts with backoff enough?"
REPLY_HEADLINE = "GO: a cap of 5 with backoff is fine; log the last error"
PERSON_HEADLINE = "May I tag v1.2 once the retry fix lands?"
PERSON_ANSWER = "GO: tag it"


class DemoFailed(Exception):
    pass


def hail_command() -> list[str]:
    """The installed entry point beside this interpreter, else `python -m hail`."""
    beside = os.path.join(os.path.dirname(sys.executable), "hail")
    if os.access(beside, os.X_OK):
        return [beside]
    return [sys.executable, "-m", "hail"]


def _wait(check: Callable[[], bool], what: str, timeout: float = STEP_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise DemoFailed(f"timed out waiting for {what}")
        time.sleep(0.05)


@dataclass
class Scratch:
    """The demo's private world."""

    root: str
    env: dict[str, str]
    panes: dict[str, str] = field(default_factory=dict)

    @property
    def socket(self) -> str:
        return os.path.join(self.root, "tmux", "demo.sock")

    def seat_dir(self, seat: str) -> str:
        return os.path.join(self.root, seat)

    @property
    def state(self) -> str:
        return os.path.join(self.root, "state", "hail")

    def tmux(self, *args: str) -> str:
        try:
            return Tmux.scratch(self.socket, self.env).run(args)
        except TmuxError as err:
            raise DemoFailed(f"tmux {args[0]}: {err}") from None

    def screen(self, seat: str) -> list[str]:
        try:
            return Tmux.scratch(self.socket, self.env).capture(self.panes[seat])
        except TmuxError as err:
            raise DemoFailed(f"tmux capture-pane: {err}") from None

    def hail(
        self, seat: str, *args: str, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        env = {**self.env, "HAIL_SOCKET": self.socket, "TMUX_PANE": self.panes[seat]}
        return subprocess.run(
            [*hail_command(), *args],
            cwd=self.seat_dir(seat),
            env=env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT + 30,
            check=False,
        )

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.tmux("kill-server")


def _clean_env(env: Mapping[str, str], root: str) -> dict[str, str]:
    """The user's PATH and locale only: no TMUX, no HAIL_*, no harness variables, scratch homes."""
    keep = {k: v for k, v in env.items() if k in ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "USER")}
    if (
        "UTF-8"
        not in (keep.get("LC_ALL") or keep.get("LC_CTYPE") or keep.get("LANG") or "").upper()
    ):
        keep["LANG"] = "C.UTF-8"
    keep.update(
        HOME=os.path.join(root, "home"),
        XDG_STATE_HOME=os.path.join(root, "state"),
        TMUX_TMPDIR=os.path.join(root, "tmux"),
        TERM="xterm-256color",
        HAIL_AGENT_COMMANDS=AGENT_NAME,
        HAIL_DEMO_HOOK=shlex.join([*hail_command(), "deliver", "--format", CLAUDE.name]),
    )
    keep.setdefault("PATH", os.defpath)
    return keep


#: What tmux itself sets in a pane; everything else an agent sees is the demo's scratch environment.
PANE_VARIABLES = ("TMUX", "TMUX_PANE", "TERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "COLORTERM")

LAUNCHER = """#!{python}
import os

from hail.demo_agent import main

# The scratch server was started from the caller's environment: keep only what tmux set.
pane = {{k: v for k, v in os.environ.items() if k in {pane!r}}}
os.environ.clear()
os.environ.update({env!r}, **pane)
raise SystemExit(main())
"""


def _agent_launcher(root: str, env: Mapping[str, str]) -> str:
    """An executable named hail-demo-agent, so ps and tmux see the agent under that name."""
    bindir = os.path.join(root, "bin")
    os.makedirs(bindir, exist_ok=True)
    path = os.path.join(bindir, AGENT_NAME)
    with open(path, "w", encoding="utf-8") as f:
        f.write(LAUNCHER.format(python=sys.executable, pane=PANE_VARIABLES, env=dict(env)))
    os.chmod(path, 0o755)
    return path


def _setup(root: str, env: Mapping[str, str]) -> Scratch:
    s = Scratch(root, _clean_env(env, root))
    for d in ("home", "tmux"):
        os.makedirs(os.path.join(root, d), mode=0o700)
    for seat in ("boss", "worker"):
        os.makedirs(s.seat_dir(seat))
        with open(os.path.join(s.seat_dir(seat), ".hail-seat"), "w", encoding="utf-8") as f:
            f.write(seat + "\n")
    agent = _agent_launcher(root, s.env)
    s.tmux(
        "new-session", "-d", "-s", "demo", "-x", "160", "-y", "40", "-c", s.seat_dir("boss"), agent
    )
    s.panes["boss"] = s.tmux("display-message", "-p", "#{pane_id}").strip()
    s.panes["worker"] = s.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", s.seat_dir("worker"), agent
    ).strip()
    for seat in ("boss", "worker"):
        _wait(functools.partial(_composer_drawn, s, seat), f"{seat}'s agent")
    return s


def _composer_drawn(s: Scratch, seat: str) -> bool:
    return any(line.startswith("❯") for line in s.screen(seat))


def _show(lines: list[str]) -> None:
    for line in lines:
        emit(f"     │ {line.rstrip()}")


def _step(n: int, text: str) -> None:
    emit(f"{n}. {text}")


def _checked(proc: subprocess.CompletedProcess[str], what: str) -> str:
    if proc.returncode != 0:
        raise DemoFailed(
            f"{what} exited {proc.returncode}: {proc.stderr.strip() or proc.stdout.strip()}"
        )
    return proc.stdout


def _id_of(out: str) -> str:
    found = re.search(r"^id=(\S+)$", out, re.M)
    if found is None:
        raise DemoFailed(f"no id= in {out!r}")
    return found.group(1)


def _run(s: Scratch) -> None:
    emit(
        "hail demo: two stand-in agents on a scratch tmux server; your tmux and hail state are untouched"
    )
    emit(f"   tmux    tmux -S {s.socket}")
    emit(f"   state   {s.state}")
    emit(
        f"   seats   boss ({s.panes['boss']}) and worker ({s.panes['worker']}); each agent's prompt hook runs"
    )
    emit(f"           {s.env['HAIL_DEMO_HOOK']}")
    emit("")
    _step(1, "boss asks worker, headline and body in a heredoc: hail worker ask <<'EOF'")
    sent = s.hail("boss", "worker", "ask", stdin=f"{ASK_HEADLINE}\n{ASK_BODY}\n")
    msg_id = _id_of(_checked(sent, "hail worker ask"))
    emit(f"   {sent.stdout.strip()}  (exit 0: typed and submitted)")
    _step(2, "the body was written to worker's inbox before anything was typed:")
    new = os.path.join(s.state, "seats", "worker", "new", f"{msg_id}.md")
    emit(f"   {new}")
    _step(
        3, f"the envelope was typed into worker's pane {s.panes['worker']}, seen there, then Enter:"
    )
    _show([ln for ln in s.screen("worker") if f"id:{msg_id}" in ln][:1])
    _step(4, "worker's prompt hook claimed the body and injected it into the agent's context:")

    def receipt() -> str:
        return s.hail("boss", "sent", msg_id).stdout.strip()

    _wait(lambda: receipt().startswith("injected"), "the hook's receipt")
    screen = s.screen("worker")
    start = next((i for i, ln in enumerate(screen) if "hook context:" in ln), None)
    if start is not None:
        _show([ln.split("│", 1)[1].strip() for ln in screen[start + 1 :] if "│" in ln][:8])
    cur = os.path.join(s.state, "seats", "worker", "cur", f"{msg_id}.injected.md")
    emit(f"   the file moved to {cur}")
    emit(f"   boss: hail sent {msg_id}  →  {receipt()}")
    _step(5, f"worker replies: hail boss fyi --re {msg_id} '{REPLY_HEADLINE}'")
    reply = s.hail("worker", "boss", "fyi", "--re", msg_id, REPLY_HEADLINE)
    reply_id = _id_of(_checked(reply, "hail boss fyi"))
    emit(f"   {reply.stdout.strip()}")
    _show([ln for ln in s.screen("boss") if f"id:{reply_id}" in ln][:1])
    emit("   a reply to boss's ask wakes boss like an ask, even as an fyi: it was typed there")
    _step(6, f"boss asks for the answer to its ask: hail await --reply {msg_id}")
    waited = s.hail("boss", "await", "--reply", msg_id, "--timeout", str(int(STEP_TIMEOUT)))
    _show(_checked(waited, "hail await --reply").splitlines())
    emit(f"   boss: hail sent {msg_id}  →  {receipt()}")
    emit("")


def _ask_the_person(s: Scratch) -> None:
    """An agent asks the person, who answers from a shell of their own [docs/seats.md "The
    person"]: filed in the person's inbox, typed nowhere; `--as person` from a window outside
    every agent; the asker's `await --reply` returns the answer."""
    _step(7, f"worker asks you, the person: hail person ask '{PERSON_HEADLINE}'")
    asked = s.hail("worker", "person", "ask", PERSON_HEADLINE)
    ask_id = _id_of(_checked(asked, "hail person ask"))
    emit(f"   {asked.stdout.strip()}  (exit 0: in the person's inbox, typed into no pane)")
    emit(f"   {os.path.join(s.state, 'seats', 'person', 'new', f'{ask_id}.md')}")
    _step(8, "the person answers from a shell of their own (a window outside every agent):")
    emit(f"   hail --as person worker fyi --re {ask_id} '{PERSON_ANSWER}'")
    code, out = _as_person(s, "worker", "fyi", "--re", ask_id, PERSON_ANSWER)
    if code not in (0, NOT_WOKEN):
        raise DemoFailed(f"hail --as person worker fyi exited {code}: {out.strip()}")
    _step(9, f"worker: hail await --reply {ask_id}")
    waited = s.hail("worker", "await", "--reply", ask_id, "--timeout", str(int(STEP_TIMEOUT)))
    _show(_checked(waited, "hail await --reply").splitlines())
    emit("")


def _as_person(s: Scratch, *args: str) -> tuple[int, str]:
    """`hail --as person <args>` in a shell of a window of its own, as a person at a terminal runs
    it: under the scratch server, outside every agent's process tree, with the scratch
    environment only (`env -i`); its exit status and output."""
    out, rc = os.path.join(s.root, "person.out"), os.path.join(s.root, "person.rc")
    command = shlex.join([*hail_command(), "--as", "person", *args])
    line = f"{command} >{shlex.quote(out)} 2>&1; echo $? >{shlex.quote(rc)}"
    env = [f"{k}={v}" for k, v in {**s.env, "HAIL_SOCKET": s.socket}.items()]
    s.tmux("new-window", "-d", "-c", s.root, "env", "-i", *env, "sh", "-c", line)

    def answered() -> bool:
        with contextlib.suppress(OSError), open(rc, encoding="utf-8") as f:
            return f.read().strip() != ""
        return False

    _wait(answered, "the person's answer")
    with open(rc, encoding="utf-8") as f, open(out, encoding="utf-8") as g:
        return int(f.read()), g.read()


def _scratch_root() -> str:
    """The demo's private directory: in TMPDIR, or in /tmp where TMPDIR is too deep for its tmux
    socket's path (SOCKET_PATH_MAX). It lives for the demo only."""
    root = tempfile.mkdtemp(prefix="hail-demo-")
    if len(os.fsencode(Scratch(root, {}).socket)) < policy.SOCKET_PATH_MAX:
        return root
    os.rmdir(root)
    return tempfile.mkdtemp(prefix="hail-demo-", dir="/tmp")


def demo(env: Mapping[str, str]) -> int:
    """Run the demo; 0 when every step worked, 1 when one failed (or tmux is missing)."""
    if shutil.which("tmux", path=env.get("PATH")) is None:
        sys.stderr.write(
            "hail: demo needs tmux, and tmux is not on PATH. hail types its envelopes into tmux "
            "panes; install tmux (apt install tmux, brew install tmux) and run hail demo again\n"
        )
        return 1
    root = _scratch_root()
    scratch: Scratch | None = None
    try:
        scratch = _setup(root, env)
        _run(scratch)
        _ask_the_person(scratch)
        emit("done: the scratch tmux server and files are removed.")
        return 0
    except DemoFailed as err:
        sys.stderr.write(f"hail: demo failed: {err}\n")
        if scratch is not None and scratch.panes:
            with contextlib.suppress(DemoFailed):
                for seat in scratch.panes:
                    sys.stderr.write(f"--- {seat}'s screen:\n")
                    sys.stderr.write(
                        "\n".join(ln.rstrip() for ln in scratch.screen(seat)).strip() + "\n"
                    )
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("hail: demo interrupted; cleaning up\n")
        return 130
    finally:
        if scratch is not None:
            scratch.kill()
        else:
            with contextlib.suppress(Exception):
                Scratch(root, _clean_env(env, root)).kill()
        shutil.rmtree(root, ignore_errors=True)
