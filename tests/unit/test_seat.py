"""Identity from the directory and the address grammar (docs/seats.md "Seat of a directory",
docs/seats.md "Addresses")."""

from __future__ import annotations

from pathlib import Path

import pytest

from hail import seat as seats
from hail.context import Ctx
from hail.errors import SeatError, UsageError
from hail.seat import Addr, Seat, parse_mailbox, parse_target
from hail.store.store import Store, state_root


def find_seat(cwd: Path, home: Path) -> Seat | None:
    return seats.find_seat(str(cwd), str(home))


def seat_of(cwd: Path, home: Path, env: dict[str, str]) -> Seat | None:
    return seats.seat_of(str(cwd), str(home), env)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir(exist_ok=True)
    return h


def test_a_hail_seat_file_names_the_seat_with_whitespace_trimmed(home: Path) -> None:
    ws = home / "code" / "api"
    (ws / "src").mkdir(parents=True)
    (ws / ".hail-seat").write_text("  api-1a \n")
    seat = find_seat(ws / "src", home)
    assert seat is not None
    assert (seat.name, seat.root, seat.source) == ("api-1a", str(ws), ".hail-seat")


def test_the_nearest_marker_wins_even_a_git_below_a_hail_seat(home: Path) -> None:
    outer = home / "outer"
    inner = outer / "inner"
    (inner / "deep").mkdir(parents=True)
    (outer / ".hail-seat").write_text("outer-seat\n")
    (inner / ".git").mkdir()
    seat = find_seat(inner / "deep", home)
    assert seat is not None
    assert (seat.name, seat.root, seat.source) == ("inner", str(inner), "git root")


def test_hail_seat_beats_jj_and_jj_beats_git_in_one_directory(home: Path) -> None:
    ws = home / "ws"
    (ws / ".jj").mkdir(parents=True)
    (ws / ".git").mkdir()
    seat = find_seat(ws, home)
    assert seat is not None and seat.source == "jj workspace root"
    (ws / ".hail-seat").write_text("named\n")
    seat = find_seat(ws, home)
    assert seat is not None and (seat.name, seat.source) == ("named", ".hail-seat")


def test_a_git_file_counts_as_a_worktree_root(home: Path) -> None:
    wt = home / "wt-2"
    wt.mkdir()
    (wt / ".git").write_text("gitdir: /elsewhere/.git/worktrees/wt-2\n")
    seat = find_seat(wt, home)
    assert seat is not None and (seat.name, seat.source) == ("wt-2", "git root")


def test_a_jj_file_is_not_a_jj_workspace(home: Path) -> None:
    d = home / "d"
    d.mkdir()
    (d / ".jj").write_text("")
    assert find_seat(d, home) is None


def test_the_walk_stops_at_home_which_is_never_a_seat(home: Path) -> None:
    (home / ".git").mkdir()
    stray = home / "notes" / "x"
    stray.mkdir(parents=True)
    assert find_seat(stray, home) is None
    assert find_seat(home, home) is None


def test_home_is_compared_after_resolving_symlinks(tmp_path: Path, home: Path) -> None:
    (tmp_path / ".git").mkdir()  # above HOME: must never be reached
    link = tmp_path / "home-link"
    link.symlink_to(home)
    (home / "sub").mkdir()
    assert find_seat(home / "sub", link) is None


def test_nothing_found_means_no_seat(tmp_path: Path) -> None:
    d = tmp_path / "plain"
    d.mkdir()
    assert find_seat(d, tmp_path / "elsewhere") is None


@pytest.mark.parametrize("name", ["bad name", "..", "inbox", "msg", "", "a/b"])
def test_a_bad_or_reserved_name_is_refused_with_exit_3(home: Path, name: str) -> None:
    ws = home / "ws"
    ws.mkdir()
    (ws / ".hail-seat").write_text(name + "\n")
    with pytest.raises(SeatError) as err:
        find_seat(ws, home)
    assert err.value.exit_code == 3
    assert err.value.message == (
        f"seat name '{name}' from {ws} is not a plain name; write a plain name "
        f"[A-Za-z0-9._-] (not a hail verb) to {ws}/.hail-seat"
    )


@pytest.mark.parametrize("name", ["...", ".nix-config", "api_1.b-2"])
def test_dotted_and_dashed_names_are_plain(home: Path, name: str) -> None:
    ws = home / "ws"
    ws.mkdir()
    (ws / ".hail-seat").write_text(name)
    seat = find_seat(ws, home)
    assert seat is not None and seat.name == name


def test_hail_seat_is_used_only_where_the_directory_names_none(home: Path) -> None:
    loose = home / "loose"
    loose.mkdir()
    seat = seat_of(loose, home, {"HAIL_SEAT": "loose"})
    assert seat is not None
    assert (seat.name, seat.root, seat.source) == (
        "loose",
        str(loose),
        "HAIL_SEAT (no workspace here)",
    )
    assert not seat.bindable
    ws = home / "worker"
    ws.mkdir()
    (ws / ".hail-seat").write_text("worker\n")
    seat = seat_of(ws, home, {"HAIL_SEAT": "boss"})
    assert seat is not None and seat.name == "worker" and seat.bindable


def test_an_empty_hail_seat_means_no_seat(home: Path) -> None:
    assert seat_of(home, home, {"HAIL_SEAT": ""}) is None


@pytest.mark.parametrize("value", ["..", "a b", "send", "x/y"])
def test_a_bad_hail_seat_is_refused_with_exit_3(home: Path, value: str) -> None:
    loose = home / "loose"
    loose.mkdir()
    with pytest.raises(SeatError) as err:
        seat_of(loose, home, {"HAIL_SEAT": value})
    assert err.value.exit_code == 3
    assert err.value.message == f"HAIL_SEAT={value} is not a plain seat name"


def test_a_stale_hail_seat_is_harmless_where_a_directory_names_the_seat(home: Path) -> None:
    ws = home / "ws"
    ws.mkdir()
    (ws / ".git").mkdir()
    seat = seat_of(ws, home, {"HAIL_SEAT": ".."})
    assert seat is not None and seat.name == "ws"


# --- addresses -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arg", "addr"),
    [
        ("worker", Addr(seat="worker")),
        ("shared@%5", Addr(seat="shared", pane="%5", sub=True)),
        ("boss/%0", Addr(seat="boss", pane="%0")),
        ("%12", Addr(pane_target="%12")),
        ("main:1.2", Addr(pane_target="main:1.2")),
        ("42", Addr(pane_target="42")),
        ("...", Addr(seat="...")),
    ],
)
def test_every_address_form_parses(arg: str, addr: Addr) -> None:
    assert parse_target(arg) == addr


def test_the_mailbox_of_a_sub_seat_is_its_directory_name() -> None:
    assert parse_target("shared@%5").mailbox == "shared@%5"
    assert parse_target("worker").mailbox == "worker"


@pytest.mark.parametrize(
    "arg",
    [
        "..",
        "../..",
        ".",
        "worker/../worker",
        "worker@..",
        "worker/..",
        "a/b/c",
        "a/",
        "/b",
        "a/%",
        "a/%x",
        "hail@%28/%5",
        "a/b c",
        "a/b@c",
        "",
        "wor\0ker",
        "%x",
    ],
)
def test_malformed_targets_are_refused(arg: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_target(arg)
    assert err.value.exit_code == 1
    assert "is not a seat, sub-seat or pane" in err.value.message


def test_a_sub_agent_address_is_not_in_the_core() -> None:
    with pytest.raises(UsageError) as err:
        parse_target("worker/scout")
    assert err.value.exit_code == 1
    assert err.value.message == (
        "worker/scout: sub-agent addresses are not supported; send to worker and name the "
        "sub-agent in the headline"
    )


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("worker", ("worker", "")), ("s@%3", ("s", "%3")), ("%3", None), ("s@3", None), ("..", None)],
)
def test_mailbox_names_are_seats_or_sub_seats(text: str, parsed: tuple[str, str] | None) -> None:
    assert parse_mailbox(text) == parsed


# --- resolving the seat here, and binding it (docs/seats.md "Binding") ----------------------------


def _ctx(tmp_path: Path, cwd: Path, extra: dict[str, str] | None = None) -> Ctx:
    env = {
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        **(extra or {}),
    }
    return Ctx(env, str(cwd), env["HOME"], Store(state_root(env)), "", False, 160)


def _workspace(tmp_path: Path, name: str) -> Path:
    ws = tmp_path / name
    ws.mkdir()
    (ws / ".hail-seat").write_text("api\n")
    return ws


def test_resolving_the_seat_here_writes_nothing_and_binding_it_records_its_root(
    tmp_path: Path,
) -> None:
    ws = _workspace(tmp_path, "ws")
    ctx = _ctx(tmp_path, ws)
    seat = ctx.seat_here()
    assert (seat.name, seat.root) == ("api", str(ws))
    assert not (tmp_path / "state").exists()
    ctx.bind(seat)
    assert (tmp_path / "state/hail/seats/api/root").read_text() == f"{ws}\n"


def test_resolving_refuses_no_seat_and_a_name_bound_elsewhere_before_anything_binds(
    tmp_path: Path,
) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    with pytest.raises(SeatError, match="no seat here"):
        _ctx(tmp_path, loose).seat_here()
    first = _ctx(tmp_path, _workspace(tmp_path, "first"))
    first.bind(first.seat_here())
    before = (tmp_path / "state/hail/seats/api/root").read_text()
    with pytest.raises(SeatError, match="is bound to"):
        _ctx(tmp_path, _workspace(tmp_path, "second")).seat_here()
    assert (tmp_path / "state/hail/seats/api/root").read_text() == before


def test_a_hail_seat_seat_is_resolved_and_bound_without_writing_anything(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    ctx = _ctx(tmp_path, loose, {"HAIL_SEAT": "cron"})
    ctx.bind(ctx.seat_here())
    assert ctx.require_seat().name == "cron"
    assert not (tmp_path / "state").exists()


def test_require_seat_resolves_and_binds(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "ws")
    assert _ctx(tmp_path, ws).require_seat().name == "api"
    assert (tmp_path / "state/hail/seats/api/root").read_text() == f"{ws}\n"
