"""Shared tools of the stress suite: spawning hail, reading framed deliveries, snapshots, figures.

Every stress test is bounded: a fixed number of processes or examples and a deadline, so the whole
suite stops by itself within a few minutes on a 2-core machine. The figures each test gathers
(messages, processes, kills, fuzz cases, lost, doubled) are printed at the end of the run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.entry import hail_bin
from tests.support.world import World

PREAMBLE_RE = re.compile(r"^hail: (\d+) peer messages?, framed by token ([0-9a-f]{8,16}): ")
START_RE = re.compile(r"^\[hail:([0-9a-f]{8,16}) \S+ .*?\bid:([^\s\]]+)(?:\]$|[\] ])")
END_RE = re.compile(r"^\[/hail:([0-9a-f]{8,16})\]$")

_FIGURES: list[str] = []


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _FIGURES:
        terminalreporter.section("stress figures")
        for line in _FIGURES:
            terminalreporter.write_line(line)


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> Callable[..., None]:
    """Record `name: key=value …` for the end-of-run summary."""

    def record(**values: object) -> None:
        parts = " ".join(f"{k}={v}" for k, v in values.items())
        _FIGURES.append(f"{request.node.name}: {parts}")

    return record


def env_of(world: World, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return {**world.env, **(extra or {})}


def spawn(
    world: World,
    *args: str,
    cwd: str | Path = "boss",
    stdin: int | None = subprocess.DEVNULL,
    stdout: int | None = subprocess.PIPE,
    env: Mapping[str, str] | None = None,
    **kw: Any,
) -> subprocess.Popen[bytes]:
    """Start the installed hail without waiting for it."""
    where = cwd if isinstance(cwd, Path) else world.root / cwd
    return subprocess.Popen(
        [hail_bin(), *args],
        cwd=where,
        env=env_of(world, env),
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        **kw,
    )


def context_of(stdout: str) -> str:
    """The delivered text: the additionalContext of hook JSON, or the plain text itself."""
    text = stdout.strip("\n")
    if text.startswith("{"):
        data = json.loads(text)
        context = data["hookSpecificOutput"]["additionalContext"]
        assert isinstance(context, str)
        return context
    return text


@dataclass
class Delivery:
    """One framed delivery: its token and, per frame, the id and the lines between start and end."""

    token: str
    frames: list[tuple[str, list[str]]]


def parse_delivery(text: str) -> Delivery | None:
    """Split a framed delivery into frames, checking the structure of docs/envelope-and-frames.md
    "Frames" as it goes.

    Only lines carrying this delivery's token count as frame lines; everything else must lie inside
    a frame (or be the trailing `(… more unread …)` line or a `receipt:` line between frames).
    """
    lines = text.split("\n")
    if not lines or lines == [""] or lines == ["(inbox empty)"]:
        return None
    m = PREAMBLE_RE.match(lines[0])
    assert m, f"no preamble: {lines[0]!r}"
    count, token = int(m.group(1)), m.group(2)
    frames: list[tuple[str, list[str]]] = []
    current: tuple[str, list[str]] | None = None
    for line in lines[1:]:
        start = START_RE.match(line)
        if start and start.group(1) == token:
            assert current is None, f"a start line inside a frame: {line!r}"
            current = (start.group(2), [])
            continue
        end = END_RE.match(line)
        if end and end.group(1) == token:
            assert current is not None, f"an end line outside a frame: {line!r}"
            frames.append(current)
            current = None
            continue
        if current is not None:
            current[1].append(line)
        else:
            assert line.startswith(("receipt: ", "(")), f"text outside any frame: {line!r}"
    assert current is None, "a frame was never closed"
    assert len(frames) == count, (len(frames), count)
    return Delivery(token, frames)


def delivered_ids(stdout: str) -> list[str]:
    d = parse_delivery(context_of(stdout))
    return [] if d is None else [msg_id for msg_id, _ in d.frames]


def tree(root: Path) -> dict[str, tuple[int, int, bytes | str]]:
    """Every path under `root` (root included) → (mode, size, content or link target)."""
    out: dict[str, tuple[int, int, bytes | str]] = {}
    if not os.path.lexists(root):
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames, ""]:
            p = os.path.join(dirpath, name) if name else dirpath
            st = os.lstat(p)
            if os.path.islink(p):
                out[p] = (st.st_mode, 0, os.readlink(p))
            elif os.path.isdir(p):
                out[p] = (st.st_mode, 0, b"")
            else:
                with open(p, "rb") as f:
                    out[p] = (st.st_mode, st.st_size, f.read())
    return out


def message_files(state: Path, sub: str) -> list[Path]:
    """Files in every mailbox's `sub` directory (`new`, `cur` or `tmp`), hidden ones included."""
    seats = state / "seats"
    if not seats.is_dir():
        return []
    return sorted(p for box in seats.iterdir() for p in (box / sub).glob("*") if p.is_file())


def know(world: World, *seats: str) -> None:
    """Make seats known (their mailbox directory exists) by running a hand deliver there."""
    for seat in seats:
        world.make_seat(seat)
        r = world.run("deliver", cwd=seat)
        assert r.returncode == 0, r.stderr


@pytest.fixture
def umask() -> Iterator[Callable[[int], None]]:
    """Set the umask the hail subprocesses inherit; restored after the test."""
    old = os.umask(0o022)
    os.umask(old)

    def set_mask(mask: int) -> None:
        os.umask(mask)

    yield set_mask
    os.umask(old)
