"""Codex's trust in a hook [docs/hooks.md "Codex trust"]: the key it files a handler's trust under,
the hash it records, and where hail's handlers sit in a config of either format. Pure.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping, MutableMapping, MutableSequence
from dataclasses import dataclass
from typing import cast

from hail.harnesses.codex import HARNESS as CODEX
from hail.install.hook_table import wanted_hooks
from hail.install.recognise import HandlersOf, handler_command

#: What Codex hashes for a handler that names no timeout (observed on 0.171) [docs/hooks.md
#: "Codex trust"].
CODEX_DEFAULT_TIMEOUT = 600


def snake_event(event: str) -> str:
    """`PostToolUse` → `post_tool_use`, the event spelling in Codex's trust keys."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def codex_trust_hash(
    event: str, command: str, *, matcher: str | None = None, timeout: int = CODEX_DEFAULT_TIMEOUT
) -> str:
    """The `trusted_hash` Codex records for one command handler [docs/hooks.md "Codex trust"].

    SHA-256 of the compact, sorted-key JSON of the event in snake case, the handler as Codex
    normalises it (not async, its timeout, 600 by default), and the group's matcher when it has one.
    """
    identity: dict[str, object] = {
        "event_name": snake_event(event),
        "hooks": [{"async": False, "command": command, "timeout": timeout, "type": "command"}],
    }
    if matcher is not None:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def codex_trust_key(config_path: str, event: str, group: int, handler: int) -> str:
    """The `[hooks.state."…"]` key Codex files a handler's trust under (zero-based indexes)."""
    return f"{config_path}:{snake_event(event)}:{group}:{handler}"


@dataclass(frozen=True)
class CodexHook:
    """Where one of hail's wanted handlers sits in a Codex config, and what Codex would hash."""

    event: str
    group: int
    handler: int
    command: str
    matcher: str | None
    timeout: int

    def key(self, config_path: str) -> str:
        return codex_trust_key(config_path, self.event, self.group, self.handler)

    def trusted_hash(self) -> str:
        return codex_trust_hash(
            self.event, self.command, matcher=self.matcher, timeout=self.timeout
        )


def wanted_codex_hooks(
    hooks: Mapping[str, object], program: str, handlers_of: HandlersOf
) -> Iterator[CodexHook]:
    """Each of hail's wanted handlers present in `hooks` (exact command), with its place: the
    `hooks` of config.toml or of hooks.json, whose groups `handlers_of` reads."""
    for event, cmd in wanted_hooks(CODEX.name, program).items():
        groups = hooks.get(event)
        if not isinstance(groups, MutableSequence):
            continue
        for gi, group in enumerate(groups):
            for hi, handler in enumerate(handlers_of(group) or ()):
                if handler_command(handler) != cmd:
                    continue
                assert isinstance(group, MutableMapping)
                matcher = group.get("matcher")
                timeout = cast(MutableMapping[str, object], handler).get("timeout")
                yield CodexHook(
                    event=event,
                    group=gi,
                    handler=hi,
                    command=cmd,
                    matcher=str(matcher) if isinstance(matcher, str) else None,
                    timeout=(
                        int(timeout)
                        if isinstance(timeout, int) and not isinstance(timeout, bool)
                        else CODEX_DEFAULT_TIMEOUT
                    ),
                )
