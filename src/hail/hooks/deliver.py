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
from hail.store import fs
from hail.store.maildir import Mailbox, not_yours

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.store.message import Message

_PLACEHOLDER_TOKEN = "0" * (policy.TOKEN_BYTES * 2)


class Claims:
    """Messages claimed by this call; `give_back_all` undoes them when output fails."""

    __slots__ = ("left_unread", "refused", "taken")

    def __init__(self) -> None:
        self.taken: list[tuple[Mailbox, str, Message]] = []
        self.left_unread = 0  # unread messages past the budget, left for the next call
        self.refused: list[str] = []  # unread files of another user: never claimed

    def give_back_all(self) -> None:
        for box, path, _ in self.taken:
            box.give_back(path)
        self.taken.clear()


def claim_within_budget(ctx: Ctx, mailboxes: list[str]) -> Claims:
    """Take at most 5 messages and about 8 KB, oldest first; the first one always
    [docs/envelope-and-frames.md "Budget"]."""
    claims = Claims()
    used = 0
    stopped = False
    for name in mailboxes:
        box = ctx.store.mailbox(name)
        for unread in box.unread():
            if stopped:
                claims.left_unread += 1
                continue
            if claims.taken and (
                len(claims.taken) >= policy.DELIVER_MAX_MESSAGES
                or used + unread.size > policy.DELIVER_MAX_BYTES
            ):
                stopped = True
                claims.left_unread += 1
                continue
            try:
                path = box.claim(unread.id, "injected")
            except PermissionError:
                claims.refused.append(unread.path)
                continue
            if path is None:
                continue  # another reader won the race
            # Only imported when there is mail: the empty hook, the common one, needs neither.
            from hail import frame
            from hail.store.message import Message, parse

            claims.taken.append((box, path, Message()))  # given back even if reading fails
            text = fs.read_text(path)
            if text is None:  # gone since the claim: nothing to show
                claims.taken.pop()
                continue
            msg = parse(text)
            claims.taken[-1] = (box, path, msg)
            used += frame.frame_bytes(frame.frame(_PLACEHOLDER_TOKEN, msg))
    return claims


def render(claims: Claims, prompt: str = "") -> str:
    """The preamble and the frames; a message whose envelope is the `prompt` being submitted is
    framed without its headline, which the model has just read there."""
    from hail import frame

    messages = [msg for _, _, msg in claims.taken]
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
    claims = Claims()
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
        if person:
            ctx.store.mailbox(mailboxes[0]).mark_prompted()  # reply chains start again
        if event == "Stop":
            from hail.hooks.stop import StopGuard

            guard = StopGuard(ctx.store.mailbox(mailboxes[0]).path, protocol.payload_bytes())
            if fmt is not None:
                # Before looking for mail: a send that files after this look sees the mark and
                # waits for the turn to end rather than leave its message for the next prompt.
                for name in mailboxes:
                    ctx.store.mailbox(name).touch_stopping()
            if not guard.may_block():
                guard.ended()  # the turn ends; the mail waits for the next prompt or tool call
                return 0
        claims = claim_within_budget(ctx, mailboxes)
        for path in claims.refused:
            protocol.log_error(ctx.store, "deliver", not_yours(path))
        if not claims.taken:
            if guard is not None:
                guard.ended()
            return 0
        text = render(claims, protocol.prompt_of(payload) or "")
    except Exception as exc:
        claims.give_back_all()
        protocol.log_error(ctx.store if ctx else None, "deliver", exc)
        return 0
    if guard is not None and fmt != "opencode":
        out = protocol.stop_json(text)
    elif fmt in (None, "opencode"):
        out = text  # opencode's plugin adds the text itself [docs/hooks.md "opencode"]
    else:
        out = protocol.hook_json(event, text, fmt)
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
