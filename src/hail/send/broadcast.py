"""A broadcast [docs/commands.md "Broadcast"]: `hail all <kind> …` files one copy of the letter for
every seat with a mailbox or a live agent pane but the sender's (and the person's), each through the one pipeline
(`send/pipeline.py`) with its own id and its own wake, all sharing a batch id in their headers
and hold records. A release `--re` any copy of a broadcast hold, or its batch id, releases every
copy still held, each with its own `re:`.

It prints each copy's `id=<id> to=<seat>` line as it is filed, then one summary line, and exits
with the worst of the copies' codes, in the order of `WORST`.
"""

from __future__ import annotations

from hail import ids
from hail.errors import HailError, StateError
from hail.letter import Letter
from hail.output import emit, note
from hail.reserved import PERSON
from hail.store import records

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hail.context import Ctx
    from hail.send.authors import Author

#: Exit codes from worst to best: an error (1), a headline over the cap (2), a seat problem (3), a
#: dialog (4), each with nothing filed for that seat; then filed but not woken (5); then 0.
WORST = (1, 2, 3, 4, 5, 0)
#: How the summary names each outcome.
_OUTCOME = {0: "woken", 5: "in the inbox, not woken"}


def targets(ctx: Ctx, sender: str) -> list[str]:
    """Every seat with a mailbox or a live agent pane, but the sender's and the person's (a
    sub-seat is its seat's: the pipeline routes a shared seat)."""
    from hail.transport.resolve import reach_or_none

    names = {n for n in ctx.store.mailbox_names() if "@" not in n}
    _, panes = reach_or_none(ctx)
    if panes is not None:
        names |= {p.seat for p in panes.panes if p.seat is not None and p.agent is not None}
    return sorted(names - {PERSON, sender})


def held_copies(ctx: Ctx, re_id: str) -> list[tuple[str, str]]:
    """The (seat, hold id) of each copy of the broadcast hold `re_id` names (a copy's id or the
    batch id), in effect or lapsed; a hold sent to one seat is its own only copy."""
    holds = records.read_holds(ctx.store.holds) + records.read_holds(ctx.store.lapsed)
    given = next((h for h in holds if h.id == re_id), None)
    batch = given.batch if given is not None and given.batch else re_id
    copies = [(h.to, h.id) for h in holds if h.batch == batch]
    if not copies and given is not None:
        copies = [(given.to, given.id)]
    if not copies:
        raise StateError(f"no hold with id {re_id}; hail brief lists holds in effect")
    return sorted(copies)


def broadcast(
    ctx: Ctx, author: Author, sender: str, letter: Letter, *, no_wake: bool, no_submit: bool
) -> int:
    """File and wake a copy for every other seat; the worst copy's exit code."""
    from hail.send.pipeline import file_and_wake

    if letter.kind == "release" and letter.re:
        plan = held_copies(ctx, letter.re)
    else:
        plan = [(seat, letter.re) for seat in targets(ctx, sender)]
    if not plan:
        raise StateError("no other seat is known yet; hail seats lists the seats")
    # Another machine's broadcast is its sender's id: its first copy is filed under it.
    batch = author.given_id or ids.draw(ids.stamp(ctx.now()))
    codes: list[int] = []
    for n, (seat, re) in enumerate(plan):
        copy = Letter(letter.kind, letter.draft, re, letter.scope, letter.span, letter.span_text)
        try:
            sent = file_and_wake(
                ctx, author.copy(n), seat, copy, no_wake=no_wake, no_submit=no_submit, batch=batch
            )
            codes.append(sent.code)
        except HailError as err:  # one seat's refusal stops no other copy
            note(f"not sent to {seat} (exit {err.exit_code}): {err.message}")
            codes.append(err.exit_code)
    worst = min(codes, key=lambda c: WORST.index(c) if c in WORST else 0)
    emit(summary(batch, codes, worst))
    return worst


def summary(batch: str, codes: list[int], worst: int) -> str:
    """`batch=<id> copies=<n>: <k> woken, <m> in the inbox, not woken, <r> refused; exit <worst>`."""
    counts = [f"{codes.count(c)} {word}" for c, word in _OUTCOME.items() if c in codes]
    refused = sum(c not in _OUTCOME for c in codes)
    if refused:
        counts.append(f"{refused} refused")
    return f"batch={batch} copies={len(codes)}: {', '.join(counts)}; exit {worst}"
