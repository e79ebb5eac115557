"""A stand-in coding agent for `hail demo`: a one-line composer on a raw tty that runs a prompt hook.

Like Claude Code, it draws its input line as `❯` + NBSP, submits on Enter, and before "answering"
runs the configured UserPromptSubmit hook command (`hail deliver --format claude`) with the JSON
payload on stdin, then shows the `additionalContext` the hook injected. It needs no network and no
model; it exists so the demo shows the real transport and hook path end to end.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import termios
import tty

PROMPT = "❯\u00a0"


def _out(text: str) -> None:
    os.write(1, text.replace("\n", "\r\n").encode("utf-8"))


def _redraw(text: str) -> None:
    _out("\r\x1b[2K" + PROMPT + text)


def _payload(prompt: str) -> bytes:
    """Claude Code's UserPromptSubmit payload: a session of its own per stand-in, and the transcript
    `HAIL_DEMO_TRANSCRIPT` names, when it names one (the stand-in writes none itself)."""
    payload = {
        "session_id": f"hail-demo-{os.getpid()}",
        "cwd": os.getcwd(),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
        "permission_mode": "default",
    }
    transcript = os.environ.get("HAIL_DEMO_TRANSCRIPT")
    if transcript:
        payload["transcript_path"] = transcript
    return json.dumps(payload).encode("utf-8")


def run_hook(command: str, prompt: str) -> str:
    """The hook's additionalContext ("" when it printed nothing or failed)."""
    # The payload is a file, not a pipe: the hook reads it as it is, with no wait.
    with tempfile.TemporaryFile() as payload:
        payload.write(_payload(prompt))
        payload.seek(0)
        try:
            proc = subprocess.run(
                command, shell=True, stdin=payload, capture_output=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            return f"(hook failed: {err})"
    text = proc.stdout.decode("utf-8", errors="replace").strip()
    if not text:
        return ""
    try:
        data = json.loads(text)
        context = data["hookSpecificOutput"]["additionalContext"]
    except (ValueError, KeyError, TypeError):
        return text
    return context if isinstance(context, str) else ""


def submit(hook: str, prompt: str) -> None:
    _out("\n" + "❯ " + prompt + "\n")
    context = run_hook(hook, prompt)
    if context:
        _out("  ⎿ hook context:\n")
        for line in context.split("\n"):
            _out("    │ " + line + "\n")
    else:
        _out("  ⎿ hook context: (none)\n")
    _out("● (stand-in agent) noted.\n")


def main() -> int:
    hook = os.environ.get("HAIL_DEMO_HOOK", "hail deliver --format claude")
    if not os.isatty(0):
        sys.stderr.write("hail demo agent: needs a terminal\n")
        return 1
    saved = termios.tcgetattr(0)
    tty.setraw(0)
    try:
        _out(f"stand-in agent in {os.getcwd()}\nprompt hook: {hook}\n")
        _loop(hook)
    finally:
        termios.tcsetattr(0, termios.TCSADRAIN, saved)
    return 0


def _loop(hook: str) -> None:
    text = ""
    _redraw(text)
    while True:
        select.select([0], [], [])
        data = os.read(0, 65536).decode("utf-8", errors="replace")
        if not data or "\x03" in data or "\x04" in data:
            return
        for ch in data:
            if ch == "\r":
                if text.strip():
                    submit(hook, text.strip())
                text = ""
            elif ch in "\x7f\b":
                text = text[:-1]
            elif ch.isprintable():
                text += ch
        _redraw(text)


if __name__ == "__main__":
    sys.exit(main())
