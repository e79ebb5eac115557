"""What the person does from `hail watch`, run through hail's own command line
[docs/watch.md "Acting"]: a send as the person (to a seat, a sub-seat or every seat), a reply, a
release, a nudge, the person's inbox. Each runs the installed hail's entry, this very code, as a
process of its own with its output captured, so the view never waits on it and never draws what
a verb prints; its exit status is read as `docs/commands.md "Exit codes"` says.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

from hail import policy
from hail.reserved import ALL, PERSON
from hail.text import clip_value, printable_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: What each exit status of a send says [docs/commands.md "Exit codes"].
MEANINGS = {
    0: "done",
    1: "refused",
    2: "headline over the cap: shorten it",
    3: "seat problem",
    4: "the pane shows a permission dialog; nothing was written",
    5: "in the inbox, not woken: do not resend",
    6: "the wait would close a cycle",
    7: "not the person: run hail watch from your own terminal, outside every agent",
}
#: A release's headline quotes the hold's, clipped to this.
RELEASE_QUOTE_CHARS = 120


@dataclass(frozen=True, slots=True)
class Done:
    """One hail run: its exit status, stdout and stderr."""

    code: int
    out: str
    err: str

    def ids(self) -> list[str]:
        """The ids a send printed (`id=<id>`)."""
        return [
            w[3:] for line in self.out.splitlines() for w in line.split() if w.startswith("id=")
        ]

    def line(self, what: str) -> str:
        """One status line: what was done, the ids, the exit status's meaning and hail's last
        word on stderr (its error or its report), each one printable line."""
        ids = " ".join(self.ids())
        # A broadcast's summary (`batch=… copies=…: …`) says how its copies fared.
        batch = [x for x in self.out.splitlines() if x.startswith("batch=")]
        if batch:
            ids += f" ({printable_line(batch[-1])})"
        meaning = MEANINGS.get(self.code, "failed")
        said = [printable_line(x) for x in self.err.splitlines() if x.strip()]
        last = f": {clip_value(said[-1], 200)}" if said else ""
        return f"{what}{' ' + ids if ids else ''} — exit {self.code} ({meaning}){last}"


def run_hail(env: Mapping[str, str], args: list[str]) -> Done:
    """hail's entry with `args`, as a process of its own: no stdin (a body is an argument), its
    output captured. The same interpreter and the same modules as this one, wherever hail is
    installed."""
    child = dict(env)
    child["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "hail", *args],
            env=child,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=policy.WATCH_ACTION_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Done(
            1, "", f"hail {args[0] if args else ''} took over {policy.WATCH_ACTION_SECONDS:.0f} s"
        )
    except OSError as err:
        return Done(1, "", f"cannot run hail: {err.strerror or err}")
    return Done(proc.returncode, _text(proc.stdout), _text(proc.stderr))


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class Draft:
    """A message the person wrote in the view's form."""

    to: str
    kind: str
    headline: str
    body: str = ""
    re: str = ""
    span: str = ""  # a hold's `--for` (30m, 8h, 3d); "" for the default

    def argv(self) -> list[str]:
        """`hail --as person <to> <kind> [--re ID] [--for SPAN] -- HEADLINE [BODY]`."""
        re = ["--re", self.re] if self.re else []
        re += ["--for", self.span] if self.span and self.kind == "hold" else []
        body = [self.body] if self.body.strip() else []
        return ["--as", PERSON, self.to, self.kind, *re, "--", self.headline, *body]

    def needs_confirming(self) -> bool:
        """A copy to every seat (`all`), and a hold (a decision in effect until released), are confirmed
        first."""
        return self.to == ALL or self.kind == "hold"

    def summary(self) -> str:
        re = f" --re {self.re}" if self.re else ""
        return f"{self.kind}{re} to {self.to}: {clip_value(self.headline, 80)}"


def send(env: Mapping[str, str], draft: Draft) -> str:
    return run_hail(env, draft.argv()).line(f"{draft.kind} to {draft.to}")


def release_draft(hold_id: str, to: str, headline: str) -> Draft:
    """The release of a hold, sent to the hold's recipient."""
    return Draft(
        to, "release", f"released: {clip_value(headline, RELEASE_QUOTE_CHARS)}", re=hold_id
    )


def nudge(env: Mapping[str, str], mailbox: str) -> str:
    return run_hail(env, ["nudge", mailbox]).line(f"nudge {mailbox}")


def inbox(env: Mapping[str, str]) -> Done:
    """The person's inbox, claimed as read, as `hail --as person inbox` prints it."""
    return run_hail(env, ["--as", PERSON, "inbox"])
