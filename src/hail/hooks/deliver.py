"""`hail deliver`: the hook run on each prompt, after each tool call and when a turn ends
[docs/hooks.md "deliver, step by step"].

It claims unread bodies by rename, prints them framed, and gives every claim back when its output
could not be written, so delivery is at least once under the same id and never doubled. It imports
no click, libtmux or tomlkit and starts no process: it runs on every prompt and tool call.
"""

from __future__ import annotations

from hail import policy
from hail.context import Ctx
from hail.hooks import protocol
from hail.store.maildir import Claims, claim_within_budget, not_yours


def render(claims: Claims, prompt: str = "") -> str:
    """The preamble and the frames; a message whose envelope is the `prompt` being submitted is
    framed without its headline, which the model has just read there."""
    from hail import frame

    messages = [one.msg for one in claims.taken]
    token = frame.draw_token(t for msg in messages for t in frame.texts_of(msg))
    lines = [frame.preamble(len(messages), token)]
    for i, msg in enumerate(messages):
        headline = not (prompt and frame.is_own_envelope(prompt, msg))
        if i == 0:
            lines += frame.cut_to_fit(token, msg, policy.DELIVER_MAX_BYTES, headline=headline)
        else:
            lines += frame.frame(token, msg, headline=headline)
    if claims.left_unread:
        lines.append(f"({claims.left_unread} more unread: hail inbox prints them)")
    return "\n".join(lines)


def deliver(fmt: str | None, event: str) -> int:
    """The hook verb. Always exits 0 once its arguments parsed."""
    if protocol.stdout_reaches_nobody():
        return 0
    # The sub-agent guard reads a tool call's payload.
    tool_call = fmt is not None and event == "PostToolUse"
    if tool_call and protocol.is_subagent_call(protocol.payload()):
        return 0
    # A prompt's payload says whether a person typed it, and which envelope it is: read it once.
    payload = protocol.payload_bytes() if fmt is not None and event == "UserPromptSubmit" else b""
    ctx: Ctx | None = None
    claims = Claims(policy.DELIVER_MAX_BYTES, policy.DELIVER_MAX_MESSAGES)
    guard = None
    try:
        person = bool(payload) and _person_prompted(payload)
        ctx = Ctx.from_env()
        seat = ctx.seat()
        if seat is None:
            return 0
        mailboxes = ctx.reading_mailboxes(seat, codex_format=fmt == "codex")
        ctx.store.check_trusted(mailboxes)  # another user's state: logged, nothing delivered
        ctx.store.ensure()
        ctx.store.bind(seat)
        if fmt is not None:
            for name in mailboxes:
                ctx.store.mailbox(name).touch_hooked()
        if person and not ctx.in_tool_call:
            # Reply chains start again. Not for a prompt hook a model runs in its own tool call:
            # it could write any prompt, and only the harness's hook reports what a person typed.
            ctx.store.mailbox(mailboxes[0]).mark_prompted()
        if event == "Stop":
            from hail.hooks.stop import StopGuard, started

            guard = StopGuard(
                ctx.store.mailbox(mailboxes[0]).path,
                protocol.payload_bytes(),
                started=started(),
                by_hand=ctx.in_tool_call,
            )
            if fmt is not None:
                # Before looking for mail: a send that files after this look sees the mark and
                # waits for the turn to end rather than leave its message for the next prompt.
                for name in mailboxes:
                    ctx.store.mailbox(name).touch_stopping()
            if not guard.may_block():
                return 0  # the turn ends; the mail waits for the next prompt or tool call
        for name in mailboxes:
            claim_within_budget(ctx.store.mailbox(name), "injected", claims)
        for path in claims.refused:
            protocol.log_error(ctx.store, "deliver", not_yours(path))
        if not claims.taken:
            return 0
        text = render(claims, protocol.prompt_of(payload) or "")
    except Exception as exc:
        claims.give_back_all()
        protocol.log_error(ctx.store if ctx else None, "deliver", exc)
        return 0
    if guard is not None:
        out = protocol.stop_json(text)
    else:
        out = protocol.hook_json(event, text) if fmt is not None else text
    try:
        protocol.write_stdout(out + "\n")
    except Exception:  # the text did not reach the agent: deliver it again later, same id
        claims.give_back_all()
        return 0
    if guard is not None:
        try:
            guard.blocked()
            for name in mailboxes:
                ctx.store.mailbox(
                    name
                ).clear_stopping()  # the turn goes on: its next Stop looks again
        except OSError as exc:
            protocol.log_error(ctx.store, "deliver", exc)
    return 0


def _person_prompted(payload: bytes) -> bool:
    """Whether the prompt in the harness's payload is a person's, not an envelope hail typed."""
    from hail.hooks.person import person_prompted

    return person_prompted(payload) is True
