#!/usr/bin/env python3
"""Bytes a message costs the recipient's context, per delivery path, measured on the installed hail.

hail exists because relayed text costs context on every later request of the recipient, so what a
message adds beyond its own words is measured here, path by path, for a short and a long message,
each headline-only and with a body:

- typed + UserPromptSubmit: the envelope typed into the pane becomes the prompt, and the prompt hook
  (`deliver --format claude`, given Claude Code's payload with that prompt) adds the frame;
- PostToolUse: the hook after a tool call (`--event PostToolUse`): the path of a busy agent, or of a
  quiet fyi that is never typed (an ask typed meanwhile adds its envelope as a later prompt);
- Stop: the hook at the end of a turn (`--event Stop`), when this hail has it;
- hail inbox: the framed text an agent prints by hand;
- SessionStart brief: what `brief --hook` says about the message while it waits unread, before the
  same session's first prompt hook delivers it.

Each cell is the bytes (UTF-8, newlines counted) that reach the model, and in parentheses what they
add beyond the headline and body. The harness's own wrapping (Claude Code's "UserPromptSubmit hook
additional context: ", Codex's developer message) is not counted. Every run uses a scratch HOME and
state; nothing is typed anywhere (the sends use --no-wake, and the envelope is rendered by hail's
own envelope code from the stored message).

    python scripts/context_cost.py            # the table
    python scripts/context_cost.py --hail PATH
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import SCRUBBED, find_hail

SENDER = "api-1a"
RECIPIENT = "api-1b"


@dataclass(frozen=True)
class Variant:
    name: str
    headline: str
    body: str | None

    @property
    def content(self) -> int:
        """The message's own words: the headline, and the body when it has one."""
        return len(self.headline.encode()) + len(self.body.encode() if self.body else b"")


SHORT = "review auth.ts"  # 15 bytes with the final period below; its body 18 bytes
LONG = "Review src/auth.ts before the merge; reply with your verdict!"  # 62 bytes; its body 111
VARIANTS = (
    Variant("short, headline only", SHORT + ".", None),
    Variant("short, with body", SHORT + ".", "token refresh, L40"),
    Variant("long, headline only", LONG + ".", None),
    Variant(
        "long, with body",
        LONG + ".",
        "The change is on the auth-rework branch; the risky part is token refresh.\n"
        "Run just test-auth before you answer.",
    ),
)


class World:
    """A scratch HOME and state with two seats; runs the installed hail there."""

    def __init__(self, root: Path, hail: str) -> None:
        self.hail = hail
        self.home = root / "home"
        self.seats = {name: self.home / name for name in (SENDER, RECIPIENT)}
        for name, path in self.seats.items():
            path.mkdir(parents=True)
            (path / ".hail-seat").write_text(name + "\n")
        env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
        env.update(
            HOME=str(self.home),
            XDG_STATE_HOME=str(root / "state"),
            HAIL_SOCKET="/nonexistent/socket",
        )
        self.env = env
        self.state = root / "state" / "hail"
        self.run(["whoami"], RECIPIENT)  # binds the recipient's seat, so it may be addressed

    def run(self, args: list[str], seat: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.hail, *args],
            cwd=self.seats[seat],
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def send(self, v: Variant) -> str:
        text = v.headline + (f"\n\n{v.body}" if v.body else "") + "\n"
        r = self.run([RECIPIENT, "ask", "--no-wake"], SENDER, stdin=text)
        if r.returncode != 5 or not r.stdout.startswith("id="):
            raise SystemExit(f"send failed ({r.returncode}): {r.stderr.strip()}")
        return r.stdout.strip().removeprefix("id=")

    def envelope(self, msg_id: str) -> str:
        """The line a send types for this message, rendered by hail's envelope code."""
        from hail import envelope
        from hail.message import parse

        path = self.state / "seats" / RECIPIENT / "new" / f"{msg_id}.md"
        msg = parse(path.read_text())
        head = envelope.Head(
            kind=msg.kind,
            sender=msg.get("from"),
            reply=msg.get("reply"),
            id=msg.id,
            headline=msg.headline,
            re=msg.get("re"),
            scope=msg.get("scope"),
            until=msg.get("until"),
        )
        return envelope.render(head, has_body=msg.has_body)

    def hook(self, event: str, payload: dict[str, object]) -> str | None:
        """The context a hook adds, or None when this hail has no such event."""
        args = ["deliver", "--format", "claude"]
        if event != "UserPromptSubmit":
            args += ["--event", event]
        r = self.run(args, RECIPIENT, stdin=json.dumps(payload))
        if r.returncode != 0:
            return None
        return context_of(r.stdout)

    def clear(self) -> None:
        """Leave no unread mail behind, so the next measurement sees one message only."""
        self.run(["inbox"], RECIPIENT)


def context_of(stdout: str) -> str:
    """The text a hook's JSON carries to the model (additionalContext, or a Stop hook's reason)."""
    if not stdout.strip():
        return ""
    out = json.loads(stdout)
    specific = out.get("hookSpecificOutput") or {}
    if "additionalContext" in specific:
        return str(specific["additionalContext"])
    return str(out.get("reason", ""))


def payload(event: str, cwd: Path, **extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "session_id": "00000000-0000-0000-0000-000000000000",
        "transcript_path": str(cwd / "transcript.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": event,
        "permission_mode": "default",
    }
    base.update(extra)
    return base


#: The prompt Claude Code 2.1.332 gives the turn a waiter woke (docs/real-clients.md "Claude Code
#: asyncRewake"): its own notice, not the envelope.
WOKEN_PROMPT = (
    "<task-notification>\n<summary>hail: new mail</summary>\n</task-notification>\n"
    "<system-reminder>\nhail: new mail below (else: hail inbox)\n</system-reminder>"
)


def woken_text() -> str:
    """What hail's waiter adds: the hook's `rewakeMessage`, a space, and its line."""
    from hail.hooks.listen import WAKE_LINE
    from hail.install.hook_table import hook_specs

    waiter = next(s for s in hook_specs("claude") if s.args[0] == "listen")
    return f"{dict(waiter.handler)['rewakeMessage']} {WAKE_LINE}"


def size(text: str) -> int:
    return len(text.encode())


@dataclass
class Row:
    variant: Variant
    envelope: int
    paths: dict[str, int | None]
    framing: int = 0
    preamble: int = 0
    #: Whether the prompt hook's frame repeated the headline of the envelope given as the prompt.
    repeats_headline: bool = False


def measure(world: World) -> list[Row]:
    rows: list[Row] = []
    cwd = world.seats[RECIPIENT]
    for v in VARIANTS:
        paths: dict[str, int | None] = {}
        msg_id = world.send(v)
        line = world.envelope(msg_id)
        brief = world.run(["brief", "--hook"], RECIPIENT).stdout
        paths["SessionStart brief"] = size(brief)
        prompt = payload("UserPromptSubmit", cwd, prompt=line, prompt_id="p1")
        context = world.hook("UserPromptSubmit", prompt) or ""
        paths["typed + UserPromptSubmit"] = size(line) + size(context)
        world.clear()

        # Woken by the waiter: its line after the hook's rewakeMessage, then the woken turn's
        # prompt hook, whose prompt is Claude Code's notice (so the frame keeps its headline).
        world.send(v)
        notice = payload("UserPromptSubmit", cwd, prompt=WOKEN_PROMPT, prompt_id="p2")
        woken = world.hook("UserPromptSubmit", notice) or ""
        paths["woken + UserPromptSubmit"] = size(woken_text()) + size(woken)
        preamble = size(context.split("\n", 1)[0]) + 1
        framing = size(context) - preamble - (size(v.body) if v.body else 0)
        repeats = v.headline in context
        if repeats:
            framing -= size(v.headline)

        world.send(v)
        tool = payload(
            "PostToolUse",
            cwd,
            tool_name="Bash",
            tool_input={"command": "just test", "description": "run the tests"},
            tool_response={"stdout": "ok\n", "stderr": "", "interrupted": False},
            tool_use_id="toolu_01",
        )
        paths["PostToolUse"] = size(world.hook("PostToolUse", tool) or "")

        world.send(v)
        # A session of its own per Stop, so the hook's loop guard (a few blocks in a row) never
        # stops a measurement.
        session = f"00000000-0000-0000-0000-{len(rows):012d}"
        stop = payload(
            "Stop", cwd, session_id=session, stop_hook_active=False, last_assistant_message="done"
        )
        stopped = world.hook("Stop", stop)
        paths["Stop"] = None if stopped is None else size(stopped)
        world.clear()

        world.send(v)
        paths["hail inbox"] = size(world.run(["inbox"], RECIPIENT).stdout)
        rows.append(Row(v, size(line), paths, framing, preamble, repeats))
    return rows


def cell(total: int | None, content: int) -> str:
    if total is None:
        return "n/a"
    if total == 0:
        return "0"
    return f"{total} (+{total - content})"


def print_table(rows: list[Row]) -> None:
    paths = list(rows[0].paths)
    header = ["message", "content", "envelope", *paths]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        content = r.variant.content
        print(
            "| "
            + " | ".join(
                [
                    r.variant.name,
                    str(content),
                    str(r.envelope),
                    *(cell(r.paths[p], 0 if p == "SessionStart brief" else content) for p in paths),
                ]
            )
            + " |"
        )
    print()
    short = rows[0]
    with_body = rows[1]
    print(f"preamble, once per delivery: {short.preamble} bytes")
    print(
        f"framing of one message beyond its headline and body: {with_body.framing} bytes with a "
        f"body, {short.framing} headline-only (UserPromptSubmit, kind ask, from {SENDER}, "
        "16-character id)"
    )
    envelope_fixed = short.envelope - size(short.variant.headline)
    print(
        f"envelope beyond its headline: {envelope_fixed} bytes (kind ask, from {SENDER}, "
        "16-character id); with a body the fetch hint adds "
        f"{with_body.envelope - size(with_body.variant.headline) - envelope_fixed}"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    p.add_argument("--hail", help="the hail entry point (default: beside this interpreter)")
    args = p.parse_args(argv)
    hail = find_hail(args.hail)
    with tempfile.TemporaryDirectory(prefix="hail-context-") as tmp:
        world = World(Path(tmp), hail)
        print_table(measure(world))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
