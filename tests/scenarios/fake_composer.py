"""A fake agent composer on a raw tty, for the transport scenarios (Enter only after this envelope
was seen, Codex holding, and the paste test).

Modes:

- `spec28`: prints an older envelope, reads nothing for 1.5 s, then: a CR arriving in the same read
  as other bytes prints `COMPOSER <text>` (a paste), a lone CR prints `SUBMITTED <text>`.
- `paste`: a CR within `--window` seconds of the previous byte is a newline inside a paste (the
  text stays in the input, `PASTED-NEWLINE` is printed); a CR after a quiet gap submits.
- `codex`: like Codex 0.171. Idle: Enter submits (`SUBMITTED <text>`) and clears the input. After
  it submits `go-busy`, it is busy for good: it shows `Messages to be submitted after next tool
  call` above its input line and keeps the text (and the Enter) in the input, until a Ctrl-D ends
  its turn: the screen is cleared to an idle composer.
- `stuck`: looks like an idle Codex composer, but Enter never submits: the text stays in it.

The input line is redrawn at the bottom as `› <text>`, like a real composer.
"""

from __future__ import annotations

import argparse
import os
import select
import sys
import termios
import time
import tty

OLDER = "[hail kind:ask from:boss/{pane} reply:boss id:1001T000000-0000] an older ask"
QUEUE_HINT = (
    "• Messages to be submitted after next tool call (press esc to interrupt and send immediately)"
)


def out(text: str) -> None:
    os.write(1, text.encode("utf-8"))


def draw_input(text: str) -> None:
    """Redraw the input line in place."""
    out("\r\x1b[2K› " + text)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["spec28", "paste", "codex", "stuck"])
    parser.add_argument("--window", type=float, default=0.2)
    parser.add_argument("--pane", default=os.environ.get("TMUX_PANE", "%0"))
    args = parser.parse_args()
    old = termios.tcgetattr(0)
    tty.setraw(0)
    try:
        if args.mode == "spec28":
            out(OLDER.format(pane=args.pane) + "\r\n")
            time.sleep(1.5)
        out("READY\r\n")
        loop(args.mode, args.window)
    finally:
        termios.tcsetattr(0, termios.TCSADRAIN, old)
    return 0


def loop(mode: str, window: float) -> None:
    text = ""
    busy = False
    last = 0.0
    draw_input(text)
    while True:
        ready, _, _ = select.select([0], [], [])
        if not ready:
            continue
        data = os.read(0, 65536).decode("utf-8", errors="replace")
        if not data:
            return
        now = time.monotonic()
        if "\x03" in data:
            return
        if mode == "spec28":
            text = spec28(data, text)
        elif mode == "paste":
            text = paste(data, text, now - last < window)
        elif mode == "stuck":
            text += data.replace("\r", "")
        else:
            text, busy = codex(data, text, busy)
        last = now
        draw_input(text)


def spec28(data: str, text: str) -> str:
    if data == "\r":
        out("\r\nSUBMITTED " + text + "\r\n")
        return ""
    if "\r" in data:
        before, _, after = data.partition("\r")
        out("\r\nCOMPOSER " + text + before + "\r\n")
        return after
    return text + data


def paste(data: str, text: str, burst: bool) -> str:
    for ch in data:
        if ch == "\r":
            if burst or len(data) > 1:
                out("\r\nPASTED-NEWLINE " + text + "\r\n")
                text += " "
            else:
                out("\r\nSUBMITTED " + text + "\r\n")
                text = ""
        else:
            text += ch
    return text


def codex(data: str, text: str, busy: bool) -> tuple[str, bool]:
    for ch in data:
        if ch == "\x04" and busy:
            out("\x1b[2J\x1b[HTURN-ENDED\r\n")
            text, busy = "", False
        elif ch != "\r":
            text += ch
        elif busy:
            # A busy Codex keeps the text: it will be submitted after the next tool call.
            continue
        else:
            out("\r\n› " + text.rstrip() + "\r\nSUBMITTED " + text + "\r\n")
            if text.strip() == "go-busy":
                busy = True
                out(QUEUE_HINT + "\r\n")
            text = ""
    return text, busy


if __name__ == "__main__":
    sys.exit(main())
