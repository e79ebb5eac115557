"""Everything one test owns: a throwaway HOME and state root, seat directories, the fake model
servers, a scratch tmux server, and the clients started in it. ``close`` ends all of it by pid.

Layout under the test's tmp dir::

    home/            HOME: ~/.claude.json, ~/.claude/settings.json, ~/.codex/config.toml,
                     ~/.gemini/settings.json, ~/.config/opencode/ (opencode.json, plugins/),
                     ~/.qwen/settings.json
    state/           XDG_STATE_HOME (hail's state root is state/hail)
    bin/hail         a link to the project's hail, so the clients' hooks find it on PATH
    boss/ worker/ shared/   seat directories (.hail-seat files)
    probe.jsonl      what the probe hook saw, from every pane
    fake-*/          each fake server's request log
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path

from tests.support.entry import HailRun, hail_bin
from tests.support.procs import alive, wait_until

from .clients import (
    CLAUDE_API_KEY,
    COPILOT_CACHE,
    GEMINI_API_KEY,
    Agent,
    launch,
    probe_command,
    write_claude_config,
    write_codex_config,
    write_copilot_config,
    write_gemini_config,
    write_opencode_config,
    write_qwen_config,
)
from .fake_http import FakeServer
from .scratch_tmux import ClientTmux

SEATS = ("boss", "worker", "shared")
# A shell command that runs until the test creates its argument: an agent busy in a tool call
# for exactly as long as the test needs, with no sleep-and-hope. Claude Code is allowed to run
# it without asking (clients.py), Codex runs it in its sandbox.
WAIT_TOOL = "wait-release"
WAIT_TOOL_SCRIPT = """#!/bin/sh
i=0
while [ ! -e "$1" ] && [ "$i" -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
echo released
"""


#: How long a test's processes may take to end on their own once its tmux server is gone.
LEFTOVER_GRACE = 5.0


class World:
    def __init__(
        self,
        root: Path,
        bin_dir: Path,
        *,
        with_hail: bool = True,
        probe_context: bool = False,
        setup: bool = True,
        home_state: bool = False,
        waiter: bool = True,
        state_name: str = "state",
    ) -> None:
        self.root = root
        self.home = root / "home"
        # With home_state, hail's state is where a user's is (~/.local/state, no XDG_STATE_HOME)
        # and TMPDIR is elsewhere: outside every directory Codex's sandbox lets a command write.
        self.home_state = home_state
        self.state = self.home / ".local" / "state" if home_state else root / state_name
        self.tool_bin = root / "bin"
        self.probe_log = root / "probe.jsonl"
        self.client_bin = bin_dir
        self.seat: dict[str, Path] = {}
        self.fakes: list[FakeServer] = []
        self.agents: list[Agent] = []
        self.log: list[HailRun] = []
        self.setup_run: HailRun | None = None
        self._tmux: ClientTmux | None = None
        try:
            self._build(bin_dir, with_hail, probe_context, setup)
            if with_hail and setup and not waiter:
                self.drop_waiter()
        except BaseException:
            self.close()
            raise

    @property
    def tmux(self) -> ClientTmux:
        assert self._tmux is not None
        return self._tmux

    def _build(self, bin_dir: Path, with_hail: bool, probe_context: bool, setup: bool) -> None:
        for d in (self.root, self.home, self.state, self.tool_bin):
            d.mkdir(parents=True)
        for name in SEATS:
            self.seat[name] = self.root / name
            self.seat[name].mkdir()
            (self.seat[name] / ".hail-seat").write_text(name + "\n")
        if with_hail:
            (self.tool_bin / "hail").symlink_to(hail_bin())
        self.wait_tool = self.tool_bin / WAIT_TOOL
        self.wait_tool.write_text(WAIT_TOOL_SCRIPT)
        self.wait_tool.chmod(0o755)
        # Codex runs the model's commands in a login shell, whose /etc/profile resets PATH: hail
        # stays on it the way a user's profile keeps it there.
        (self.home / ".bash_profile").write_text(f'export PATH="{self.tool_bin}:$PATH"\n')
        # The pinned clients come first: this machine may have an unrelated claude on PATH.
        self.env = {
            "HOME": str(self.home),
            "PATH": os.pathsep.join(
                [str(bin_dir), str(self.tool_bin), "/usr/local/bin", "/usr/bin", "/bin"]
            ),
            "LANG": "C.UTF-8",
            "XDG_STATE_HOME": str(self.state),
            "TMPDIR": str(self.root),
        }
        if self.home_state:
            del self.env["XDG_STATE_HOME"]
            self.env["TMPDIR"] = str(self.root / "tmp")
            (self.root / "tmp").mkdir()
        self.anthropic = self.fake("fake_anthropic")
        self.openai = self.fake("fake_openai")
        self.gemini = self.fake("fake_gemini")
        self.chat = self.fake("fake_chat")
        probe = probe_command(self.probe_log) + (" --context" if probe_context else "")
        projects = [self.seat[n] for n in SEATS]
        write_claude_config(self.home, projects, probe, str(self.wait_tool))
        write_codex_config(self.home, projects, self.openai.url, probe)
        write_gemini_config(self.home, projects, probe, str(self.wait_tool))
        write_opencode_config(self.home / ".config", self.chat.url, self.probe_log)
        write_qwen_config(self.home, self.chat.url, probe)
        write_copilot_config(self.home, projects, probe)
        self._tmux = ClientTmux(self.env, self.seat["boss"], ["bash", "--norc", "--noprofile"])
        self.boss_pane = self.tmux.first_pane
        if with_hail and setup:
            # hail's own installer puts its hooks beside the probe hooks, as a user would.
            self.setup_run = self.hail(["setup", "--yes", "--trust-codex"], cwd=self.root)
            self.log.remove(self.setup_run)  # its diff would drown a failure report
            if self.setup_run.rc != 0:
                raise AssertionError(f"hail setup failed: {self.setup_run}")

    def drop_waiter(self) -> None:
        """Claude Code settings as an earlier hail setup left them: hail's hooks without the
        waiter (docs/hooks.md "The waiter")."""
        path = self.home / ".claude" / "settings.json"
        settings = json.loads(path.read_text())
        for event, groups in settings["hooks"].items():
            settings["hooks"][event] = [
                g for g in groups if not any("hail listen" in h["command"] for h in g["hooks"])
            ]
        path.write_text(json.dumps(settings, indent=2) + "\n")

    def waiters(self) -> list[int]:
        """The pids of the waiters (`hail listen`) of this world's clients that run now."""
        return [
            pid for pid, args in self.processes() if "listen" in args and "hail" in " ".join(args)
        ]

    def codex_daemons(self) -> list[int]:
        """The pids of this world's Codex daemons (`codex app-server …`), which outlive their TUI."""
        return [pid for pid, args in self.processes() if "app-server" in args]

    def processes(self) -> list[tuple[int, list[str]]]:
        """Every live process whose environment names this world's HOME, with its arguments."""
        if not Path("/proc").is_dir():
            return [(pid, line.split()) for pid, line in self.ps_environments()]
        marker = f"HOME={self.home}".encode()
        found: list[tuple[int, list[str]]] = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if marker not in (entry / "environ").read_bytes().split(b"\0"):
                    continue
                raw = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if raw and alive(int(entry.name)):
                found.append(
                    (int(entry.name), raw.decode(errors="replace").rstrip("\0").split("\0"))
                )
        return found

    def fake(self, module: str) -> FakeServer:
        n = sum(1 for f in self.fakes if f.log.parent.name.startswith(module))
        server = FakeServer(module, self.root / f"{module}-{n}")
        self.fakes.append(server)
        return server

    def client_env(self, client: str, fake: FakeServer | None = None) -> dict[str, str]:
        env = {"TERM": "xterm-256color"}
        if client == "claude":
            env |= {
                "ANTHROPIC_API_KEY": CLAUDE_API_KEY,
                "ANTHROPIC_BASE_URL": (fake or self.anthropic).url,
                "CLAUDE_CODE_MAX_RETRIES": "0",  # a failed call fails at once, not after 3 min
                "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            }
        elif client == "gemini":
            env |= {
                "GEMINI_API_KEY": GEMINI_API_KEY,
                "GOOGLE_GEMINI_BASE_URL": (fake or self.gemini).url,
            }
        elif client == "copilot":
            env |= {
                "COPILOT_OFFLINE": "true",
                "COPILOT_PROVIDER_BASE_URL": (fake or self.chat).url + "/v1",
                "COPILOT_PROVIDER_TYPE": "openai",
                "COPILOT_PROVIDER_API_KEY": "sk-fake-0000",
                "COPILOT_MODEL": "fake-model",
                "XDG_CACHE_HOME": str(COPILOT_CACHE),
            }
        elif client == "opencode":
            env |= {
                "OPENCODE_DISABLE_AUTOUPDATE": "1",
                "OPENCODE_DISABLE_MODELS_FETCH": "1",
                "XDG_CONFIG_HOME": str(self.home / ".config"),
            }
        else:
            env |= {"OPENAI_API_KEY": "sk-fake-0000"}
        return env

    def start(
        self,
        client: str,
        seat: str = "worker",
        fake: FakeServer | None = None,
        env: dict[str, str] | None = None,
        daemon: bool = False,
    ) -> Agent:
        """Start a client in a seat; `env` adds to (or overrides) its environment. Codex starts
        with its daemon only when `daemon`."""
        if client in ("codex", "opencode", "qwen") and fake is not None:
            raise ValueError(f"{client} reads its server from its config file")
        agent = launch(
            self.tmux,
            client,
            self.seat[seat],
            self.client_bin,
            self.probe_log,
            self.client_env(client, fake) | (env or {}),
            daemon=daemon,
        )
        self.agents.append(agent)
        agent.wait_ready()
        return agent

    def fake_for(self, agent: Agent) -> FakeServer:
        return {
            "codex": self.openai,
            "gemini": self.gemini,
            "opencode": self.chat,
            "qwen": self.chat,
            "copilot": self.chat,
        }.get(agent.client, self.anthropic)

    def hail(
        self,
        args: list[str],
        *,
        cwd: Path | None = None,
        stdin: str | None = None,
        pane: str | None = None,
        timeout: float = 60,
        extra_env: dict[str, str] | None = None,
        prefix: tuple[str, ...] = (),
    ) -> HailRun:
        """Run hail as an agent in ``pane`` would (default: the boss shell pane), against the
        scratch server only; `prefix` runs it under an interpreter's options."""
        env = dict(self.env) | {"HAIL_SOCKET": self.tmux.socket}
        env["TMUX_PANE"] = pane or self.boss_pane
        env |= extra_env or {}
        proc = subprocess.run(
            [*prefix, str(self.tool_bin / "hail"), *args],
            cwd=cwd or self.seat["boss"],
            env=env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        result = HailRun(args, proc.returncode, proc.stdout, proc.stderr)
        self.log.append(result)
        return result

    def send(
        self, target: str, headline: str, body: str | None = None, kind: str = "ask"
    ) -> HailRun:
        """``hail <target> <kind> <<'EOF'`` from the boss seat: headline line, then the body."""
        text = headline + ("\n\n" + body if body else "") + "\n"
        return self.hail([target, kind], stdin=text)

    def mailbox_files(self, mailbox: str) -> list[Path]:
        box = self.state / "hail" / "seats" / mailbox
        return sorted(
            p for sub in ("new", "cur") if (box / sub).is_dir() for p in (box / sub).iterdir()
        )

    def report(self) -> str:
        """What a failing test prints: hail runs and every client's screen."""
        parts = [str(h) for h in self.log]
        for agent in self.agents:
            try:
                screen = agent.screen()
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                screen = f"(no screen: {e})"
            parts.append(f"--- {agent.client} {agent.pane} in {agent.cwd}\n{screen.rstrip()}")
            parts += [f"note: {n}" for n in agent.notes]
        return "\n".join(parts)

    def close(self) -> list[int]:
        """End the tmux server, the clients and the fakes by pid; return the pids of anything
        of this test's that was still alive afterwards (then killed)."""
        if self._tmux is not None:
            self._tmux.kill()
        # A Codex daemon outlives its TUI and the tmux server by design: ended here by pid, it is
        # not a leftover.
        for pid in self.codex_daemons():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not self.codex_daemons(), 5)
        for fake in self.fakes:
            fake.stop()
        return self.reap_leftovers()

    def ps_environments(self) -> list[tuple[int, str]]:
        """Where there is no /proc (macOS): each process whose environment, as `ps -E` appends it
        to its command line, names this world's HOME (arguments split at spaces)."""
        out = subprocess.run(
            ["ps", "-A", "-E", "-ww", "-o", "pid=,command="],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        marker = f" HOME={self.home} "
        found: list[tuple[int, str]] = []
        for line in out.splitlines():
            pid, _, rest = line.strip().partition(" ")
            if pid.isdigit() and int(pid) != os.getpid() and marker in f" {rest} ":
                found.append((int(pid), rest))
        return found

    def reap_leftovers(self) -> list[int]:
        marker = f"HOME={self.home}".encode()
        found: list[int] = []
        if not Path("/proc").is_dir():
            found = [pid for pid, _ in self.ps_environments()]
        for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if marker in environ.split(b"\0"):
                found.append(int(entry.name))
        # What ends on its own within a few seconds of its agent is no leftover: hail's waiter
        # looks once a second whether its Claude Code still runs (docs/hooks.md "The waiter").
        wait_until(lambda: not any(alive(p) for p in found), LEFTOVER_GRACE)
        left = [pid for pid in found if alive(pid)]
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not any(alive(p) for p in left), 5)
        return left
