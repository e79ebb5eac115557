"""A stand-in agent that shows a captured screen and then does nothing: `still_screen.py FILE`
prints FILE's bytes (a capture with its attributes) and sleeps until it is killed. Started under an
agent's name (`script_command`), it gives the send a screen to judge and a process to route to."""

from __future__ import annotations

import os
import sys
import time


def main(path: str) -> None:
    with open(path, "rb") as f:
        os.write(1, f.read())
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main(sys.argv[1])
