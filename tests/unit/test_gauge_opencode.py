"""The record hail's opencode plugin writes, read for the gauge [docs/gauge.md "opencode"]: the
newest reply, the window chat.params gave, the session's tokens and the cost opencode recorded.
(The plugin writing it: tests/cli/test_opencode_plugin_gauge.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from hail import policy
from hail.config import Config, Price
from hail.gauge.base import Where
from hail.gauge.choose import reader
from hail.gauge.opencode import record_path

OPENCODE = reader("opencode")
RECORD = """session: ses_1
model: fake/fake-model
input: 3301
cache-read: 23003
cache-write: 0
output: 43
reasoning: 0
window: 200000
session-input: 6502
session-cache-read: 45006
session-cache-write: 0
session-output: 85
session-reasoning: 5
session-cost: 0.0342828
replies: 2
time: 1796401627
"""


def written(tmp_path: Path, text: str) -> str:
    path = record_path(str(tmp_path), 4242)
    Path(path).write_text(text)
    return path


def test_the_record_gives_every_figure_and_opencodes_cost(tmp_path: Path) -> None:
    path = written(tmp_path, RECORD)
    assert path == str(tmp_path / "gauge-opencode-4242")
    prices = {"fake/fake-model": Price(100.0, 100.0, 100.0, 100.0)}  # opencode's own cost wins
    gauge = OPENCODE.gauge(
        Where(path, session="ses_1"), Config("c", {"fake/fake-model": 9}, prices)
    )
    assert (gauge.context.value, gauge.context.source) == (3301 + 23003, "plugin-record")
    assert (gauge.window.value, gauge.window.source) == (200_000, "plugin-record")
    assert gauge.percent() == pytest.approx(100 * 26304 / 200_000)
    assert gauge.spent.value == 6502 + 45006 + 85 + 5
    assert gauge.cost.value == pytest.approx(0.0342828) and gauge.cost.source == "plugin-record"
    assert gauge.model == "fake/fake-model"


def test_a_record_without_totals_or_window_leaves_them_unknown(tmp_path: Path) -> None:
    lines = [
        ln for ln in RECORD.splitlines(keepends=True) if not ln.startswith(("session-", "window"))
    ]
    gauge = OPENCODE.gauge(Where(written(tmp_path, "".join(lines))), Config())
    assert gauge.context.value == 26304
    assert (gauge.spent.why, gauge.cost.why) == ("not-recorded", "not-recorded")
    assert gauge.window.why == "not-recorded", "opencode's window is known from chat.params only"


def test_another_sessions_record_a_missing_one_and_one_hail_never_wrote(tmp_path: Path) -> None:
    path = written(tmp_path, RECORD)
    assert OPENCODE.gauge(Where(path, session="ses_2"), Config()).context.why == "other-session"
    assert OPENCODE.gauge(Where(str(tmp_path / "none")), Config()).context.why == "no-file"
    Path(path).write_text(RECORD + "x" * policy.GAUGE_RECORD_MAX)
    assert OPENCODE.gauge(Where(path), Config()).context.why == "unreadable"
    Path(path).write_text("input: lots\nwindow: -3\nsession-cost: nan\n")
    gauge = OPENCODE.gauge(Where(path), Config())
    assert gauge.context.why == "not-recorded" and gauge.window.value is None
    assert gauge.cost.value is None
    link = tmp_path / "gauge-opencode-1"
    link.symlink_to(tmp_path / "elsewhere")
    assert OPENCODE.gauge(Where(str(link)), Config()).context.why == "unreadable"
