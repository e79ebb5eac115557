"""Unexpected errors can be diagnosed: a hook logs the traceback of one below its line in
hook-errors.log, which stays bounded, and `HAIL_DEBUG=1` prints it for any verb
(docs/files.md "Small files", docs/commands.md "Output conventions")."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from hail import policy
from hail.errors import SeatError
from hail.hooks import protocol
from hail.store.store import Store
from tests.support.world import World

ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
ENTRY_LINE = re.compile(rf"^{ISO} \S+: ")


def break_cur(world: World, seat: str = "worker") -> None:
    """`cur/` a plain file: every claim's rename fails with an OSError, even for root."""
    cur = world.state / "seats" / seat / "cur"
    cur.rmdir()
    cur.write_text("")


def entries(log: str) -> list[list[str]]:
    """The log's entries: each starts with its `<iso> <verb>:` line, its traceback below it."""
    out: list[list[str]] = []
    for line in log.splitlines():
        if ENTRY_LINE.match(line):
            out.append([line])
        else:
            assert out and line.startswith("  "), line
            out[-1].append(line)
    return out


def test_an_unexpected_error_in_deliver_is_logged_with_its_traceback(world: World) -> None:
    world.send("worker", "ask", "stays unread", body="body")
    break_cur(world)
    proc = world.run("deliver", "--format", "claude", cwd="worker")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    ((line, *trace),) = entries((world.state / "hook-errors.log").read_text())
    assert re.match(rf"{ISO} deliver: \[Errno 20\] Not a directory: ", line)
    assert trace[0] == "  Traceback (most recent call last):"
    text = "\n".join(trace)
    for function in ("deliver", "claim_within_budget", "claim"):
        assert f", in {function}\n" in text + "\n", text
    assert trace[-1].startswith("  NotADirectoryError: [Errno 20] Not a directory: ")


def test_an_unexpected_error_in_the_session_start_hook_is_logged_with_its_traceback(
    world: World,
) -> None:
    world.run("whoami", cwd="worker")
    # The binding file a directory: the hook's bind cannot write it.
    root = world.state / "seats" / "worker" / "root"
    root.unlink()
    root.mkdir()
    proc = world.run("brief", "--hook", cwd="worker")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    ((line, *trace),) = entries((world.state / "hook-errors.log").read_text())
    assert line.split(" ", 2)[1] == "brief:"
    text = "\n".join(trace)
    assert ", in brief_hook\n" in text and ", in bind\n" in text, text
    assert trace[-1].startswith("  IsADirectoryError: ")


def test_hails_own_errors_are_logged_as_one_line(world: World) -> None:
    world.run("whoami", cwd="worker")
    (world.state / "seats/worker/root").write_text("/somewhere/else\n")
    assert world.run("brief", "--hook", cwd="worker").returncode == 0
    log = (world.state / "hook-errors.log").read_text()
    assert re.fullmatch(rf"{ISO} brief: seat worker is bound to /somewhere/else; .+\n", log)


def failed_claim(tmp_path: Path) -> Exception:
    """A real unexpected error of a claim: `cur/` is a plain file."""
    store = Store(str(tmp_path / "state" / "hail"))
    box = store.mailbox("worker")
    box.post("1201T000000-0000", "kind: ask\n\nbody\n", inline=False)
    os.rmdir(box.cur)
    Path(box.cur).write_text("")
    try:
        box.claim("1201T000000-0000", "injected")
    except OSError as exc:
        return exc
    raise AssertionError("the claim did not fail")


def test_the_log_stays_within_its_bound_after_many_errors(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "state" / "hail"))
    error = failed_claim(tmp_path)
    log = Path(store.hook_log)
    bound = policy.HOOK_LOG_MAX
    rotations = 0
    while rotations < 2:
        before = log.stat().st_size if log.exists() else 0
        protocol.log_error(store, "deliver", error)
        rotations += log.stat().st_size < before
        assert log.stat().st_size <= bound
    assert Path(store.hook_log + ".1").stat().st_size <= bound
    for path in (log, Path(store.hook_log + ".1")):
        found = entries(path.read_text())
        assert found and all(e[-1].startswith("  NotADirectoryError: ") for e in found)
    assert sorted(p.name for p in log.parent.iterdir()) == [
        "hook-errors.log",
        "hook-errors.log.1",
        "seats",
    ]


def test_one_huge_error_keeps_its_line_and_the_end_of_its_traceback_within_an_entry(
    tmp_path: Path,
) -> None:
    store = Store(str(tmp_path / "state" / "hail"))

    def nested(depth: int) -> None:
        try:
            if depth:
                nested(depth - 1)
            else:
                raise ValueError("innermost " + "x" * 100_000)
        except Exception as exc:  # each level adds a cause to the chain
            raise RuntimeError(f"level {depth}") from exc

    try:
        nested(300)
    except RuntimeError as exc:
        protocol.log_error(store, "deliver", exc)
    text = Path(store.hook_log).read_text()
    assert len(text.encode()) <= policy.HOOK_LOG_ENTRY_MAX
    ((line, *trace),) = entries(text)
    assert line.endswith(" deliver: level 300")
    assert trace[-1] == "  RuntimeError: level 300"
    assert any("earlier lines of the traceback left out" in t for t in trace)


# --- HAIL_DEBUG ---------------------------------------------------------------------------------


def failing_inbox(world: World, debug: str | None) -> tuple[int, str]:
    world.send("worker", "ask", "stays unread", body="body")
    break_cur(world)
    env = {} if debug is None else {"HAIL_DEBUG": debug}
    proc = world.run("inbox", cwd="worker", env=env)
    return proc.returncode, proc.stderr


def test_hail_debug_prints_the_traceback_of_an_unexpected_error_above_its_error_line(
    world: World,
) -> None:
    rc, err = failing_inbox(world, "1")
    assert rc == 1
    first, *rest = err.splitlines()
    assert first == "Traceback (most recent call last):"
    assert any(", in inbox" in line for line in rest) and any(", in claim" in line for line in rest)
    assert rest[-2].startswith("NotADirectoryError: [Errno 20] Not a directory: ")
    assert re.fullmatch(r"error: internal error: \[Errno 20\] .+; please report it", rest[-1])


@pytest.mark.parametrize("debug", [None, "", "0"])
def test_without_hail_debug_no_traceback_is_printed(world: World, debug: str | None) -> None:
    rc, err = failing_inbox(world, debug)
    assert rc == 1
    assert re.fullmatch(r"error: internal error: \[Errno 20\] .+; please report it\n", err)


def test_hail_debug_prints_a_hooks_traceback_and_the_hook_still_exits_0(world: World) -> None:
    world.send("worker", "ask", "stays unread", body="body")
    break_cur(world)
    proc = world.run("deliver", "--format", "claude", cwd="worker", env={"HAIL_DEBUG": "1"})
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr.startswith("Traceback (most recent call last):\n")
    assert ", in claim_within_budget\n" in proc.stderr
    assert (world.state / "hook-errors.log").exists()


def test_hail_debug_prints_no_traceback_for_hails_own_errors(world: World, tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    proc = world.run("inbox", cwd=loose, env={"HAIL_DEBUG": "1"})
    assert proc.returncode == SeatError.exit_code
    assert proc.stderr.startswith("error: no seat here") and proc.stderr.count("\n") == 1


# --- errors that escape a hook ------------------------------------------------------------------


def deep_payload(agent: str) -> str:
    """A tool call's payload nested deeper than `json` can parse, well within the read limit."""
    return '{"agent_id":"' + agent + '","tool_response":' + "[" * 5000 + "]" * 5000 + "}"


def test_a_payload_nested_too_deep_for_json_is_judged_like_a_malformed_one(world: World) -> None:
    world.send("worker", "ask", "after a deep tool output", body="DEEP-BODY")
    deliver = ("deliver", "--format", "claude", "--event", "PostToolUse")
    sub_agent = world.run(*deliver, cwd="worker", stdin=deep_payload("a1"))
    assert (sub_agent.returncode, sub_agent.stdout, sub_agent.stderr) == (0, "", "")
    own = world.run(*deliver, cwd="worker", stdin=deep_payload(""))
    assert own.returncode == 0 and "DEEP-BODY" in own.stdout
    assert not (world.state / "hook-errors.log").exists()


@pytest.mark.parametrize("verb", ["deliver", "brief"])
def test_an_error_that_escapes_a_hook_is_logged_with_its_traceback_and_exits_0(
    verb: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hail import entry
    from hail.hooks import brief, deliver

    def broken(*args: object, **kwargs: object) -> int:
        raise LookupError("escaped the hook")

    monkeypatch.setattr(deliver, "deliver", broken)
    monkeypatch.setattr(brief, "brief_hook", broken)
    args = ["deliver", "--format", "claude"] if verb == "deliver" else ["brief", "--hook"]
    assert entry.dispatch(args) == 0
    ((line, *trace),) = entries((tmp_path / "state" / "hail" / "hook-errors.log").read_text())
    assert line.endswith(f" {verb}: escaped the hook")
    assert (
        any(", in dispatch" in t for t in trace) and trace[-1] == "  LookupError: escaped the hook"
    )
