"""`hail deliver`: the hook run on each prompt, after each tool call and when a turn ends
[docs/hooks.md "deliver, step by step"].

It claims unread bodies by rename, prints them framed, and gives every claim back when its output
could not be written, so delivery is at least once under the same id and never doubled. It imports
no click, libtmux or tomlkit and starts no process: it runs on every prompt and tool call.
"""

from __future__ import annotations

from hail import policy
from hail.context import Ctx
from hail.harnesses import registry
from hail.harnesses.base import PLAIN
from hail.hooks import protocol
from hail.store.maildir import Claims, claim_within_budget, not_yours

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.hooks.stop import StopGuard
    from hail.seat import Seat


def deliver(fmt: str | None, event: str) -> int:
    """The hook verb. Always exits 0 once its arguments parsed."""
    if protocol.stdout_reaches_nobody():
        return 0
    payload = read_payload(fmt, event)
    if event == "PreToolUse":
        from hail.hooks.allow import answer

        return answer(fmt, payload.data)  # a permission question, never mail
    if payload.from_subagent():
        return 0  # its context is thrown away: nothing is claimed or marked
    run = _Run(fmt, event, payload)
    try:
        out = run.prepare()
    except Exception as exc:
        run.claims.give_back_all()
        protocol.log_error(run.ctx.store if run.ctx else None, "deliver", exc)
        return 0
    if out:
        run.hand_over(out)
    return 0


class Payload:
    """The harness's payload and what it says, as far as the hook's event asks it [docs/hooks.md
    "What deliver reads"]: a tool call's whether a sub-agent made it, a prompt's whether a person
    typed it and which envelope it is, a Stop's which session's streak it continues."""

    __slots__ = ("data", "event")

    def __init__(self, event: str, data: bytes) -> None:
        self.event = event
        self.data = data

    def from_subagent(self) -> bool:
        """A tool call of a sub-agent, or one whose payload was not seen whole (the safe side)."""
        if self.event != "PostToolUse":
            return False
        return protocol.is_subagent_call(protocol.payload_json(self.data))

    def watched(self) -> bool:
        """opencode's plugin says it watches its mailboxes (`"watching":true`, as JSON.stringify
        writes it: a string value cannot hold it unescaped)."""
        return b'"watching":true' in self.data

    def person_prompted(self) -> bool:
        """Whether a person typed the prompt, not an envelope hail typed [docs/conversations.md
        "Person prompts"]; the prompt is decoded by hand (`protocol.prompt_of`: no json)."""
        if self.event != "UserPromptSubmit" or not self.data:
            return False
        from hail.task_line import is_persons

        prompt = protocol.prompt_of(self.data)
        return prompt is not None and is_persons(prompt)

    def prompt(self) -> str:
        """The prompt being submitted; "" on any other event, or when the payload holds none."""
        if self.event != "UserPromptSubmit":
            return ""
        return protocol.prompt_of(self.data) or ""


def read_payload(fmt: str | None, event: str) -> Payload:
    """The payload, read from stdin once, before anything is decided: an installed hook's
    (`--format`) on every event, and a Stop's always, whose streak its session keys; nothing
    else reads stdin."""
    reads = fmt is not None or event == "Stop"
    return Payload(event, protocol.payload_bytes() if reads else b"")


class _Run:
    """One call of the hook: its context once it has one, its mailboxes, its claims, and on Stop
    its loop guard."""

    __slots__ = ("claims", "ctx", "event", "fmt", "guard", "mailboxes", "payload")

    def __init__(self, fmt: str | None, event: str, payload: Payload) -> None:
        self.fmt = fmt
        self.event = event
        self.payload = payload
        self.ctx: Ctx | None = None
        self.mailboxes: list[str] = []
        self.claims = Claims(policy.DELIVER_MAX_BYTES, policy.DELIVER_MAX_MESSAGES)
        self.guard: StopGuard | None = None

    def prepare(self) -> str:
        """What to print, its messages claimed; "" when there is nothing to print."""
        where = protocol.session_dir(self.fmt, self.payload.data)
        if where == "":
            return ""  # hooks run elsewhere, and this payload did not say where its session is
        ctx = self.ctx = Ctx.from_env(cwd=where)
        seat = ctx.seat()
        if seat is None:
            return ""
        self._open(ctx, seat)
        if self._names_the_file_alone(ctx):
            _note_agent(ctx, self.fmt or "", self.mailboxes[0], self.payload.data, None)
        if self.event == "Stop" and not self._stop_may_block(ctx):
            return ""  # the turn ends; the mail waits for the next prompt or tool call
        for name in self.mailboxes:
            claim_within_budget(ctx.store.mailbox(name), "injected", self.claims)
        for path in self.claims.refused:
            protocol.log_error(ctx.store, "deliver", not_yours(path))
        if self.fmt is not None and self.event == "UserPromptSubmit" and not ctx.in_tool_call:
            _note_agent(ctx, self.fmt, self.mailboxes[0], self.payload.data, self.claims)
        if not self.claims.taken:
            return ""
        return self._output(render(self.claims, self.payload.prompt()))

    def _open(self, ctx: Ctx, seat: Seat) -> None:
        """Bind the seat, name its mailboxes, and leave the marks this call sets."""
        harness = registry.get(self.fmt) if self.fmt is not None else None
        shared = harness is not None and harness.shared_daemon
        self.mailboxes = ctx.reading_mailboxes(seat, shared_daemon=shared)
        ctx.store.check_trusted(self.mailboxes)  # another user's state: logged, nothing delivered
        ctx.store.ensure()
        ctx.store.bind(seat)
        if self.fmt is not None:
            watched = self.payload.watched() and not ctx.in_tool_call
            for name in self.mailboxes:
                box = ctx.store.mailbox(name)
                box.touch_hooked()
                if watched:
                    box.mark_watched()
        if not ctx.in_tool_call and self.payload.person_prompted():
            # Reply chains start again. Not for a prompt hook a model runs in its own tool call:
            # it could write any prompt, and only the harness's hook reports what a person typed.
            ctx.store.mailbox(self.mailboxes[0]).mark_prompted()
        if harness is not None and harness.hooks_record and not ctx.in_tool_call:
            note_session(ctx, harness.route, self.mailboxes[0], self.event, self.payload.data)

    def _names_the_file_alone(self, ctx: Ctx) -> bool:
        """Whether this hook's payload, not the prompt's, names the session's file for the agent
        record (Copilot CLI's agentStop): only then does a hook other than the prompt's load it."""
        if self.fmt is None or self.event == "UserPromptSubmit" or ctx.in_tool_call:
            return False
        return registry.get(self.fmt).payload.file_event == self.event

    def _stop_may_block(self, ctx: Ctx) -> bool:
        """Whether this Stop may make the agent go on, its streak read (`hooks/stop.py`)."""
        from hail.hooks.stop import StopGuard, started

        first = ctx.store.mailbox(self.mailboxes[0])
        fields = registry.get(self.fmt).payload if self.fmt is not None else None
        self.guard = StopGuard(
            first.path,
            self.payload.data,
            started=lambda: started(ctx.procs()),
            by_hand=ctx.in_tool_call,
            keys=fields,
        )
        if self.fmt is not None:
            # Before looking for mail: a send that files after this look sees the mark and
            # waits for the turn to end rather than leave its message for the next prompt.
            for name in self.mailboxes:
                ctx.store.mailbox(name).touch_stopping()
        return self.guard.may_block()

    def _output(self, text: str) -> str:
        """The text as the harness reads it: a Stop's block, hook JSON, or plain by hand and for
        opencode, whose plugin adds the text itself [docs/hooks.md "opencode"]."""
        output = registry.get(self.fmt).output if self.fmt is not None else None
        if self.guard is not None and output != PLAIN:
            return protocol.stop_json(text)
        if output is None or output == PLAIN:
            return text
        return protocol.hook_json(self.event, text, self.fmt)

    def hand_over(self, out: str) -> None:
        """Print `out`; when it did not reach the agent, give every claim back."""
        try:
            protocol.write_stdout(out + "\n")
        except Exception:  # deliver it again later, under the same id
            self.claims.give_back_all()
            return
        if self.guard is not None and self.ctx is not None:
            self._count_block(self.guard, self.ctx)

    def _count_block(self, guard: StopGuard, ctx: Ctx) -> None:
        """This Stop made the agent go on: one more in its streak, and the turn is not ending."""
        try:
            guard.blocked()
            for name in self.mailboxes:
                ctx.store.mailbox(name).clear_stopping()  # its next Stop looks again
        except OSError as exc:
            protocol.log_error(ctx.store, "deliver", exc)


def render(claims: Claims, prompt: str = "") -> str:
    """The preamble and the frames; a message whose envelope is the `prompt` being submitted is
    framed without its headline, which the model has just read there."""
    from hail import frame

    messages = [one.msg for one in claims.taken]
    token = frame.draw_token(t for msg in messages for t in frame.texts_of(msg))
    persons = sum(frame.from_person(msg) for msg in messages)
    lines = [frame.preamble(len(messages), token, persons)]
    for i, msg in enumerate(messages):
        headline = not (prompt and frame.is_own_envelope(prompt, msg))
        if i == 0:
            lines += frame.cut_to_fit(token, msg, policy.DELIVER_MAX_BYTES, headline=headline)
        else:
            lines += frame.frame(token, msg, headline=headline)
    if claims.left_unread:
        lines.append(f"({claims.left_unread} more unread: hail inbox prints them)")
    return "\n".join(lines)


def note_session(ctx: Ctx, route: str, mailbox: str, event: str, payload: bytes) -> None:
    """Record the session this hook runs for as its route's records keep it (a Codex thread, an
    opencode process, a Qwen Code session's socket), so a send can wake it natively
    [docs/transport.md "Routes"]; a failure here is logged and delivers as before."""
    from hail.store.presence.registry import note_of

    note = note_of(route)
    if note is None:
        return
    try:
        from hail.store.presence.base import Hook

        note(Hook(ctx.store, ctx.procs, ctx.env), mailbox, event, payload)
    except Exception as exc:
        protocol.log_error(ctx.store, "deliver", exc)


def _note_agent(ctx: Ctx, fmt: str, mailbox: str, payload: bytes, claims: Claims | None) -> None:
    """Record what the agent is on and where its figures are (`store/presence/agent.py`): on a
    prompt (`claims` given) the prompt's task line, else the headline of the first message this
    hook delivers (a wake's prompt says nothing of its task); at a turn's end (no `claims`) only
    the file and model its payload names [docs/gauge.md "The agent record"]; a failure is logged,
    and the mail is delivered as before."""
    delivered = claims.taken[0].msg.headline if claims and claims.taken else ""
    try:
        from hail.store.presence.agent import note

        note(
            ctx.store,
            ctx.env,
            registry.get(fmt),
            mailbox,
            lambda key: protocol.string_of(payload, key),
            prompt=None if claims is None else protocol.prompt_of(payload) or "",
            delivered=delivered,
        )
    except Exception as exc:
        protocol.log_error(ctx.store, "deliver", exc)
