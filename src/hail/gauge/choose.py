"""The gauge's reader of each harness's files [docs/gauge.md]: the module of the same name in this
package, imported only when asked for (as `harnesses.registry` does with the records).

A harness with no module here (one hail learns before its format is read) gets the base `Reader`,
whose every figure is unknown (`no-reader`): never another client's reading.
"""

from __future__ import annotations

from hail.gauge.base import Reader

#: The harnesses whose files the gauge reads: each is a module here with a `Reader` subclass.
READERS = {
    "claude": "ClaudeReader",
    "codex": "CodexReader",
    "gemini": "GeminiReader",
    "opencode": "OpencodeReader",
    "qwen": "QwenReader",
    "copilot": "CopilotReader",
}


def reader(harness: str) -> Reader:
    """The reader of `harness`'s files (a name of `harnesses.registry.NAMES`)."""
    cls = READERS.get(harness)
    if cls is None:
        return Reader()
    module = __import__(f"hail.gauge.{harness}", fromlist=[cls])
    found: Reader = getattr(module, cls)()
    return found
