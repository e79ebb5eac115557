"""A stand-in agent waiting on a permission dialog: `dialog_screen.py SCREEN OTHER LOG` prints
SCREEN's bytes (a real client's dialog, captured with its attributes), then reads its terminal in
raw mode and appends every byte it receives to LOG, as the key a dialog would take. On SIGUSR1 it
clears its screen and prints OTHER instead: the dialog changed while a person was looking at it.
Started under an agent's name (`script_command`), its screen is captured and judged as that
client's."""

from __future__ import annotations

import os
import signal
import sys
import termios
import tty


def main(screen: str, other: str, log: str) -> None:
    def show(path: str) -> None:
        with open(path, "rb") as f:
            # Raw mode sends a line feed alone: a carriage return starts each line again.
            os.write(1, b"\x1b[2J\x1b[H" + f.read().replace(b"\n", b"\r\n"))

    signal.signal(signal.SIGUSR1, lambda *_: show(other))
    tty.setraw(0, termios.TCSANOW)  # a key arrives alone, without echo: as a client reads it
    show(screen)
    open(log, "ab").close()
    while True:
        try:
            data = os.read(0, 64)
        except InterruptedError:
            continue
        if not data:
            return
        with open(log, "ab") as f:
            f.write(data)


if __name__ == "__main__":
    main(*sys.argv[1:4])
