"""The real clients: install the pinned packages, write their minimal config, start them in a
pane, and tell from the screen when they are ready.

Versions are pinned in ``versions.json`` beside this file (bump them there).
``HAIL_REAL_CLIENTS_LATEST=1`` resolves ``@latest`` with ``npm view`` instead, for a drift job.
Claude Code and Codex are installed together in ``<repo>/.cache/real-clients/<claude>_<codex>/``,
Gemini CLI, opencode, Qwen Code and Copilot CLI each in ``<repo>/.cache/real-clients/<name>-<version>/``; every client's
executable is linked into that first install's bin directory, the one the tests put on PATH.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from hail.transport import screen as hail_screen
from tests.support.procs import wait_until

from .fake_http import logged_lines
from .scratch_tmux import ClientTmux

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CLAUDE_PKG = "@anthropic-ai/claude-code"
CODEX_PKG = "@openai/codex"
GEMINI_PKG = "@google/gemini-cli"
OPENCODE_PKG = "opencode-ai"
QWEN_PKG = "@qwen-code/qwen-code"
COPILOT_PKG = "@github/copilot"
CLIENTS = ("claude", "codex", "gemini", "opencode", "qwen", "copilot")
#: Installed on their own, each beside the Claude Code and Codex install: name, package.
OWN_INSTALLS = (
    ("gemini", GEMINI_PKG),
    ("opencode", OPENCODE_PKG),
    ("qwen", QWEN_PKG),
    ("copilot", COPILOT_PKG),
)
#: What each client calls the events hail hooks (opencode: the probe plugin uses hail's names).
EVENT_NAMES = {
    "gemini": {
        "SessionStart": "SessionStart",
        "UserPromptSubmit": "BeforeAgent",
        "PostToolUse": "AfterTool",
        "Stop": "AfterAgent",
    },
    "copilot": {
        "SessionStart": "sessionStart",
        "UserPromptSubmit": "userPromptSubmitted",
        "PostToolUse": "postToolUse",
        "Stop": "agentStop",
    },
}
GEMINI_API_KEY = "fake-gemini-key-0000"
GEMINI_MODEL = "gemini-2.5-flash"
#: How long a client may take to start (s).
START_LIMIT = {"gemini": 60.0, "opencode": 90.0, "qwen": 60.0, "copilot": 90.0}
#: Copilot CLI unpacks itself (235 MB) into `$XDG_CACHE_HOME/copilot` on its first run: every
#: test shares the one the install's version check unpacked, never the user's.
COPILOT_CACHE = REPO / ".cache" / "real-clients" / ".copilot-cache"

# Claude Code takes any key from the environment once its last 20 characters are approved.
CLAUDE_API_KEY = "sk-ant-dummy-0000000000000000000000"
# Events the probe hook records. Stop tells a test that a turn ended.
PROBE_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop")
SNAKE = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "PostToolUse": "post_tool_use",
    "Stop": "stop",
}

# Screen literals (docs/real-clients.md "Screen literals"). The ready Claude composer line is '❯' +
# NBSP.
CLAUDE_COMPOSER = "❯\u00a0"
CODEX_PROMPT = "› "
CODEX_FOOTER = "? for shortcuts"
CODEX_UPSELL = "Use existing model"
STUCK_SCREENS = (
    "Yes, I trust this folder",
    "Detected a custom API key",
    "Trust this folder?",
    "Hooks need review",
    "Sign in with ChatGPT",
    "Do you trust the files in this folder?",
)
BUSY = ("esc to interrupt",)


def pinned_versions() -> dict[str, str]:
    pins: dict[str, str] = json.loads((HERE / "versions.json").read_text())
    if os.environ.get("HAIL_REAL_CLIENTS_LATEST") == "1":
        return {pkg: npm_latest(pkg) for pkg in pins}
    return pins


def npm_env() -> dict[str, str]:
    """npm gets the caller's environment minus anything that names a tmux server, and XDG
    directories of the cache's own: a package's install script (opencode's writes its cache,
    config, data and state folders) never touches the user's ~/.cache, ~/.config or ~/.local.
    HOME stays, for npm's own config and cache."""
    drop = ("TMUX", "TMUX_PANE", "HAIL_SOCKET")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    xdg = REPO / ".cache" / "real-clients" / ".xdg"
    for name in ("CACHE", "CONFIG", "DATA", "STATE"):
        env[f"XDG_{name}_HOME"] = str(xdg / name.lower())
    return env


def npm_latest(pkg: str) -> str:
    out = subprocess.run(
        ["npm", "view", f"{pkg}@latest", "version"],
        env=npm_env(),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return out.stdout.strip()


def install(versions: dict[str, str]) -> Path:
    """Install both packages once per version pair; returns the directory of their bins."""
    root = REPO / ".cache" / "real-clients"
    cache = root / f"claude-{versions[CLAUDE_PKG]}_codex-{versions[CODEX_PKG]}"
    bin_dir = cache / "node_modules" / ".bin"
    _npm_install(cache, [CLAUDE_PKG, CODEX_PKG], versions, ("claude", "codex"))
    for name, pkg in OWN_INSTALLS:
        own = root / f"{name}-{versions[pkg]}"
        _npm_install(own, [pkg], versions, (name,))
        link = bin_dir / name
        target = own / "node_modules" / ".bin" / name
        if not link.exists() or link.resolve() != target.resolve():
            link.unlink(missing_ok=True)
            link.symlink_to(target)
    # A throwaway HOME: not even --version may touch the user's ~/.claude, ~/.codex, ~/.gemini.
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cache / ".home")}
    env["XDG_CACHE_HOME"] = str(COPILOT_CACHE)
    for name, pkg in (("claude", CLAUDE_PKG), ("codex", CODEX_PKG), *OWN_INSTALLS):
        out = subprocess.run(
            [str(bin_dir / name), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=False,
        )
        if versions[pkg] not in out.stdout:
            raise RuntimeError(f"{name} --version said {out.stdout!r}, wanted {versions[pkg]}")
    return bin_dir


def _npm_install(
    prefix: Path, pkgs: list[str], versions: dict[str, str], bins: tuple[str, ...]
) -> None:
    prefix.mkdir(parents=True, exist_ok=True)
    bin_dir = prefix / "node_modules" / ".bin"
    with (prefix / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel runs share one install
        if not all((bin_dir / b).exists() for b in bins):
            subprocess.run(
                [
                    "npm",
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--prefix",
                    str(prefix),
                    *(f"{pkg}@{versions[pkg]}" for pkg in pkgs),
                ],
                env=npm_env(),
                check=True,
                timeout=900,
                stdout=subprocess.DEVNULL,
            )


def execpolicy(
    bin_dir: Path, rules: list[Path], argv: list[str], *, cwd: Path, home: Path
) -> str | None:
    """The pinned Codex's own verdict on a command under these rules files, with the
    resolution of program paths Codex applies (`codex execpolicy check
    --resolve-host-executables`): "allow", "prompt" or "forbidden", or None when no rule
    matches (Codex then runs the command in its sandbox)."""
    options = [arg for rule in rules for arg in ("--rules", str(rule))]
    check = [str(bin_dir / "codex"), "execpolicy", "check", "--resolve-host-executables"]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    out = subprocess.run(
        [*check, *options, "--", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"codex execpolicy check failed ({out.returncode}): {out.stderr}")
    verdict = json.loads(out.stdout)
    if not verdict["matchedRules"]:
        assert "decision" not in verdict, verdict
        return None
    return str(verdict["decision"])


def probe_command(log: Path) -> str:
    return f"{sys.executable} {HERE / 'probe_hook.py'} {log}"


def codex_trust_hash(event: str, command: str, matcher: str | None) -> str:
    """The hash Codex 0.171 records when the user trusts a hook (docs/hooks.md "Codex trust")."""
    doc: dict[str, object] = {
        "event_name": SNAKE[event],
        "hooks": [{"async": False, "command": command, "timeout": 600, "type": "command"}],
    }
    if matcher is not None:
        doc["matcher"] = matcher
    raw = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(raw.encode()).hexdigest()


def toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


def write_claude_config(home: Path, projects: list[Path], probe: str, allowed_command: str) -> None:
    """~/.claude.json that skips onboarding, key and folder prompts; settings.json with the
    probe hooks, and `hail` and one more command allowed without a permission dialog."""
    state = {
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": [CLAUDE_API_KEY[-20:]], "rejected": []},
        "projects": {str(p): {"hasTrustDialogAccepted": True} for p in projects},
    }
    (home / ".claude.json").write_text(json.dumps(state, indent=2) + "\n")
    hooks: dict[str, list[dict[str, object]]] = {}
    for event in PROBE_EVENTS:
        group: dict[str, object] = {"hooks": [{"type": "command", "command": probe}]}
        if event == "PostToolUse":
            group = {"matcher": "*", **group}
        hooks[event] = [group]
    allow = [f"Bash({allowed_command}:*)", "Bash(hail:*)"]
    settings = {"permissions": {"allow": allow}, "hooks": hooks}
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")


def write_codex_config(home: Path, projects: list[Path], base_url: str, probe: str) -> None:
    """~/.codex/config.toml with a fake provider (no login), trusted projects, no upsell, and
    the probe hooks already trusted (so no review screen)."""
    codex = home / ".codex"
    codex.mkdir(exist_ok=True)
    path = codex / "config.toml"
    lines = [
        'model = "gpt-5.5"',
        'model_provider = "fake"',
        "check_for_update_on_startup = false",
        "",
        "[model_providers.fake]",
        'name = "Fake"',
        f"base_url = {toml_str(base_url + '/v1')}",
        'wire_api = "responses"',
        'env_key = "OPENAI_API_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
    ]
    for p in projects:
        lines += [f"[projects.{toml_str(str(p))}]", 'trust_level = "trusted"', ""]
    lines += [
        "[features]",
        "hooks = true",
        "",
        # What the TUI writes after "Use existing model"; seeding it skips the upsell.
        "[notice.model_migrations]",
        '"gpt-5.5" = "gpt-6-sol"',
        "",
        "[tui.model_availability_nux]",
        '"gpt-6.1-sol" = 1',
        "",
    ]
    for event in PROBE_EVENTS:
        matcher = ".*" if event == "PostToolUse" else None
        lines.append(f"[[hooks.{event}]]")
        if matcher:
            lines.append(f"matcher = {toml_str(matcher)}")
        lines += [
            f"[[hooks.{event}.hooks]]",
            'type = "command"',
            f"command = {toml_str(probe)}",
            "",
        ]
    for event in PROBE_EVENTS:
        matcher = ".*" if event == "PostToolUse" else None
        key = f"{path}:{SNAKE[event]}:0:0"
        lines += [
            f"[hooks.state.{toml_str(key)}]",
            f"trusted_hash = {toml_str(codex_trust_hash(event, probe, matcher))}",
            "",
        ]
    path.write_text("\n".join(lines))


def write_gemini_config(home: Path, projects: list[Path], probe: str, allowed_command: str) -> None:
    """~/.gemini/settings.json with the API-key login, a fixed model (no model router), no update
    check, `hail` and one more command allowed without a confirmation, and the probe hooks;
    trustedFolders.json trusting the projects (else a trust dialog stops the start)."""
    gemini = home / ".gemini"
    gemini.mkdir(exist_ok=True)
    hooks: dict[str, list[dict[str, object]]] = {}
    for event in PROBE_EVENTS:
        name = EVENT_NAMES["gemini"][event]
        group: dict[str, object] = {"hooks": [{"type": "command", "command": probe}]}
        if name == "AfterTool":
            group = {"matcher": "*", **group}
        hooks[name] = [group]
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "model": {"name": GEMINI_MODEL},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "privacy": {"usageStatisticsEnabled": False},
        "ui": {"hideTips": True},
        "tools": {"allowed": [f"run_shell_command({allowed_command})", "run_shell_command(hail)"]},
        "hooks": hooks,
    }
    (gemini / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    trusted = {str(p): "TRUST_FOLDER" for p in projects}
    (gemini / "trustedFolders.json").write_text(json.dumps(trusted, indent=2) + "\n")


def write_qwen_config(home: Path, base_url: str, probe: str) -> None:
    """~/.qwen/settings.json with a fake OpenAI-compatible provider (no login), no update check or
    statistics, no follow-up suggestions or memory extraction (auxiliary model calls that would
    draw a suggestion into the composer), the wait tool allowed, and the probe hooks
    (docs/real-clients.md "Qwen Code")."""
    qwen = home / ".qwen"
    qwen.mkdir(exist_ok=True)
    hooks: dict[str, list[dict[str, object]]] = {}
    for event in PROBE_EVENTS:
        hooks[event] = [{"hooks": [{"type": "command", "command": probe}]}]
    provider = {
        "id": "fake-model",
        "name": "Fake",
        "baseUrl": base_url + "/v1",
        "envKey": "FAKE_API_KEY",
    }
    settings = {
        "modelProviders": {"openai": [provider]},
        "env": {"FAKE_API_KEY": "sk-fake"},
        "security": {"auth": {"selectedType": "openai"}},
        "model": {"name": "fake-model"},
        "general": {"enableAutoUpdate": False},
        "privacy": {"usageStatisticsEnabled": False},
        "ui": {"enableFollowupSuggestions": False},
        "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
        "permissions": {"allow": ["Bash(wait-release *)"]},
        "hooks": hooks,
    }
    (qwen / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")


def write_copilot_config(home: Path, projects: list[Path], probe: str) -> None:
    """~/.copilot/config.json trusting the projects (else a trust dialog stops the start), and the
    probe hooks in a hooks file of their own beside where hail's goes. Its model and provider come
    from the environment (`World.client_env`)."""
    copilot = home / ".copilot"
    (copilot / "hooks").mkdir(parents=True, exist_ok=True)
    config = {"trustedFolders": [str(p) for p in projects]}
    (copilot / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    hooks = {
        name: [{"type": "command", "bash": f"{probe} --event {name}", "timeoutSec": 30}]
        for name in EVENT_NAMES["copilot"].values()
    }
    doc = {"version": 1, "hooks": hooks}
    (copilot / "hooks" / "probe.json").write_text(json.dumps(doc, indent=2) + "\n")


OPENCODE_PROBE = """\
// Records what opencode hands a plugin, as probe_hook.py does for the command hooks: one JSON
// line per call with hail's event names (SessionStart: the plugin started).
import { appendFileSync } from "node:fs"
const LOG = %(log)s
const log = (event, payload) =>
  appendFileSync(LOG, JSON.stringify({ t: Date.now() / 1000, event, pane: process.env.TMUX_PANE || null, payload }) + "\\n")
export const Probe = async ({ directory }) => {
  log("SessionStart", { cwd: directory })
  return {
    event: async ({ event }) => {
      if (event.type === "session.idle") log("Stop", { session_id: event.properties.sessionID })
    },
    "chat.message": async (input, output) => {
      const prompt = (output.parts || []).filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\\n")
      log("UserPromptSubmit", { session_id: input.sessionID, prompt })
    },
    "tool.execute.after": async (input, output) => {
      log("PostToolUse", { session_id: input.sessionID, tool_name: input.tool, output: output.output })
    },
  }
}
"""


#: The fake model as opencode's config declares it: its window (`limit.context`) and prices (USD
#: per million tokens), which opencode reports to plugins and costs each reply by.
FAKE_OPENCODE_MODEL = {
    "name": "Fake Model",
    "tool_call": True,
    "limit": {"context": 200000, "output": 8000},
    "cost": {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75},
}


def write_opencode_config(config_home: Path, base_url: str, log: Path) -> None:
    """opencode.json with a fake OpenAI-compatible provider as the model, no update or share, and
    the probe plugin beside where hail's goes."""
    config = config_home / "opencode"
    (config / "plugins").mkdir(parents=True, exist_ok=True)
    doc = {
        "$schema": "https://opencode.ai/config.json",
        "model": "fake/fake-model",
        "autoupdate": False,
        "share": "disabled",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": base_url + "/v1", "apiKey": "sk-fake-0000"},
                "models": {"fake-model": FAKE_OPENCODE_MODEL},
            }
        },
    }
    (config / "opencode.json").write_text(json.dumps(doc, indent=2) + "\n")
    probe = OPENCODE_PROBE % {"log": json.dumps(str(log))}
    (config / "plugins" / "probe.js").write_text(probe)


@dataclass
class Agent:
    """One client running in one pane."""

    client: str  # "claude" or "codex"
    pane: str
    cwd: Path
    tmux: ClientTmux
    probe_log: Path
    notes: list[str] = field(default_factory=list)

    def screen(self) -> str:
        return self.tmux.capture(self.pane)

    def hook_calls(self, event: str | None = None) -> list[dict[str, object]]:
        """Probe-hook calls made from this pane (all panes share one probe log); `event` in the
        names of Claude Code's hooks, whatever this client calls it."""
        if not self.probe_log.exists():
            return []
        calls = logged_lines(self.probe_log)
        if event is not None:
            event = EVENT_NAMES.get(self.client, {}).get(event, event)
        return [
            c for c in calls if c["pane"] == self.pane and (event is None or c["event"] == event)
        ]

    def prompts(self) -> list[str]:
        """The prompts UserPromptSubmit carried, oldest first."""
        out: list[str] = []
        for call in self.hook_calls("UserPromptSubmit"):
            payload = call["payload"]
            if isinstance(payload, dict):
                out.append(str(payload.get("prompt", "")))
        return out

    def is_ready(self) -> bool:
        screen = self.screen()
        if any(s in screen for s in BUSY):
            return False
        if self.client == "claude":
            return any(line.startswith(CLAUDE_COMPOSER) for line in screen.splitlines())
        if self.client == "gemini":
            return hail_screen.classify(screen.splitlines()).state == hail_screen.IDLE
        if self.client in ("opencode", "qwen", "copilot"):
            return hail_screen.classify(screen.splitlines()).state == hail_screen.IDLE
        lines = [line for line in screen.splitlines() if line.strip()]
        return CODEX_FOOTER in "\n".join(lines[-3:]) and any(
            line.startswith(CODEX_PROMPT) for line in lines[-6:]
        )

    def is_busy(self) -> bool:
        """A turn runs, as hail's own screen reading sees it."""
        verdict = hail_screen.classify(self.screen().splitlines())
        return verdict.state in (hail_screen.BUSY, hail_screen.QUEUED)

    def wait_ready(self, timeout: float | None = None) -> None:
        """Wait for an idle composer (and, but for Codex, for its SessionStart hook or plugin to
        have run). opencode's first start sets up its database: up to half a minute here."""
        timeout = timeout or START_LIMIT.get(self.client, 30)

        def ready() -> bool:
            screen = self.screen()
            if self.client == "codex" and CODEX_UPSELL in screen:
                # Model names in the upsell change between releases; decline it like a user.
                self.notes.append("codex showed the model upsell despite the seeded notice")
                self.tmux.cmd("send-keys", "-t", self.pane, "2")
                return False
            stuck = [s for s in STUCK_SCREENS if s in screen]
            if stuck:
                raise AssertionError(f"{self.client} stopped at {stuck[0]!r}:\n{screen}")
            # Codex and Copilot CLI run their first hook at the first prompt.
            if self.client not in ("codex", "copilot") and not self.hook_calls("SessionStart"):
                return False
            return self.is_ready()

        if not wait_until(ready, timeout):
            raise AssertionError(f"{self.client} in {self.pane} never got ready:\n{self.screen()}")

    def wait_stops(self, count: int, timeout: float = 30) -> None:
        """Wait until the client has ended ``count`` turns (the Stop hook ran that often)."""
        if not wait_until(lambda: len(self.hook_calls("Stop")) >= count, timeout):
            raise AssertionError(
                f"{self.client} ended {len(self.hook_calls('Stop'))} turns, wanted {count}:\n"
                + self.screen()
            )


def launch(
    tmux: ClientTmux,
    client: str,
    cwd: Path,
    bin_dir: Path,
    probe_log: Path,
    env: dict[str, str],
    daemon: bool = False,
) -> Agent:
    """Start a client in a new window of the scratch server.

    Claude runs with ``--permission-mode default``: 2.1.332 defaults to auto mode, which would
    never show the permission dialog the guard scenario needs. Codex runs with ``--no-daemon``
    unless ``daemon``: with it every session's hooks run under one shared daemon with the first
    pane's ``TMUX_PANE``, and that daemon outlives its TUI, so the world ends it by pid
    (docs/real-clients.md "Codex daemon").
    """
    if client == "claude":
        argv = [str(bin_dir / "claude"), "--permission-mode", "default"]
    elif client == "codex":
        argv = [str(bin_dir / "codex")] + ([] if daemon else ["--no-daemon"])
    else:
        argv = [str(bin_dir / client)]
    if "PATH" in env:
        # tmux's `new-window -e PATH=…` does not reach the command it starts (tmux 3.3a): set it
        # on the command line, so the client really runs with that PATH.
        argv = ["/usr/bin/env", f"PATH={env['PATH']}", *argv]
    pane = tmux.new_window(cwd, argv, env)
    return Agent(client, pane, cwd, tmux, probe_log)
