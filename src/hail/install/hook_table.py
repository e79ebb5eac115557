"""hail's hooks per harness, read from `data/harness_hooks.json`: the one definition of what `hail setup`
installs and what the Home Manager module (`nix/hooks.nix`) installs.

Each hook is an event, hail's arguments, and a group matcher when the harness needs one. The JSON
file ships inside the package (`src/hail/data/`), and the Nix module reads the same file from the
source tree, so the two installers cannot drift apart (`tests/unit/test_hook_table.py`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from typing import cast

from hail.harnesses import registry

#: A harness's id, one of `registry.NAMES`.
HarnessName = str

#: In the package's `data/`, where the Nix module reads it from the source tree.
TABLE_PATH = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "harness_hooks.json"
)

#: The program hook commands name when the caller gives none: `hail` from the harness's PATH.
DEFAULT_PROGRAM = "hail"


@dataclass(frozen=True)
class HookSpec:
    """One of hail's hooks: a command handler for `event` running `<program> <args…>`."""

    event: str
    args: tuple[str, ...]
    matcher: str | None
    #: What the hook is for, in a few words (setup's comment above it in Codex's TOML).
    note: str
    #: The handler's keys besides `type` and `command` (the waiter's `asyncRewake`, `timeout`, …).
    handler: tuple[tuple[str, object], ...] = ()

    def command(self, program: str = DEFAULT_PROGRAM) -> str:
        return " ".join((program, *self.args))


@cache
def hook_specs(harness: HarnessName) -> tuple[HookSpec, ...]:
    """hail's hooks for a harness, in the order setup writes and reports them."""
    with open(TABLE_PATH, encoding="utf-8") as f:
        table = json.load(f)
    return tuple(
        HookSpec(
            event=str(entry["event"]),
            args=tuple(str(a) for a in entry["args"]),
            matcher=cast("str | None", entry.get("matcher")),
            note=str(entry.get("note", "")),
            handler=tuple(cast("dict[str, object]", entry.get("handler", {})).items()),
        )
        for entry in table[harness]
    )


def hook_spec(harness: HarnessName, event: str) -> HookSpec:
    """hail's hook for one event of a harness."""
    return next(spec for spec in hook_specs(harness) if spec.event == event)


#: The harnesses whose hooks have hail's own event names (`shared_events`).
_HARNESSES: tuple[HarnessName, ...] = tuple(h.name for h in registry.every() if h.shared_events)
#: The events hail installs hooks for, in the order setup writes and reports them; those
#: `hail deliver --event` takes are `argv.DELIVER_EVENTS`.
HOOKED_EVENTS = tuple(dict.fromkeys(s.event for h in _HARNESSES for s in hook_specs(h)))


def wanted_hooks(harness: HarnessName, program: str = DEFAULT_PROGRAM) -> dict[str, str]:
    """The hooks hail installs for a harness, the first of each event: event → command running
    `program` (`data/harness_hooks.json`). Those that run beside them are `beside_specs`."""
    return {
        spec.event: spec.command(program) for spec in hook_specs(harness) if not is_beside(spec)
    }


def is_beside(spec: HookSpec) -> bool:
    """A hook of hail's that runs beside an earlier one of the same event, told apart by its own
    verb (Claude Code's waiter, `hail listen`, beside SessionStart's brief and Stop's deliver)."""
    for harness in _HARNESSES:
        specs = hook_specs(harness)
        if spec in specs:
            return any(s.event == spec.event for s in specs[: specs.index(spec)])
    return False


def beside_specs(harness: HarnessName) -> tuple[HookSpec, ...]:
    return tuple(spec for spec in hook_specs(harness) if is_beside(spec))


def hook_groups(
    harness: HarnessName, program: str = DEFAULT_PROGRAM
) -> dict[str, list[dict[str, object]]]:
    """hail's hooks as the harness's own `hooks` value: event → the one group hail adds.

    The shape both harnesses read (Claude Code's settings.json, Codex's hooks.json and
    config.toml), and exactly what `nix/hooks.nix` produces for the same program.
    """
    groups: dict[str, list[dict[str, object]]] = {}
    for spec in hook_specs(harness):
        group: dict[str, object] = {} if spec.matcher is None else {"matcher": spec.matcher}
        group["hooks"] = [
            {"type": "command", "command": spec.command(program), **dict(spec.handler)}
        ]
        groups.setdefault(spec.event, []).append(group)
    return groups
