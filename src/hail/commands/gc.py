"""`hail gc [--days N]`: archive old read mail and deleted workspaces, sweep lapsed records
[docs/commands.md "gc"].

gc never runs implicitly; `hail doctor` says when it is due. The mechanics are in `store/gc.py`.
"""

from __future__ import annotations

import os

from hail import policy
from hail.context import Ctx
from hail.output import emit
from hail.store import gc as store_gc
from hail.store import remote


def gc(ctx: Ctx, days: int = policy.GC_DEFAULT_DAYS) -> int:
    """Run gc and print its four result lines; exit 0."""
    store = ctx.store
    if os.path.isdir(store.root):
        report = store_gc.collect(store, ctx.now(), days)
    else:  # nothing to collect, and gc does not create the state root
        report = store_gc.Report(0, 0, 0, 0, 0)
    emit(f"archived {report.read} read messages older than {days} days into {store.archive}")
    emit(
        f"archived {report.mailboxes} mailboxes of deleted workspaces "
        f"({report.unread} unread among them)"
    )
    emit(
        f"removed {report.holds} lapsed holds "
        f"(lapsed over {days} days ago, or from a seat that is gone)"
    )
    emit(f"removed {report.records} stale pending records and read marks")
    if report.unfinished:
        emit(
            f"removed {report.unfinished} unfinished writes left in tmp/ by sends that never ended"
        )
    far = (
        remote.sweep_sent(store.root, ctx.now() - days * 86400) if os.path.isdir(store.root) else 0
    )
    if far:
        emit(f"removed {far} copies of messages sent to other machines over {days} days ago")
    if report.waits:
        emit(
            f"removed {report.waits} wait records that block nobody "
            "(their wait is over, or no wait wrote them)"
        )
    far = (
        remote.sweep_sent(store.root, ctx.now() - days * 86400) if os.path.isdir(store.root) else 0
    )
    if far:
        emit(f"removed {far} copies of messages sent to other machines over {days} days ago")
    return 0
