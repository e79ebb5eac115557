"""The agent record: `presence/agent-<session>`, what hail's hooks saw of one agent session
[docs/gauge.md "The agent record"]: its harness, mailbox, pane and tmux server (as the routes'
records name them), the file its client writes its figures to, its model, and its task line, so
`hail seats` and `hail watch` can show what each agent is on and read its context gauge.

The prompt hook writes it (`note`), in one small atomic write and only when something changed;
Claude Code's waiter writes it at SessionStart too, the one payload that names its model. Which
payload key names what is the harness's data (`Harness.payload`). A record is found by the pane
and server its agent runs in; a harness whose hooks run from a shared daemon (Codex), and so name
another pane, records none, and is found by its seat, which holds one of it.

A value that is not one clean line within its bound (a hostile path or model) is not recorded:
the record keeps what it had, and the gauge shows `-` rather than a wrong figure. The path is
only ever opened by the gauge's readers, read-only; nothing here reads it or runs it. Plain os
calls and a hand-written format: the hook path loads this (no json, no re, no dataclasses).
"""

from __future__ import annotations

import os
import time

from hail import policy
from hail.store import fs
from hail.task_line import from_headline, task_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from hail.harnesses.base import Harness
    from hail.store.store import Store

PREFIX = "agent-"
#: The record's fields, in the order they are written; `time` (when it was written) follows.
FIELDS = ("agent", "session", "mailbox", "pane", "server", "file", "model", "task")
_SESSION_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


class AgentRecord:
    """One agent session as its hooks recorded it; `time` is when the record was last written."""

    __slots__ = (*FIELDS, "time")

    def __init__(
        self,
        agent: str,
        session: str,
        mailbox: str,
        pane: str = "",
        server: str = "",
        file: str = "",
        model: str = "",
        task: str = "",
        time: float = 0.0,
    ) -> None:
        self.agent = agent
        self.session = session
        self.mailbox = mailbox
        self.pane = pane
        self.server = server
        self.file = file
        self.model = model
        self.task = task
        self.time = time

    def __repr__(self) -> str:
        return f"AgentRecord({self.agent!r}, {self.session!r}, {self.pane!r}, {self.task!r})"

    def values(self) -> tuple[str, ...]:
        return tuple(getattr(self, name) for name in FIELDS)

    def text(self) -> str:
        """The record as written: every value is one clean line already (`note` made it so)."""
        lines = [f"{name}: {value}\n" for name, value in zip(FIELDS, self.values(), strict=True)]
        return "".join(lines) + f"time: {self.time:.3f}\n"

    @property
    def seat(self) -> str:
        return self.mailbox.partition("@")[0]


def is_session_id(text: str) -> bool:
    """A session id the record may be named by: letters, digits, `-` and `_` (a UUID; opencode's
    `ses_…`), nothing a path could misuse."""
    return 0 < len(text) <= 64 and _SESSION_CHARS.issuperset(text)


def directory(store: Store) -> str:
    """`presence/`, as `presence/base.directory` names it: the prompt hook loads no more than this
    module to keep its record."""
    return os.path.join(store.root, "presence")


def record_path(store: Store, session: str) -> str:
    return os.path.join(directory(store), PREFIX + session)


def read_record(path: str) -> AgentRecord | None:
    """The record at `path`; None when there is none, or it is not one."""
    text = fs.read_text(path)
    if not text:
        return None
    found: dict[str, str] = {}
    for line in text.split("\n"):
        key, sep, value = line.partition(": ")
        if sep:
            found.setdefault(key, value)
    if not is_session_id(found.get("session", "")) or not found.get("agent"):
        return None
    agent, session, mailbox, pane, server, file, model, task = (found.get(n, "") for n in FIELDS)
    try:
        time = float(found.get("time", ""))
    except ValueError:
        time = 0.0
    return AgentRecord(agent, session, mailbox, pane, server, file, model, task, time)


def records(store: Store) -> list[AgentRecord]:
    """Every agent record, newest first."""
    where = directory(store)
    names = [n for n in fs.list_names(where) if n.startswith(PREFIX)]
    found = [read_record(os.path.join(where, n)) for n in names]
    kept = [r for r in found if r is not None]
    kept.sort(key=lambda r: r.time, reverse=True)
    return kept


# --- what a hook records ------------------------------------------------------------------------


def note(
    store: Store,
    env: Mapping[str, str],
    harness: Harness,
    mailbox: str,
    field: Callable[[str], str | None],
    *,
    prompt: str | None = None,
    delivered: str = "",
    always: bool = False,
    now: float | None = None,
) -> None:
    """Record what a hook's payload says of its agent session, its fields read by key with `field`
    (the hook's own decoder: no json on the hook path): its session's file and model where the
    payload names them, and on a `prompt` its task line (a person's first line, a typed envelope's
    headline; else the headline `delivered` first, when the prompt says nothing of a task, as a
    wake's does). Written only when a value changed, or `always` (a session that starts again, as
    a resumed one does, is dated anew)."""
    keys = harness.payload
    session = field(keys.session)
    if session is None or not is_session_id(session):
        return
    path = record_path(store, session)
    old = read_record(path)
    pane, server = ("", "") if harness.shared_daemon else _place(env)
    new = AgentRecord(
        harness.name,
        session,
        mailbox,
        pane,
        server,
        _clean(field(keys.file), policy.AGENT_FILE_MAX, absolute=True),
        _clean(field(keys.model), policy.AGENT_MODEL_MAX),
        "" if prompt is None else _task(prompt, delivered),
        time.time() if now is None else now,
    )
    if old is not None:
        # What this payload does not name stays as an earlier one named it.
        new.file = new.file or old.file
        new.model = new.model or old.model
        new.task = new.task or old.task
        if not always and new.values() == old.values():
            return
    else:
        fs.make_dirs(directory(store))
        _drop_replaced(store, new)
    fs.write_atomic(path, new.text())


def _clean(value: str | None, limit: int, *, absolute: bool = False) -> str:
    """`value` when it is one printable line within `limit` characters, with no space at either end
    (an absolute path, where asked); else "": never cut or mended into another name."""
    if not value or len(value) > limit or not value.isprintable() or value != value.strip():
        return ""
    return value if not absolute or value.startswith("/") else ""


def _task(prompt: str, delivered: str) -> str:
    line = task_line(prompt)
    return line or (from_headline(delivered) if delivered else "")


def _place(env: Mapping[str, str]) -> tuple[str, str]:
    """The pane this hook's session runs in and its tmux server, as the route records name them."""
    pane = env.get("TMUX_PANE", "")
    if not (pane[:1] == "%" and pane[1:].isascii() and pane[1:].isdigit()):
        return "", ""
    # `presence/base.tmux_server`'s rule: HAIL_SOCKET, else $TMUX's socket.
    server = env.get("HAIL_SOCKET", "") or env.get("TMUX", "").split(",", 1)[0]
    return pane, _clean(server, policy.AGENT_FILE_MAX, absolute=True)


def _drop_replaced(store: Store, new: AgentRecord) -> None:
    """A session's first record removes those it replaces: another session's in the same pane of
    the same server (one agent runs in a pane), or, for a harness found by its seat, in the same
    seat; and any not written for AGENT_RECORD_DAYS."""
    oldest = new.time - policy.AGENT_RECORD_DAYS * 86400
    for other in records(store):
        if other.session == new.session:
            continue
        if new.pane:
            same = other.pane == new.pane and other.server == new.server
        else:
            same = not other.pane and other.agent == new.agent and other.seat == new.seat
        if same or other.time < oldest:
            fs.remove_quietly(record_path(store, other.session))
