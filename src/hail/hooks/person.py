"""Whether a prompt came from a person or is an envelope hail typed, from the hook's payload
[docs/conversations.md "Person prompts"].

The UserPromptSubmit payload of both harnesses carries the submitted text as `prompt`. An envelope
hail typed starts `[hail kind:`; anything else a person typed (or pasted). Only the start of the
string matters, decoded by hand (`protocol.prompt_of`): no `json` import on the hook path, and the
text is never read from the pane.
"""

from __future__ import annotations

from hail.hooks.protocol import prompt_of

_ENVELOPE = "[hail kind:"
#: A turn Claude Code starts on its own (a background task's end, hail's waiter) carries this
#: prompt: nobody typed it.
_NOTIFICATION = "<task-notification>"


def person_prompted(payload: bytes) -> bool | None:
    """True for a person's prompt, False for a typed envelope, None when the payload has none."""
    prompt = prompt_of(payload)
    if prompt is None:
        return None
    text = prompt.lstrip(" ")
    return bool(text) and not text.startswith((_ENVELOPE, _NOTIFICATION)) and not _is_delivery(text)


def _is_delivery(text: str) -> bool:
    """hail's own delivered text as a prompt: Gemini CLI runs BeforeAgent again for the text of an
    AfterAgent block, and opencode's plugin wakes a session with it [docs/hooks.md "Gemini CLI"]."""
    return text.startswith("hail: ") and " framed by token " in text.split("\n", 1)[0]
