"""A hook that records what the client ran it with, installed beside hail's own hooks.

``probe_hook.py <log> [--context] [--event NAME]`` appends one JSON line per call to ``<log>``:
the stdin payload the client sent, ``TMUX_PANE`` and the time; the event is the payload's
``hook_event_name``, else ``NAME`` (Copilot CLI's camelCase payloads name none). It prints nothing, so it adds nothing to the
model's context, unless ``--context`` asks it to print a marker as additionalContext (the
harness self-test uses that to show that context reaches the fake model).

The tests read it to know when Claude Code ran SessionStart (the composer can be drawn before
that), what prompt a UserPromptSubmit carried, and when a turn stopped. It always exits 0.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time

CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse")
#: Both clients close stdin after the payload, so this is only the bound on a client that never
#: writes one.
PAYLOAD_WAIT = 10.0


def main(argv: list[str]) -> int:
    payload: object = None
    try:
        # The client writes the payload after starting the hook, and on a loaded machine that can
        # take a while: a payload missed here is a turn or a prompt the tests never see.
        if select.select([0], [], [], PAYLOAD_WAIT)[0]:
            raw = sys.stdin.buffer.read()
            payload = json.loads(raw) if raw.strip() else None
    except (OSError, ValueError):
        payload = None
    event = payload.get("hook_event_name") if isinstance(payload, dict) else None
    if event is None and "--event" in argv[2:-1]:
        event = argv[argv.index("--event") + 1]
    entry = {
        "t": time.time(),
        "event": event,
        "pane": os.environ.get("TMUX_PANE"),
        "payload": payload,
    }
    # One write to an O_APPEND file: a line never splits or interleaves with another pane's hook,
    # whatever its size (a buffered file writes a long one in pieces).
    fd = os.open(argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8"))
    finally:
        os.close(fd)
    # Only events whose context the model sees; a Stop hook's output would start another turn.
    if "--context" in argv[2:] and event in CONTEXT_EVENTS:
        marker = f"PROBE-CONTEXT event={event}"
        out = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": marker}}
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
