"""The troubles that keep mail from being read, each rule written once with its one wording and its
fix: what `hail doctor` notes and `hail watch` flags [docs/watch.md "What it shows", docs/commands.md
"doctor"].

Pure: the callers read the state and look at the panes; the rules here only decide. Both fronts
ask the same questions of the same facts, so they name the same seats: an agent silent since it
started, unread mail nobody will read, a Claude Code a send can only type into, recent hook errors.
"""

from __future__ import annotations

from dataclasses import dataclass

from hail import ids, policy
from hail.harnesses import registry
from hail.output import age, tokens
from hail.reserved import PERSON
from hail.text import clip_value, printable_line


@dataclass(frozen=True, slots=True)
class Trouble:
    """Something that keeps mail from being read, with the command that fixes it; `certain` when
    it surely needs fixing (doctor says FIX), not only perhaps (a note)."""

    kind: str  # trust, unread, late, hook-errors, hooks, waiter, compact, dialog
    seat: str  # the mailbox it concerns; "" for the whole state
    text: str
    fix: str
    certain: bool = False

    def line(self) -> str:
        """The trouble and its fix as one line, as doctor prints it."""
        return f"{self.text}: {self.fix}"


# --- hooks are live -------------------------------------------------------------------------------


def hooks_state(hooked: float | None, now: float) -> str:
    """`live` when a hook read the mailbox within HOOKED_FRESH_SECONDS (a mark exactly that old
    still counts), `stale` when one did before, `never` when none did."""
    if hooked is None:
        return "never"
    return "live" if hooks_live(hooked, now) else "stale"


def hooks_live(hooked: float | None, now: float) -> bool:
    """A hook read the mailbox within HOOKED_FRESH_SECONDS, the boundary included: its agent's
    hooks will carry mail sent now."""
    return policy.hooked_lately(hooked, now)


# --- unread mail nobody reads -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unread:
    """A mailbox with unread mail, and what could read it."""

    mailbox: str
    seat: str
    unread: int
    oldest: str  # the oldest unread id
    hooked: float | None
    root: str | None  # the seat's bound workspace
    root_gone: bool
    looked: bool  # whether the panes were looked at (tmux answered)
    agents: int  # agents that read this mailbox: the seat's, or a sub-seat's pane's
    pane_gone: bool  # a sub-seat whose pane no longer works in the seat
    pane: str = ""  # the pane a new session would start in, "" when none is known


def unseen(box: Unread, now: float) -> Trouble | None:
    """Unread mail that no hook, agent or pane will pick up, and what makes it read. The person's
    is none: they read it in `hail watch` (its `person` entry) and `hail --as person inbox`."""
    if box.mailbox == PERSON:
        return None
    where = box.root or "its directory"
    reasons = []
    if box.root_gone:
        reasons.append(f"its workspace {box.root} is gone")
    hooks = hooks_state(box.hooked, now)
    if hooks != "live":
        reasons.append("no hook has read it lately" if hooks == "stale" else "no hook ever ran")
    if box.looked and not box.agents:
        reasons.append("its pane is gone" if box.pane_gone else "no agent sits there")
    if not reasons:
        return None
    if box.root_gone or (box.looked and not box.agents):
        fix = f"start its agent in {where}, or read it there: cd {where} && hail inbox"
    else:
        fix = f"hail setup, then start a new session in {box.pane or where} (hail doctor says more)"
    text = (
        f"{box.mailbox} has {box.unread} unread (oldest {box.oldest}) and {' and '.join(reasons)}"
    )
    return Trouble("unread", box.mailbox, text, fix)


# --- agents: silent, or without a waiter ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Agent:
    """An agent in a pane, with when its process started and whether a send has a native route to
    it (its waiter listens, its thread is known, or it runs a turn)."""

    pane: str
    seat: str
    agent: str
    started: float | None
    native: bool


def _judged(agent: Agent, now: float) -> float | None:
    """When the agent started, if it is old enough to judge (else None)."""
    if agent.started is None or now - agent.started < policy.DOCTOR_AGENT_GRACE_SECONDS:
        return None
    return agent.started


def silent(agent: Agent, hooked: float | None, now: float) -> Trouble | None:
    """An agent whose seat had no hook since the agent started."""
    started = _judged(agent, now)
    # Every harness runs a hook as it starts (Claude Code's and Gemini CLI's SessionStart,
    # opencode's plugin) or at its first prompt (Codex): one that ran none since, runs none.
    if agent.agent not in registry.NAMES or started is None:
        return None
    if hooked is not None and hooked >= started:
        return None
    text = (
        f"{agent.agent} in {agent.pane} (seat {agent.seat}) started {age(now - started)} ago and"
        f" no hail hook has run in {agent.seat} since"
    )
    harness = registry.get(agent.agent)
    if harness.first_hook_at_prompt:
        return Trouble(
            "hooks",
            agent.seat,
            f"{text}: it has had no prompt yet, or its hooks do not run",
            harness.silent_fix,
        )
    return Trouble(
        "hooks",
        agent.seat,
        f"{text}: its hooks do not run",
        f"hail setup, then restart the agent in {agent.pane} (hail doctor's hook lines say why"
        " hooks do not run)",
        certain=True,
    )


def missing_waiter(agent: Agent, hooked: float | None, now: float) -> Trouble | None:
    """A Claude Code whose hooks run but whose waiter does not listen: a send can only type into
    it, and not at all while a person drafts. One with no hook at all is `silent` instead."""
    started = _judged(agent, now)
    if agent.native or started is None or agent.agent not in registry.NAMES:
        return None
    if agent.agent not in registry.LISTENING:
        return None  # its harness runs no waiter
    if hooked is None or hooked < started:
        return None
    return Trouble(
        "waiter",
        agent.seat,
        f"{agent.agent} in {agent.pane} (seat {agent.seat}) has no live waiter (hail listen):"
        " a send can only type into it",
        f"hail setup (it installs the waiter), then restart the agent in {agent.pane}; a waiter"
        " that ended starts again at the next turn's end",
    )


# --- an agent about to compact [docs/gauge.md "Compaction"] -----------------------------------------


def compacts_soon(context: float, compacts_at: int) -> bool:
    """A context within COMPACT_SOON_TOKENS of its client's compaction point, or past it."""
    return context >= compacts_at - policy.COMPACT_SOON_TOKENS


@dataclass(frozen=True, slots=True)
class Compaction:
    """An agent's context, its window and the point its client compacts at (`gauge/base.Gauge`),
    and the command that compacts it by hand (its reader's `compact_command`)."""

    pane: str
    seat: str
    agent: str
    context: float
    window: float
    compacts_at: int
    command: str


def about_to_compact(c: Compaction) -> Trouble | None:
    """An agent about to compact: its client will soon summarise its context on its own, in the
    middle of whatever it does, and what it had read in full is then a summary."""
    if not compacts_soon(c.context, c.compacts_at):
        return None
    share = round(100 * c.context / c.window) if c.window else 0
    return Trouble(
        "compact",
        c.seat,
        f"{c.agent} in {c.pane} (seat {c.seat}) is about to compact: {tokens(c.context)} of"
        f" {tokens(c.window)} in context ({share}%), and its client compacts at"
        f" {tokens(c.compacts_at)}",
        f"let it end its step, then {c.command} in {c.pane} compacts it at a point you choose"
        " (hail watch: Enter jumps there); or hand the rest of its task to a fresh session",
    )


def waits_on_dialog(pane: str, seat: str, agent: str) -> Trouble:
    """An agent whose screen shows a permission dialog: its turn waits on a person, and no send
    types into it meanwhile [docs/watch.md "Answering a dialog"]."""
    return Trouble(
        "dialog",
        seat,
        f"{agent} in {pane} (seat {seat}) waits on a permission dialog; nothing is typed there"
        " until it is answered",
        "d in hail watch shows it and sends the key you pick; or answer it in its pane (Enter"
        " jumps there)",
    )


def config_refused(message: str, fix: str) -> Trouble:
    """The person's config.toml is refused (`config.load`): no agent's context is shown until it
    is fixed, since a window or price it meant to give could make a figure wrong."""
    return Trouble(
        "config",
        "",
        message.removesuffix(f"; {fix}"),
        f"{fix}; until then no agent's context is shown",
    )


# --- recent hook errors -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HookErrors:
    count: int
    since: str
    last: str


def hook_errors(text: str, now: float) -> HookErrors | None:
    """The errors `hook-errors.log` holds from the last DOCTOR_HOOK_LOG_SECONDS, or None."""
    since = ids.iso(now - policy.DOCTOR_HOOK_LOG_SECONDS)
    recent = []
    for line in text.splitlines():
        stamp = line.split(" ", 1)[0]
        # ISO stamps of one shape sort as text: only the shape is checked per line.
        if stamp >= since and ids.parse_iso(stamp) is not None:
            recent.append(line)
    if not recent:
        return None
    last = clip_value(printable_line(recent[-1]), policy.DOCTOR_LOG_LINE_MAX)
    return HookErrors(len(recent), recent[0].split(" ", 1)[0], last)


def hook_errors_trouble(errors: HookErrors, log: str) -> Trouble:
    return Trouble(
        "hook-errors",
        "",
        f"hook-errors.log has {errors.count} errors since {errors.since}; the last: {errors.last}",
        f"the log says which hook failed and why: tail {log}",
    )
