"""The send verb and the dispatch in front of it, through the installed `hail` without tmux
(docs/commands.md "send", docs/commands.md "Dispatch", docs/commands.md "Exit codes").

`HAIL_SOCKET` points nowhere, so every send that gets through exits 5 with `id=` on stdout; refusals
are checked by their exact text and by the state tree they leave untouched.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest

from hail import policy
from tests.support.entry import hail_bin
from tests.support.ids import id_of
from tests.support.world import World

ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
KINDS = "ask fyi announce hold release"
PARSER_TAIL = ". 'hail help' lists every command"
USAGE = (
    "Usage: hail <seat> <kind> '<headline>', or hail <seat> <kind> <<'EOF' with the headline on "
    "the first line and the body after it"
)
NO_HEADLINE = (
    "no headline: pass it as an argument, or the headline then the body on stdin (heredoc)"
)


# --- helpers -----------------------------------------------------------------------------------


def know(world: World, *seats: str) -> None:
    """Make seats known (and bound) the way a first run in their directory does."""
    for seat in seats:
        proc = world.run("whoami", cwd=seat)
        assert proc.returncode == 0, proc.stderr


def snapshot(root: Path) -> dict[str, str | bytes]:
    """Every entry below `root`: directories, file bytes and link targets, by relative path."""
    out: dict[str, str | bytes] = {}
    if not root.exists():
        return out
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = "-> " + os.readlink(p)
        elif p.is_dir():
            out[rel] = "dir"
        elif p.is_file():
            out[rel] = p.read_bytes()
        else:  # the FIFO a test feeds to stdin: opening it would wait for a writer
            out[rel] = "special"
    return out


def only_error(proc: subprocess.CompletedProcess[str], code: int, text: str) -> None:
    """A refusal: nothing on stdout, exactly `error: <text>` on stderr, the given exit code."""
    assert (proc.returncode, proc.stdout, proc.stderr) == (code, "", f"error: {text}\n")


def mailbox_dir(world: World, mailbox: str) -> Path:
    return world.state / "seats" / mailbox


def message_path(world: World, msg_id: str, mailbox: str = "worker") -> Path:
    """The one file holding `msg_id` in `mailbox` (new/ or cur/)."""
    box = mailbox_dir(world, mailbox)
    found = list(box.glob(f"new/{msg_id}.md")) + list(box.glob(f"cur/{msg_id}.*.md"))
    assert len(found) == 1, found
    return found[0]


def split_message(raw: str) -> tuple[list[tuple[str, str]], str]:
    """Headers in file order and the body (docs/files.md "Message file": blank line, body, one final
    newline)."""
    head, sep, rest = raw.partition("\n\n")
    assert sep and rest.endswith("\n"), raw
    pairs = [tuple(line.split(": ", 1)) for line in head.split("\n")]
    assert all(len(p) == 2 for p in pairs), head
    return [(p[0], p[1]) for p in pairs], rest[:-1]


def stored(world: World, msg_id: str, mailbox: str = "worker") -> tuple[dict[str, str], str]:
    pairs, body = split_message(message_path(world, msg_id, mailbox).read_text())
    return dict(pairs), body


def iso_seconds(text: str) -> int:
    return int(time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ")) - time.timezone)


def run_raw(
    world: World,
    args: Sequence[str | bytes],
    *,
    stdin: int | IO[bytes] | None = None,
    stdout: int | IO[bytes] = subprocess.PIPE,
    cwd: str = "boss",
    timeout: float = 30,
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    """hail with raw arguments and an arbitrary stdin or stdout; returns the result and seconds taken."""
    start = time.monotonic()
    proc = subprocess.run(
        [os.fsencode(hail_bin()), *(os.fsencode(a) for a in args)],
        cwd=world.root / cwd,
        env=world.env,
        stdin=subprocess.DEVNULL if stdin is None else stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=timeout,
        check=False,
    )
    return proc, time.monotonic() - start


@contextmanager
def idle_fifo(tmp_path: Path) -> Iterator[int]:
    """The read end of a FIFO whose writer stays open and sends nothing (`sleep 30 > fifo`)."""
    path = tmp_path / "idle.fifo"
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # does not wait for a writer
    writer = os.open(path, os.O_WRONLY)
    os.set_blocking(reader, True)
    try:
        yield reader
    finally:
        os.close(reader)
        os.close(writer)


def hook_run(world: World, out: Path, *args: str) -> None:
    """`hail deliver …` in worker with stdout to a file, as a harness runs it."""
    with out.open("wb") as f:
        proc, _ = run_raw(world, ["deliver", *args], stdout=f, cwd="worker")
    assert proc.returncode == 0, proc.stderr


def not_woken(world: World, reason: str, tail: str, mailbox: str = "worker") -> str:
    return f"hail: delivered to {mailbox}'s inbox; not typed ({reason}){tail}\n"


def no_hook_tail(where: str, mailbox: str = "worker") -> str:
    return (
        f". No hook has read {mailbox} lately, so it waits until someone runs hail inbox in "
        f"{where}. If its agent works from another directory, hail seats shows where; do not resend."
    )


FRESH_TAIL = "; do not resend: it arrives with their next prompt or tool call"


def worker_root(world: World) -> str:
    return os.path.realpath(world.root / "worker")


# --- kinds ----------------------------------------------------------------------------------------


def test_an_unknown_kind_is_refused_listing_the_five_kinds(world: World) -> None:
    only_error(
        world.run("worker", "bogus", "x"),
        1,
        f"'bogus' is not a kind ({KINDS}). Usage: hail worker <kind> '<headline>'; "
        "if 'worker' is a command, 'hail help' lists them",
    )
    assert not world.state.exists()


VERDICT = (
    ". A verdict leads the headline of a reply: hail worker fyi --re <id> 'GO: land it', "
    "or an ask when you need an answer"
)
OVER_DAYS = f"{policy.HOLD_MAX_DAYS + 1}d"
OVER_HOURS = f"{policy.HOLD_MAX_DAYS * 24 + 1}h"
OVER_HOLD_MAX = (
    f"at most {policy.HOLD_MAX_DAYS}d; a hold is a person's decision, not a standing lock"
)
OLD_KIND_HINTS = {
    "ruling": VERDICT,
    "go": VERDICT,
    "nogo": VERDICT,
    "done": ". Report the outcome: hail worker fyi --re <id> '<what was done>'",
    "stop": ". To stop someone now, send an announce ('STOP: …'); for a standing pause, a hold",
    "block": f". Send a hold (--for up to {policy.HOLD_MAX_DAYS}d)",
}


@pytest.mark.parametrize("old", sorted(OLD_KIND_HINTS))
def test_each_kind_of_an_older_version_is_refused_with_its_hint(world: World, old: str) -> None:
    know(world, "worker")
    before = snapshot(world.state)
    only_error(
        world.run("worker", old, "x"),
        1,
        f"'{old}' is not a kind ({KINDS}). Usage: hail worker <kind> '<headline>'; "
        f"if 'worker' is a command, 'hail help' lists them{OLD_KIND_HINTS[old]}",
    )
    assert snapshot(world.state) == before


def test_a_quoted_headline_in_the_kind_position_is_not_a_kind(world: World) -> None:
    proc = world.run("worker", "no kind given")
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: 'no kind given' is not a kind (")


def test_a_lone_unknown_word_says_the_kind_is_missing(world: World) -> None:
    only_error(
        world.run("bogus"),
        1,
        f"kind is missing: hail bogus <kind> '<headline>' ({KINDS}). "
        "If you meant a command, 'hail help' lists them",
    )


def test_a_mistyped_verb_with_an_argument_points_at_hail_help(world: World) -> None:
    proc = world.run("shw", "1001T000000-0000")
    assert proc.returncode == 1 and proc.stdout == ""
    assert "'hail help' lists them" in proc.stderr
    assert not world.state.exists()


# --- --kind and --body ----------------------------------------------------------------------------

KIND_REFUSAL = f"--kind is not an option: the kind is the word after the seat ({KINDS}). {USAGE}"
BODY_REFUSAL = (
    "--body is not an option: the body goes on stdin after the headline line,"
    f" or in the argument after the headline. {USAGE}"
)
FORCE_REFUSAL = (
    "--force is gone: typing into a permission dialog answers it. Wait until its user resolves it,"
    " then resend, or resend with --no-wake: the message waits in the inbox and the hooks deliver"
    " it after the dialog"
)


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (("worker", "x", "--kind", "ask"), KIND_REFUSAL),
        (("worker", "--kind=ask", "x"), KIND_REFUSAL),
        (("worker", "ask", "x", "--body", "y"), BODY_REFUSAL),
        (("worker", "ask", "--body=-"), BODY_REFUSAL),
        (("send", "--body", "y", "worker", "ask", "x"), BODY_REFUSAL),
        (("worker", "ask", "x", "--force"), FORCE_REFUSAL),
        (("--force", "worker", "ask", "x"), FORCE_REFUSAL),
        (("send", "worker", "ask", "--force", "x"), FORCE_REFUSAL),
    ],
)
def test_kind_body_and_force_flags_are_refused_before_stdin_or_state(
    world: World, tmp_path: Path, args: tuple[str, ...], text: str
) -> None:
    know(world, "worker", "boss")
    before = snapshot(world.root)
    with idle_fifo(tmp_path) as fifo:
        proc, seconds = run_raw(world, [*args, "--no-wake"], stdin=fifo)
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert proc.stderr.decode() == f"error: {text}\n"
    assert seconds < 1.5, "the refusal waited on stdin"
    after = snapshot(world.root)
    after.pop("idle.fifo", None)
    assert after == before


def test_a_kind_flag_refusal_also_beats_a_heredoc(world: World) -> None:
    know(world, "worker")
    before = snapshot(world.state)
    proc = world.run("worker", "ask", "--body=-", stdin="headline\n\nbody\n")
    assert proc.returncode == 1 and "Usage: hail <seat> <kind>" in proc.stderr
    assert snapshot(world.state) == before
    assert not (world.state / "ids").exists() or not os.listdir(world.state / "ids")


def test_kind_after_a_double_dash_is_a_headline(world: World) -> None:
    know(world, "worker")
    proc = world.run("worker", "ask", "--no-wake", "--", "--kind")
    assert proc.returncode == 5, proc.stderr
    headers, _ = stored(world, id_of(proc.stdout))
    assert headers["ask"] == "--kind"


# --- removed spellings, and `send`
# -----------------------------------------------------------------

REMOVED = {
    "message": "'message' is gone: a send is hail <seat> <kind> [headline] with the body on stdin (hail help send)",
    "msg": "'msg' is gone: a send is hail <seat> <kind> [headline] with the body on stdin (hail help send)",
    "note": "'note' is gone: hail talks to no issue tracker; post there directly, or send an fyi",
    "migrate": "'migrate' is gone: import 0.3 state with hail 0.5.x first (nix run github:flowerornament/hail/v0.5.5 -- migrate); this hail ignores it",
    "list": "'list' is gone: hail seats [seat] lists seats and their agent panes",
    "who": "'who' is gone: hail seats [seat] lists seats and their agent panes",
    "resolve": "'resolve' is gone: hail seats [seat] lists seats and their agent panes",
    "id": "'id' is gone: echo $TMUX_PANE prints this pane",
    "name": "'name' is gone: a seat is named by its directory; hail whoami shows it",
    "hello": "'hello' is gone: a seat is named by its directory; hail whoami shows it",
}  # fmt: skip


@pytest.mark.parametrize("word", sorted(REMOVED))
@pytest.mark.parametrize("rest", [(), ("worker", "ask", "x")])
def test_a_removed_spelling_explains_itself_and_writes_nothing(
    world: World, word: str, rest: tuple[str, ...]
) -> None:
    know(world, "worker", "boss")
    before = snapshot(world.root)
    only_error(world.run(word, *rest), 1, REMOVED[word])
    assert snapshot(world.root) == before


def test_send_spelled_out_is_the_bare_send(world: World) -> None:
    know(world, "worker")
    proc = world.run("send", "worker", "ask", "x", "--no-wake")
    assert proc.returncode == 5, proc.stderr
    headers, body = stored(world, id_of(proc.stdout))
    assert (headers["kind"], headers["ask"], body) == ("ask", "x", "x")


def test_send_spelled_out_refuses_like_the_bare_send(world: World) -> None:
    proc = world.run("send", "worker", "bogus", "x")
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: 'bogus' is not a kind ({KINDS}).")


# --- the cap and folding --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "opts"),
    [("announce", ()), ("hold", ()), ("release", ("--re", "1001T000000-0000"))],
)
def test_an_over_cap_control_headline_is_exit_2_and_nothing_is_written(
    world: World, kind: str, opts: tuple[str, ...]
) -> None:
    headline = "STOP " + "y" * 180
    only_error(
        world.run("worker", kind, headline, *opts, "--no-wake"),
        2,
        f"headline is {len(headline)} characters; the cap is 160. A {kind} is complete in its "
        "envelope and has no body; shorten it.",
    )
    assert not world.state.exists()


def test_a_control_headline_at_the_cap_goes_through_whole(world: World) -> None:
    know(world, "worker")
    headline = "A" * 160
    proc = world.run("worker", "announce", headline, "--no-wake")
    assert proc.returncode == 5, proc.stderr
    assert "folded" not in proc.stderr
    headers, body = stored(world, id_of(proc.stdout))
    assert headers["ask"] == body == headline


def test_an_over_cap_ask_is_folded_and_the_file_holds_the_whole_text(world: World) -> None:
    know(world, "worker")
    full = (
        "Review the parser change in src/hail/argv.py before the merge tonight. It moves option "
        "parsing ahead of stdin, which matters for hooks; reply with your verdict and any concerns you have."
    )
    assert 180 < len(full) < 190
    proc = world.run("worker", "ask", full, "--no-wake", stdin="the original body")
    assert proc.returncode == 5
    headers, body = stored(world, id_of(proc.stdout))
    folded = headers["ask"]
    assert proc.stderr.startswith(
        f"hail: headline folded to {len(folded)} characters (cap 160); the full text rides in "
        "the body\n"
    )
    assert len(folded) <= 160 and folded.endswith(" …")
    assert full.startswith(folded[:-2])
    assert body == full + "\n\nthe original body"


def test_the_specs_fold_example_cuts_after_the_first_sentence(world: World) -> None:
    know(world, "worker")
    full = "First sentence is here. Second sentence goes on and on and on and on."
    proc = world.run("worker", "fyi", full, "--no-wake", env={"HAIL_ENVELOPE_MAX": "40"})
    assert proc.returncode == 5
    assert proc.stderr.startswith(
        "hail: headline folded to 24 characters (cap 40); the full text rides in the body\n"
    )
    headers, body = stored(world, id_of(proc.stdout))
    assert (headers["ask"], body) == ("First sentence is here …", full)


def test_a_headline_without_separators_folds_at_the_limit(world: World) -> None:
    know(world, "worker")
    proc = world.run("worker", "ask", "x" * 200, "--no-wake")
    assert proc.returncode == 5
    headers, body = stored(world, id_of(proc.stdout))
    assert headers["ask"] == "x" * 158 + " …"
    assert body == "x" * 200


@pytest.mark.parametrize("value", [None, "", "garbage", "19", "0", "-400", "20.5"])
def test_an_unusable_envelope_max_means_a_cap_of_400(world: World, value: str | None) -> None:
    know(world, "worker")
    if value is None:
        del world.env["HAIL_ENVELOPE_MAX"]
    else:
        world.env["HAIL_ENVELOPE_MAX"] = value
    only_error(
        world.run("worker", "announce", "z" * 401, "--no-wake"),
        2,
        "headline is 401 characters; the cap is 400. A announce is complete in its envelope and "
        "has no body; shorten it.",
    )
    proc = world.run("worker", "announce", "z" * 400, "--no-wake")
    assert proc.returncode == 5, proc.stderr


def test_an_envelope_max_of_20_is_honoured(world: World) -> None:
    proc = world.run("worker", "announce", "z" * 21, env={"HAIL_ENVELOPE_MAX": "20"})
    assert proc.returncode == 2
    assert "the cap is 20." in proc.stderr


def test_the_headline_is_sanitized_and_an_empty_one_refused(world: World) -> None:
    know(world, "worker")
    proc = world.run("worker", "fyi", "a\x1b[31mred\x1b[0m\tz\n", "--no-wake")
    assert proc.returncode == 5
    headers, _ = stored(world, id_of(proc.stdout))
    assert headers["ask"] == "a[31mred[0m z"
    before = snapshot(world.state)
    only_error(
        world.run("worker", "fyi", " \x1b\t\x07 ", "--no-wake"),
        1,
        "empty headline: say the ask and the why in one line",
    )
    assert snapshot(world.state) == before


# --- control kinds have no body -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "opts"),
    [("announce", ()), ("hold", ()), ("release", ("--re", "1001T000000-0000"))],
)
def test_a_control_kind_with_a_body_is_refused_and_nothing_is_written(
    world: World, kind: str, opts: tuple[str, ...]
) -> None:
    text = (
        f"a {kind} has no body: it is complete in its headline (at most 160 characters); "
        "drop the body, or send an ask or fyi"
    )
    only_error(
        world.run("worker", kind, *opts, stdin="STOP: the gate is red\nsecond line\n"), 1, text
    )
    only_error(world.run("worker", kind, "STOP", *opts, stdin="a piped body\n"), 1, text)
    assert not world.state.exists()


def test_a_control_kind_with_whitespace_on_stdin_has_no_body(world: World) -> None:
    know(world, "worker")
    proc = world.run("worker", "announce", "STOP now", "--no-wake", stdin="\n  \n\t\n")
    assert proc.returncode == 5, proc.stderr


# --- targets --------------------------------------------------------------------------------------

BAD_TARGETS = [
    "..", "../..", ".", "worker/../worker", "worker@..", "worker/..", "a/b/c", "a/", "/b", "a/%",
    "a/%x", "hail@%28/%5", "a/b c", "a/b@c",
]  # fmt: skip


@pytest.mark.parametrize("target", BAD_TARGETS)
def test_a_malformed_target_is_refused_and_nothing_is_created(world: World, target: str) -> None:
    proc = world.run(target, "ask", "escape", "--no-wake", stdin="body")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    assert "is not a seat, sub-seat or pane" in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert not (world.root / "state").exists(), snapshot(world.root / "state")


def test_a_sub_agent_address_is_not_supported(world: World) -> None:
    only_error(
        world.run("worker/scout", "ask", "x", "--no-wake"),
        1,
        "worker/scout: sub-agent addresses are not supported; send to worker and name the "
        "sub-agent in the headline",
    )
    assert not world.state.exists()


def test_an_unknown_seat_suggests_known_names_sharing_its_first_letters(world: World) -> None:
    know(world, "worker")
    only_error(
        world.run("worker-x", "ask", "x", "--no-wake"),
        1,
        "unknown seat 'worker-x'; did you mean: worker (hail seats lists them)",
    )
    only_error(
        world.run("zebra", "ask", "x", "--no-wake"),
        1,
        "unknown seat 'zebra' (hail seats lists them)",
    )
    assert not (world.state / "ids").exists()


@pytest.mark.parametrize("target", ["worker/%5", "worker@%5", "%5", "main:0.1", "12"])
def test_a_pane_target_without_tmux_says_no_server_answers(world: World, target: str) -> None:
    know(world, "worker")
    only_error(
        world.run(target, "ask", "x"),
        1,
        f"{target}: no tmux server answers; hail doctor says why tmux is unreachable",
    )
    assert not (world.state / "ids").exists()


def test_a_known_seat_shaped_like_a_pane_target_is_the_seat(world: World) -> None:
    world.make_seat("12")
    know(world, "12")
    proc = world.run("12", "fyi", "to the seat", "--no-wake")
    assert proc.returncode == 5, proc.stderr
    assert message_path(world, id_of(proc.stdout), "12").parent.name == "new"


# --- argument checks ---------------------------------------------------------------------------


RE_REFUSED = (
    "--re must be a message id, such as 1130T171200-a3f1: the id= line of the message you "
    "answer (hail inbox shows each id)"
)


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (("release", "x"), "release needs --re <hold id>; hail brief lists holds in effect"),
        (("release", "x", "--re="), RE_REFUSED),
        (("fyi", "x", "--re", "a/b"), RE_REFUSED),
        (("fyi", "x", "--re", ".."), RE_REFUSED),
        (("ask", "x", "--for", "30m"), "--for applies to hold, not ask"),
        (("announce", "x", "--for", "1h"), "--for applies to hold, not announce"),
        (("hold", "x", "--for", OVER_DAYS), f"--for {OVER_DAYS}: {OVER_HOLD_MAX}"),
        (("hold", "x", "--for", OVER_HOURS), f"--for {OVER_HOURS}: {OVER_HOLD_MAX}"),
        (("hold", "x", "--for", "0h"), "--for 0h: a span such as 30m, 8h or 3d"),
        (("hold", "x", "--for", "3w"), "--for 3w: a span such as 30m, 8h or 3d"),
        (("hold", "x", "--for", "x"), "--for x: a span such as 30m, 8h or 3d"),
        (("hold", "x", "--for", "-1h"), "--for -1h: a span such as 30m, 8h or 3d"),
        (("hold", "x", "--for", "1.5h"), "--for 1.5h: a span such as 30m, 8h or 3d"),
        (("fyi", "x", "--scope", "two\nlines"), "--scope must be one line"),
        (("fyi", "x", "--scope", "carriage\rreturn"), "--scope must be one line"),
        (("fyi", "x", "--scope", "s" * 201), "--scope is 201 characters; at most 200"),
        (("fyi", "x", "y", "z"), f"unexpected argument 'z' after the body{PARSER_TAIL}"),
        (("fyi", "--", "-x", "-y", "-z"), f"unexpected argument '-z' after the body{PARSER_TAIL}"),
        (("hold", "x", "a body"), "a hold has no body: it is complete in its headline (at most 160 characters); drop the body, or send an ask or fyi"),
    ],
)  # fmt: skip
def test_bad_send_arguments_are_refused_before_anything_is_written(
    world: World, args: tuple[str, ...], text: str
) -> None:
    only_error(world.run("worker", *args, "--no-wake"), 1, text)
    assert not world.state.exists()


def test_a_release_of_an_unknown_hold_is_refused_and_files_nothing(world: World) -> None:
    know(world, "worker")
    only_error(
        world.run("worker", "release", "gate green", "--re", "1001T000000-0000", "--no-wake"),
        1,
        "no hold with id 1001T000000-0000; hail brief lists holds in effect",
    )
    assert not (world.state / "ids").exists()
    assert not (mailbox_dir(world, "worker") / "cur").exists()


@pytest.mark.parametrize(
    "args",
    [
        ("worker", "ask", "x", "--bead", "b-1"),
        ("worker", "ask", "x", "--as", "scout"),
        ("worker", "ask", "x", "-x"),
        ("worker", "ask", "x", "--no-wake=yes"),
        ("worker", "ask", "x", "--re"),
        ("worker", "ask", "--scope"),
        ("--bogus", "worker", "ask", "x"),
    ],
)
def test_a_parser_error_is_one_line_exit_1_pointing_at_help(
    world: World, args: tuple[str, ...]
) -> None:
    proc = world.run(*args)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("error: ") and proc.stderr.endswith(f"{PARSER_TAIL}\n")
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Usage" not in proc.stderr
    assert not world.state.exists()


@pytest.mark.parametrize(
    "args",
    [
        ("worker", "fyi", "hello", "--scope", "-x"),
        ("worker", "fyi", "hello", "--scope=-x"),
        ("worker", "--scope", "-x", "fyi", "hello"),
        ("worker", "fyi", "--scope", "-x", "hello"),
        ("send", "--scope=-x", "worker", "fyi", "hello"),
        ("send", "--no-wake", "--scope", "-x", "worker", "fyi", "hello"),
        ("worker", "fyi", "--scope=-x", "--no-wake", "hello"),
        ("--no-wake", "--scope", "-x", "worker", "fyi", "hello"),
        ("--scope=-x", "worker", "fyi", "hello"),
    ],
)
def test_options_go_before_between_or_after_the_positionals(
    world: World, args: tuple[str, ...]
) -> None:
    know(world, "worker")
    proc = world.run(*args, "--no-wake")
    assert proc.returncode == 5, proc.stderr
    headers, body = stored(world, id_of(proc.stdout))
    assert (headers["kind"], headers["scope"], headers["ask"], body) == (
        "fyi",
        "-x",
        "hello",
        "hello",
    )


def test_a_double_dash_lets_a_headline_start_with_a_dash(world: World) -> None:
    know(world, "worker")
    proc = world.run("worker", "ask", "--no-wake", "--re=1001T000000-0000", "--", "-v is broken")
    assert proc.returncode == 5, proc.stderr
    headers, _ = stored(world, id_of(proc.stdout))
    assert (headers["ask"], headers["re"]) == ("-v is broken", "1001T000000-0000")
    proc = world.run("worker", "ask", "--no-wake", "--", "--help")
    assert proc.returncode == 5, proc.stderr
    assert stored(world, id_of(proc.stdout))[0]["ask"] == "--help"


def test_a_scope_of_200_characters_is_kept(world: World) -> None:
    know(world, "worker")
    proc = world.run("worker", "fyi", "x", "--scope", "s" * 200, "--no-wake")
    assert proc.returncode == 5, proc.stderr
    assert stored(world, id_of(proc.stdout))[0]["scope"] == "s" * 200


# --- the directory decides ------------------------------------------------------------------------


def seatless(world: World, name: str) -> Path:
    """A directory below HOME (where the seat walk stops) with no marker."""
    d = world.root / "home" / name
    d.mkdir()
    return d


def test_whoami_names_the_seat_of_the_directory(world: World) -> None:
    for seat in ("boss", "worker"):
        proc = world.run("whoami", cwd=seat)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines()[0] == f"seat: {seat}"
        assert f"from: {os.path.realpath(world.root / seat)} (.hail-seat)" in proc.stdout
    assert (mailbox_dir(world, "worker") / "root").read_text() == worker_root(world) + "\n"


def test_a_seatless_directory_has_no_seat(world: World) -> None:
    where = seatless(world, "loose1")
    text = (
        f"no seat here: {os.path.realpath(where)} is not in a jj workspace or git repo; run hail "
        "from your workspace, or add a .hail-seat file naming it"
    )
    only_error(world.run("whoami", cwd=where), 3, text)
    know(world, "worker")
    before = snapshot(world.state)
    only_error(world.run("worker", "ask", "x", "--no-wake", cwd=where), 3, text)
    assert snapshot(world.state) == before


def test_hail_seat_names_a_seatless_directory_and_binds_nothing(world: World) -> None:
    for name in ("loose1", "loose2"):
        proc = world.run("whoami", cwd=seatless(world, name), env={"HAIL_SEAT": "loose"})
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines()[:2] == [
            "seat: loose",
            f"from: {os.path.realpath(world.root / 'home' / name)} (HAIL_SEAT (no workspace here))",
        ]
    assert not world.state.exists()
    know(world, "worker")
    proc = world.run(
        "worker", "fyi", "from nowhere", "--no-wake", cwd=world.root / "home" / "loose2",
        env={"HAIL_SEAT": "loose"},
    )  # fmt: skip
    assert proc.returncode == 5, proc.stderr
    headers, _ = stored(world, id_of(proc.stdout))
    assert (headers["from"], headers["reply"]) == ("loose", "loose")
    assert not (mailbox_dir(world, "loose") / "root").exists()


def test_hail_seat_cannot_take_a_seat_bound_to_a_directory_from_elsewhere(world: World) -> None:
    know(world, "worker")
    msg_id = world.send("worker", "ask", "for worker only")
    where = seatless(world, "loose1")
    root = os.path.realpath(world.root / "worker")
    text = (
        f"HAIL_SEAT=worker names seat worker, which is bound to {root}, and "
        f"{os.path.realpath(where)} is not in it: run hail from {root}, or set HAIL_SEAT to a "
        "name no directory holds"
    )
    for args in (("inbox",), ("whoami",), ("brief",), ("boss", "fyi", "as worker", "--no-wake")):
        only_error(world.run(*args, cwd=where, env={"HAIL_SEAT": "worker"}), 3, text)
    hook = world.run("deliver", "--format", "claude", cwd=where, env={"HAIL_SEAT": "worker"})
    assert (hook.returncode, hook.stdout) == (0, "")
    assert world.run("sent", msg_id).stdout == "delivered\n"  # still worker's, unread
    assert text in (world.state / "hook-errors.log").read_text()
    doctor = world.run("doctor", cwd=where, env={"HAIL_SEAT": "worker"})
    assert f"FIX  {text}" in doctor.stdout.splitlines()
    # From the bound directory itself (its marker gone), HAIL_SEAT names the seat as before.
    (world.root / "worker" / ".hail-seat").unlink()
    inbox = world.run("inbox", cwd="worker", env={"HAIL_SEAT": "worker"})
    assert inbox.returncode == 0, inbox.stderr
    assert msg_id in inbox.stdout


def test_hail_seat_naming_a_seat_no_directory_holds_reads_its_mail(world: World) -> None:
    know(world, "worker")
    where = seatless(world, "loose1")
    proc = world.run("worker", "fyi", "hello", "--no-wake", cwd=where, env={"HAIL_SEAT": "loose"})
    assert proc.returncode == 5, proc.stderr
    msg_id = world.send("loose", "fyi", "back to you", known=False)
    inbox = world.run("inbox", cwd=where, env={"HAIL_SEAT": "loose"})
    assert inbox.returncode == 0, inbox.stderr
    assert msg_id in inbox.stdout
    assert world.run("sent", msg_id).stdout.startswith("read ")
    assert not (mailbox_dir(world, "loose") / "root").exists()


def test_a_directory_seat_beats_hail_seat(world: World) -> None:
    proc = world.run("whoami", cwd="worker", env={"HAIL_SEAT": "boss"})
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0] == "seat: worker"


@pytest.mark.parametrize("value", ["..", ".", "a/b", "send", "msg", "has space"])
def test_hail_seat_must_be_a_plain_name(world: World, value: str) -> None:
    where = seatless(world, "loose1")
    only_error(
        world.run("whoami", cwd=where, env={"HAIL_SEAT": value}),
        3,
        f"HAIL_SEAT={value} is not a plain seat name",
    )
    assert not world.state.exists()


def test_a_second_directory_claiming_a_bound_name_is_refused(world: World) -> None:
    know(world, "boss")
    other = world.make_seat("elsewhere", "boss")
    text = (
        f"seat boss is bound to {os.path.realpath(world.root / 'boss')}; add .hail-seat with "
        f"another name in {os.path.realpath(other)}"
    )
    only_error(world.run("whoami", cwd=other), 3, text)
    know(world, "worker")
    before = snapshot(world.state)
    only_error(world.run("worker", "ask", "x", "--no-wake", cwd=other), 3, text)
    assert snapshot(world.state) == before


# --- exit 5 and its wording -----------------------------------------------------------------------


def test_a_send_without_tmux_is_filed_and_says_not_to_resend(world: World) -> None:
    know(world, "worker")
    proc = world.run("worker", "ask", "is the gate green?")
    assert proc.returncode == 5
    msg_id = id_of(proc.stdout)
    assert proc.stderr == not_woken(world, "no tmux server", no_hook_tail(worker_root(world)))
    assert message_path(world, msg_id).parent.name == "new"
    assert (mailbox_dir(world, "boss") / "pending" / msg_id).exists()


def test_no_wake_is_its_own_reason(world: World) -> None:
    know(world, "worker")
    proc = world.run("worker", "ask", "x", "--no-wake")
    assert proc.returncode == 5
    assert proc.stderr == not_woken(world, "--no-wake", no_hook_tail(worker_root(world)))


def test_after_a_hook_run_exit_5_says_it_arrives_with_the_next_prompt(
    world: World, tmp_path: Path
) -> None:
    know(world, "worker")
    hook_run(world, tmp_path / "hook.out", "--format", "claude")
    proc = world.run("worker", "ask", "x", "--no-wake")
    assert proc.returncode == 5
    assert proc.stderr == not_woken(world, "--no-wake", FRESH_TAIL)


def test_a_hook_run_over_7_days_ago_no_longer_counts(world: World, tmp_path: Path) -> None:
    know(world, "worker")
    hook_run(world, tmp_path / "hook.out", "--format", "claude")
    hooked = mailbox_dir(world, "worker") / "hooked"
    old = time.time() - 7 * 86400 - 60
    os.utime(hooked, (old, old))
    proc = world.run("worker", "fyi", "x", "--no-wake")
    assert proc.returncode == 5
    assert proc.stderr == not_woken(world, "--no-wake", no_hook_tail(worker_root(world)))


def test_a_deleted_workspace_is_named_as_gone(world: World) -> None:
    know(world, "worker")
    root = worker_root(world)
    hook_run(world, world.root / "hook.out", "--format", "claude")  # the gone root comes first
    shutil.rmtree(world.root / "worker")
    proc = world.run("worker", "ask", "x", "--no-wake")
    assert proc.returncode == 5
    assert proc.stderr == not_woken(
        world,
        "--no-wake",
        f". Its workspace {root} is gone, so no hook will read it; do not resend "
        "(hail doctor lists such seats)",
    )


def test_an_unbound_mailbox_waits_for_an_inbox_in_its_seat(world: World) -> None:
    (mailbox_dir(world, "worker")).mkdir(parents=True, mode=0o700)
    proc = world.run("worker", "ask", "x", "--no-wake")
    assert proc.returncode == 5, proc.stderr
    assert proc.stderr == not_woken(world, "--no-wake", no_hook_tail("its seat"))


# --- byte identity --------------------------------------------------------------------------------

HOSTILE_HEADLINE = "Review `auth` and $(whoami); it's == fine"
HOSTILE_LINE = "run `make check` then $(rm -rf /nope) with \"double\", 'single' and a back\\slash"


@pytest.mark.parametrize("blank", ["", "\n"])
def test_a_heredoc_arrives_byte_for_byte(world: World, blank: str) -> None:
    know(world, "worker")
    data = f"{HOSTILE_HEADLINE}\n{blank}{HOSTILE_LINE}\n".encode()
    proc = world.run("worker", "ask", "--no-wake", stdin=data)
    assert proc.returncode == 5, proc.stderr
    raw = message_path(world, id_of(proc.stdout)).read_bytes()
    assert f"\nask: {HOSTILE_HEADLINE}\n\n{HOSTILE_LINE}\n".encode() in raw
    assert raw.endswith(f"\n\n{HOSTILE_LINE}\n".encode())


def test_invalid_utf8_in_a_headline_argument_is_replaced(world: World) -> None:
    know(world, "worker")
    proc, _ = run_raw(world, ["worker", "ask", "--no-wake", b"bad\xffbyte"])
    assert b"internal error" not in proc.stderr
    assert proc.returncode == 5, proc.stderr
    headers, body = stored(world, id_of(proc.stdout.decode()))
    assert headers["ask"] == body == "bad\ufffdbyte"


# --- stdin never hangs ----------------------------------------------------------------------------


def test_an_idle_pipe_costs_at_most_two_seconds(world: World, tmp_path: Path) -> None:
    know(world, "worker")
    with idle_fifo(tmp_path) as fifo:
        proc, seconds = run_raw(world, ["worker", "ask", "still here", "--no-wake"], stdin=fifo)
    assert proc.returncode == 5, proc.stderr
    assert seconds < 3.0
    headers, body = stored(world, id_of(proc.stdout.decode()))
    assert headers["ask"] == body == "still here"


def test_no_headline_and_no_stdin_is_refused(world: World, tmp_path: Path) -> None:
    know(world, "worker")
    before = snapshot(world.state)
    only_error(world.run("worker", "ask", "--no-wake"), 1, NO_HEADLINE)
    with idle_fifo(tmp_path) as fifo:
        proc, seconds = run_raw(world, ["worker", "ask", "--no-wake"], stdin=fifo)
    assert (proc.returncode, proc.stderr.decode()) == (1, f"error: {NO_HEADLINE}\n")
    assert seconds < 3.0
    assert snapshot(world.state) == before


def test_a_heredoc_with_a_headline_argument_becomes_the_body(world: World) -> None:
    know(world, "worker")
    proc = world.run(
        "worker", "ask", "the headline", "--no-wake", stdin="\n\nline one\nline two\n\n"
    )
    assert proc.returncode == 5, proc.stderr
    headers, body = stored(world, id_of(proc.stdout))
    assert (headers["ask"], body) == ("the headline", "line one\nline two")


@pytest.mark.parametrize("delay", [0.05, 0.5])
def test_a_body_piped_late_is_kept(world: World, delay: float) -> None:
    know(world, "worker")
    p = subprocess.Popen(
        [hail_bin(), "worker", "ask", "late body", "--no-wake"],
        cwd=world.root / "boss",
        env=world.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert p.stdin is not None
    time.sleep(delay)  # the delay is the scenario: the writer starts late
    p.stdin.write(b"it came ")
    p.stdin.flush()
    time.sleep(delay)
    out, err = p.communicate(b"in two parts\n", timeout=30)
    assert p.returncode == 5, err
    assert stored(world, id_of(out.decode()))[1] == "it came in two parts"


@pytest.mark.parametrize("stdin", ["   \n\t\n", "\n\n\n"])
def test_a_body_of_only_whitespace_counts_as_none(world: World, stdin: str) -> None:
    know(world, "worker")
    proc = world.run("worker", "ask", "just this", "--no-wake", stdin=stdin)
    assert proc.returncode == 5, proc.stderr
    headers, body = stored(world, id_of(proc.stdout))
    assert headers["ask"] == body == "just this"


@pytest.mark.parametrize(
    ("stdin", "body"),
    [
        ("HEAD\n\n\nkept blank\n\n\n", "\nkept blank"),
        ("HEAD\n\nbody\n", "body"),
        ("HEAD\nbody at once\n", "body at once"),
        ("HEAD\n  indented\n", "  indented"),
        ("HEAD\n\n\n", None),
        ("HEAD", None),
    ],
)
def test_the_heredoc_form_drops_one_leading_blank_line_and_trailing_newlines(
    world: World, stdin: str, body: str | None
) -> None:
    know(world, "worker")
    proc = world.run("worker", "ask", "--no-wake", stdin=stdin)
    assert proc.returncode == 5, proc.stderr
    headers, stored_body = stored(world, id_of(proc.stdout))
    assert headers["ask"] == "HEAD"
    assert stored_body == (body if body is not None else "HEAD")


# --- the quiet fyi --------------------------------------------------------------------------------

QUIET = (
    "hail: quiet: arrives with worker's next prompt or tool call (an fyi never interrupts; an ask "
    "or announce does)\n"
)


def test_an_fyi_to_a_hooked_mailbox_is_quiet_and_rides_the_next_hook(
    world: World, tmp_path: Path
) -> None:
    know(world, "worker")
    out = tmp_path / "hook.out"
    hook_run(world, out, "--format", "claude")
    proc = world.run("worker", "fyi", "the build is green", stdin="details")
    assert (proc.returncode, proc.stderr) == (0, QUIET)
    msg_id = id_of(proc.stdout)
    assert not (mailbox_dir(world, "boss") / "pending" / msg_id).exists()
    assert message_path(world, msg_id).parent.name == "new"
    hook_run(world, out, "--format", "claude")
    assert f"id:{msg_id}" in out.read_text()
    assert world.run("sent", msg_id).stdout.startswith("injected ")


def test_an_ask_to_a_hooked_mailbox_is_never_quiet(world: World, tmp_path: Path) -> None:
    know(world, "worker")
    hook_run(world, tmp_path / "hook.out", "--format", "claude")
    proc = world.run("worker", "ask", "x")
    assert proc.returncode == 5
    assert "quiet" not in proc.stderr
    assert (mailbox_dir(world, "boss") / "pending" / id_of(proc.stdout)).exists()


def test_a_hand_run_deliver_leaves_no_mark_so_an_fyi_interrupts_again(
    world: World, tmp_path: Path
) -> None:
    know(world, "worker")
    hook_run(world, tmp_path / "hook.out", "--format", "claude")
    hooked = mailbox_dir(world, "worker") / "hooked"
    hooked.unlink()
    hook_run(world, tmp_path / "hand.out")
    assert not hooked.exists()
    proc = world.run("worker", "fyi", "typed again")
    assert proc.returncode == 5
    assert proc.stderr == not_woken(world, "no tmux server", no_hook_tail(worker_root(world)))
    assert (mailbox_dir(world, "boss") / "pending" / id_of(proc.stdout)).exists()


def test_a_deliver_to_dev_null_claims_nothing(world: World) -> None:
    know(world, "worker")
    msg_id = world.send("worker", "ask", "keep me", body="the body")
    with open(os.devnull, "wb") as sink:
        proc, _ = run_raw(world, ["deliver", "--format", "claude"], stdout=sink, cwd="worker")
    assert proc.returncode == 0
    assert message_path(world, msg_id).parent.name == "new"
    assert world.run("sent", msg_id).stdout == "delivered\n"


# --- permissions ----------------------------------------------------------------------------------


def test_everything_a_send_a_hold_and_a_hook_create_is_private(
    world: World, tmp_path: Path
) -> None:
    assert os.umask(0o022) == 0o022
    assert not world.state.exists()
    know(world, "worker")
    world.send("worker", "ask", "private?", body="the body")
    world.send("worker", "hold", "HOLD landing", "--for", "1h")
    hook_run(world, tmp_path / "hook.out", "--format", "claude")
    expected_files = {"seats/worker/root", "seats/boss/root", "seats/worker/hooked"}
    seen: set[str] = set()
    for p in [world.state, *world.state.rglob("*")]:
        mode = stat.S_IMODE(os.lstat(p).st_mode)
        rel = str(p.relative_to(world.state))
        if p.is_symlink():
            continue
        if p.is_dir():
            assert mode == 0o700, (rel, oct(mode))
        else:
            assert mode == 0o600, (rel, oct(mode))
            seen.add(rel)
    assert expected_files <= seen
    assert any(s.startswith("seats/boss/pending/") for s in seen)
    assert any(s.startswith("holds/") for s in seen)
    assert any(s.startswith("seats/worker/cur/") and s.endswith(".injected.md") for s in seen)


# --- the files a send writes (docs/files.md "Message file", docs/files.md "Records") ------------


def test_an_ask_is_filed_with_headers_in_order_and_a_pending_record(world: World) -> None:
    know(world, "worker")
    t0 = int(time.time())
    proc = world.run(
        "worker", "ask", "review the parser", "--no-wake", stdin="first line\nsecond line\n"
    )
    t1 = int(time.time()) + 1
    msg_id = id_of(proc.stdout)
    path = message_path(world, msg_id)
    assert path == mailbox_dir(world, "worker") / "new" / f"{msg_id}.md"
    raw = path.read_text()
    found = re.fullmatch(
        f"from: boss\nreply: boss\nkind: ask\nid: {msg_id}\ntime: ({ISO})\n"
        "ask: review the parser\n\nfirst line\nsecond line\n",
        raw,
    )
    assert found, raw
    assert t0 <= iso_seconds(found.group(1)) <= t1
    record = (mailbox_dir(world, "boss") / "pending" / msg_id).read_text()
    found = re.fullmatch(
        f"id: {msg_id}\nkind: ask\nto: worker\nepoch: (\\d+)\nheadline: review the parser\n", record
    )
    assert found, record
    assert t0 <= int(found.group(1)) <= t1
    assert os.readlink(world.state / "ids" / msg_id) == "worker"
    assert world.run("sent", msg_id).stdout == "delivered\n"


def test_a_hold_files_every_header_and_its_record_in_order(world: World) -> None:
    know(world, "worker")
    proc = world.run(
        "worker", "hold", "HOLD landing until the gate is green", "--re", "1001T000000-0000",
        "--scope", "murail-ke7is", "--for", "30m", "--no-wake",
    )  # fmt: skip
    assert proc.returncode == 5, proc.stderr
    msg_id = id_of(proc.stdout)
    path = message_path(world, msg_id)
    assert path == mailbox_dir(world, "worker") / "new" / f"{msg_id}.md"
    pairs, body = split_message(path.read_text())
    assert [k for k, _ in pairs] == [
        "from", "reply", "kind", "id", "time", "re", "scope", "until", "ask",
    ]  # fmt: skip
    h = dict(pairs)
    assert (h["from"], h["reply"], h["kind"], h["id"]) == ("boss", "boss", "hold", msg_id)
    assert (h["re"], h["scope"]) == ("1001T000000-0000", "murail-ke7is")
    assert iso_seconds(h["until"]) - iso_seconds(h["time"]) == 1800
    assert h["ask"] == body == "HOLD landing until the gate is green"
    record = (world.state / "holds" / msg_id).read_text()
    assert record == (
        f"id: {msg_id}\nkind: hold\nissuer: boss\nto: worker\nscope: murail-ke7is\n"
        f"time: {h['time']}\nre: 1001T000000-0000\nexpires: {h['until']}\n"
        "headline: HOLD landing until the gate is green\n"
    )
    assert not (mailbox_dir(world, "boss") / "pending").exists()
    assert world.run("sent", msg_id).stdout == "delivered\n"


def test_a_hold_without_for_lapses_in_8_hours_and_keeps_an_empty_scope(world: World) -> None:
    know(world, "worker")
    msg_id = world.send("worker", "hold", "HOLD merges")
    record = (world.state / "holds" / msg_id).read_text()
    fields = dict(line.split(": ", 1) for line in record.splitlines())
    assert list(fields) == ["id", "kind", "issuer", "to", "scope", "time", "expires", "headline"]
    assert fields["scope"] == ""
    assert iso_seconds(fields["expires"]) - iso_seconds(fields["time"]) == 8 * 3600
    assert "until" in stored(world, msg_id)[0]


@pytest.mark.parametrize("span", ["7d", "168h", "1m"])
def test_the_largest_and_smallest_spans_are_accepted(world: World, span: str) -> None:
    know(world, "worker")
    msg_id = world.send("worker", "hold", "HOLD", "--for", span)
    fields = dict(
        line.split(": ", 1) for line in (world.state / "holds" / msg_id).read_text().splitlines()
    )
    seconds = {"7d": 7 * 86400, "168h": 7 * 86400, "1m": 60}[span]
    assert iso_seconds(fields["expires"]) - iso_seconds(fields["time"]) == seconds


def test_announce_and_release_not_typed_stay_unread_with_no_pending_record(world: World) -> None:
    know(world, "worker")
    hold_id = world.send("worker", "hold", "HOLD landing")
    for kind, opts in (("announce", ()), ("release", ("--re", hold_id))):
        proc = world.run("worker", kind, f"{kind} now", *opts, "--no-wake")
        assert proc.returncode == 5, proc.stderr
        msg_id = id_of(proc.stdout)
        path = message_path(world, msg_id)
        assert path.name == f"{msg_id}.md" and path.parent.name == "new"
        headers, body = stored(world, msg_id)
        assert headers["kind"] == kind and body == f"{kind} now"
        assert world.run("sent", msg_id).stdout == "delivered\n"
        assert "do not resend" in proc.stderr
    assert headers["re"] == hold_id
    assert not (world.state / "holds" / hold_id).exists()
    assert not (mailbox_dir(world, "boss") / "pending").exists()


def test_a_reply_carries_re_and_scope_in_its_file(world: World) -> None:
    know(world, "worker", "boss")
    proc = world.run(
        "boss", "fyi", "GO: land it", "--re", "1001T000000-0000", "--scope", "herald/x",
        "--no-wake", cwd="worker",
    )  # fmt: skip
    assert proc.returncode == 5, proc.stderr
    pairs, body = split_message(message_path(world, id_of(proc.stdout), "boss").read_text())
    assert [k for k, _ in pairs] == ["from", "reply", "kind", "id", "time", "re", "scope", "ask"]
    assert dict(pairs)["from"] == "worker" and dict(pairs)["reply"] == "worker"
    assert body == "GO: land it"


# --- a report that reaches nobody -------------------------------------------------------------------


def run_with_dead_stdout(world: World, args: Sequence[str], *, closed: bool) -> tuple[int, str]:
    """Run hail with fd 1 closed (`>&-`) or a pipe whose reader is gone; (exit code, stderr)."""
    env = {**world.env, "PYTHONUNBUFFERED": "1"}
    if closed:
        proc = subprocess.run(
            ["sh", "-c", 'exec "$@" >&-', "sh", hail_bin(), *args],
            cwd=world.root / "boss",
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=False,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
        return proc.returncode, proc.stderr.decode()
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [hail_bin(), *args],
            cwd=world.root / "boss",
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    return proc.returncode, proc.stderr.decode()


@pytest.mark.parametrize("closed", [True, False], ids=["fd-1-closed", "reader-gone"])
def test_a_send_whose_stdout_reaches_nobody_still_reports_its_status(
    world: World, closed: bool
) -> None:
    know(world, "worker")
    code, err = run_with_dead_stdout(
        world, ["worker", "ask", "nobody reads me", "--no-wake"], closed=closed
    )
    assert code == 5, err
    assert "hail: delivered to worker's inbox; not typed (--no-wake)" in err
    assert "internal error" not in err and "Traceback" not in err
    new = world.state / "seats" / "worker" / "new"
    assert any("nobody reads me" in p.read_text() for p in new.iterdir())


def test_await_keeps_its_timeout_status_when_its_reader_is_gone(world: World) -> None:
    code, err = run_with_dead_stdout(
        world, ["await", "1001T000000-0000", "--timeout", "0"], closed=False
    )
    assert code == 1, err
    assert err == ""


def test_legacy_flags_before_the_target_get_the_legacy_refusal(world: World) -> None:
    for flag, start in (
        ("--kind=ask", "--kind is not an option"),
        ("--body", "--body is not an option"),
    ):
        proc = world.run(flag, "worker", "x")
        assert proc.returncode == 1
        assert proc.stderr.startswith(f"error: {start}"), proc.stderr
        assert "Usage: hail <seat> <kind>" in proc.stderr


def test_a_span_with_a_leading_zero_is_still_a_positive_integer(world: World) -> None:
    know(world, "worker")
    proc = world.run("worker", "hold", "x", "--for", "03h", "--no-wake")
    assert proc.returncode == 5, proc.stderr


# --- a body as the argument after the headline ---------------------------------------------------


def test_a_body_can_follow_the_headline_as_one_argument_of_many_lines(world: World) -> None:
    """Codex runs a heredoc inside its sandbox, where hail cannot write; a quoted argument of
    several lines is a command hail's Codex rule lets out, so the body can ride there."""
    know(world, "worker")
    body = "line one with $HOME and `ticks` kept\n\nline three"
    r = world.run("worker", "ask", "review the parser", "\n" + body + "\n", "--no-wake")
    assert r.returncode == 5, r.stderr
    headers, stored_body = stored(world, id_of(r.stdout))
    assert headers["ask"] == "review the parser"
    assert stored_body == body


def test_a_body_argument_and_a_body_on_stdin_are_refused_and_nothing_is_written(
    world: World,
) -> None:
    know(world, "worker")
    before = snapshot(world.state)
    only_error(
        world.run("worker", "ask", "headline", "body", "--no-wake", stdin="another body\n"),
        1,
        "two bodies: one after the headline and one on stdin; send one of them",
    )
    assert snapshot(world.state) == before
