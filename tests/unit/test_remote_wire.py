"""The pure parts of other machines [docs/seats.md "Other machines"]: the address grammar's host
forms, the peer protocol's framing, why ssh did not get there, and the control directory."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hail import policy
from hail.errors import UsageError
from hail.remote import ssh, wire
from hail.remote.channel import Outcome
from hail.seat import Addr, parse_target
from hail.store.conversation import seat_of_mailbox


@pytest.mark.parametrize(
    ("arg", "addr"),
    [
        ("worker@buildbox", Addr(seat="worker", host="buildbox")),
        ("worker@build-box.lan", Addr(seat="worker", host="build-box.lan")),
        ("worker@%3@buildbox", Addr(seat="worker", pane="%3", sub=True, host="buildbox")),
        ("worker@%3", Addr(seat="worker", pane="%3", sub=True)),
    ],
)
def test_a_host_follows_the_seat_or_sub_seat(arg: str, addr: Addr) -> None:
    assert parse_target(arg) == addr


@pytest.mark.parametrize(
    "arg",
    ["worker@-oProxyCommand=x", "worker@", "worker@me@buildbox", "worker@%3@", "worker@%3@%4",
     "worker@%x@bb", "worker@a b", "worker/%3@bb", "worker@bb/x", "worker@$(id)"],
)  # fmt: skip
def test_no_host_can_be_an_ssh_option_a_user_or_a_second_address(arg: str) -> None:
    with pytest.raises(UsageError, match="is not a seat, sub-seat or pane"):
        parse_target(arg)


def test_a_seat_on_another_machine_is_never_a_local_seat() -> None:
    assert seat_of_mailbox("boss@alpha") == "boss@alpha"
    assert seat_of_mailbox("boss@%3@alpha") == "boss@alpha"
    assert seat_of_mailbox("boss@%3") == "boss"


@given(st.lists(st.text()))
def test_packed_texts_come_back_as_they_went(texts: list[str]) -> None:
    assert wire.unpack(wire.pack(texts)) == texts


@given(st.text(), st.text(alphabet=st.characters(codec="utf-8")))
def test_a_request_carries_any_body_byte_for_byte(headline: str, body: str) -> None:
    got = wire.read(wire.request("send", {"ask": headline}, body))
    assert got is not None and got.get("op") == "send" and got.body == body
    assert "\n" not in got.get("ask")


def test_what_is_not_a_peer_message_is_none() -> None:
    assert wire.read(b"error: kind is missing\n") is None
    assert wire.read(b"") is None


def test_a_bad_hail_host_is_refused_and_none_falls_back_to_the_host_name() -> None:
    with pytest.raises(UsageError, match="HAIL_HOST=-x is not a host name"):
        wire.own_host({"HAIL_HOST": "-x"})
    assert wire.own_host({"HAIL_HOST": "laptop"}) == "laptop"
    assert wire.own_host({}) == os.uname().nodename.split(".")[0] or "localhost"


@pytest.mark.parametrize(
    ("said", "cause"),
    [
        (b"ssh: Could not resolve hostname nope: Name or service not known\n", "does not resolve"),
        (b"ssh: connect to host 127.0.0.1 port 9: Connection refused\n", "was refused"),
        (b"ssh: connect to host 10.0.0.1 port 22: Connection timed out\n", "connect timeout"),
        (b"root@127.0.0.1: Permission denied (publickey).\n", "key was refused"),
        (b"Host key verification failed.\n", "host key"),
    ],
)
def test_ssh_that_never_got_there_names_the_cause(said: bytes, cause: str) -> None:
    refused = ssh.CHANNEL.refusal("box", Outcome(255, b"", said))
    assert refused is not None and refused.message.startswith("box is unreachable: ")
    assert cause in refused.message


def test_a_drop_after_connecting_is_no_refusal_and_a_missing_hail_is() -> None:
    assert ssh.CHANNEL.refusal("box", Outcome(255, b"", b"Connection to box closed.\n")) is None
    missing = ssh.CHANNEL.refusal("box", Outcome(127, b"", b"bash: hail: command not found\n"))
    assert missing is not None and "no hail on the PATH ssh gives it" in missing.message


@pytest.fixture
def short() -> Iterator[Path]:
    """A directory with a short path (pytest's own are too deep for a socket under them)."""
    path = Path(tempfile.mkdtemp(prefix="h", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path)


def _state(tmp_path: Path, *, deep: int = 0) -> dict[str, str]:
    """An environment whose state root exists (as a send leaves it), `deep` characters down."""
    home = tmp_path / ("d" * deep) if deep else tmp_path
    root = home / "state" / "hail"
    root.mkdir(parents=True, mode=0o700)
    return {"XDG_STATE_HOME": str(home / "state"), "HOME": str(tmp_path)}


def _control_path(argv: list[str]) -> str | None:
    found = [a.removeprefix("ControlPath=") for a in argv if a.startswith("ControlPath=")]
    return found[0] if found else None


def test_the_command_line_holds_only_hails_fixed_words(short: Path) -> None:
    env = {**_state(short), "HAIL_SSH": "ssh -F '/a dir/cfg'"}
    argv = ssh.command(env, "a-long-host-alias.example.net", "hail")
    assert argv[:3] == ["ssh", "-F", "/a dir/cfg"]
    assert argv[-4:] == ["--", "a-long-host-alias.example.net", "hail", "remote-peer"]
    assert "BatchMode=yes" in argv and "ControlMaster=auto" in argv
    # A dead connection is given up within seconds, shared or not.
    assert f"ServerAliveInterval={policy.SSH_ALIVE_SECONDS}" in argv
    assert f"ServerAliveCountMax={policy.SSH_ALIVE_COUNT}" in argv


def test_control_sockets_lie_in_the_state_root_never_in_a_temporary_directory(
    short: Path,
) -> None:
    """Whoever can plant a socket where ssh looks for the shared connection reads and answers every
    call to that host; a sandboxed agent may write /tmp, and may set a variable: none moves it."""
    env = {**_state(short), "HAIL_SSH_CONTROL_DIR": "/tmp", "TMPDIR": "/tmp"}
    path = _control_path(ssh.command(env, "box", "hail"))
    assert path is not None and path.startswith(f"{short}/state/hail/ssh/"), path
    where = Path(path).parent
    assert where.stat().st_mode & 0o777 == 0o700 and where.stat().st_uid == os.geteuid()
    assert len(Path(path).name) == 16 and int(Path(path).name, 16) >= 0  # a short hash
    # ssh binds `<path>.<16 random characters>` first: with its NUL, within macOS's 104 bytes.
    assert len(path.encode()) + 18 <= policy.SOCKET_PATH_MAX
    # Two aliases, or two ssh command lines, never share a connection.
    assert _control_path(ssh.command(env, "box2", "hail")) != path
    assert _control_path(ssh.command({**env, "HAIL_SSH": "ssh -F x"}, "box", "hail")) != path


def test_a_state_root_too_deep_for_a_socket_shares_no_connection(tmp_path: Path) -> None:
    env = _state(tmp_path, deep=policy.SOCKET_PATH_MAX)
    argv = ssh.command(env, "box", "hail")
    assert _control_path(argv) is None and "ControlMaster=auto" not in argv
    assert "BatchMode=yes" in argv


def test_no_state_root_yet_shares_no_connection(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "none"), "HOME": str(tmp_path)}
    assert _control_path(ssh.command(env, "box", "hail")) is None
    assert not (tmp_path / "none").exists(), "nothing made for it"


def test_a_control_directory_others_could_write_shares_no_connection(tmp_path: Path) -> None:
    env = _state(tmp_path)
    open_dir = tmp_path / "state" / "hail" / "ssh"
    open_dir.mkdir(mode=0o777)
    open_dir.chmod(0o777)
    argv = ssh.command(env, "box", "hail")
    assert not any(a.startswith("ControlPath=") for a in argv)
