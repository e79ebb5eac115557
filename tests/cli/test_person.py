"""The person's seat from the command line, without tmux (docs/seats.md "The person",
docs/seats.md "Trust boundary"): an agent's send to `person` files in the person's inbox and exits
0; `--as person` reads and answers as the person from a terminal outside every agent, and is
refused (exit 7, nothing read or written) in a process without one, or with an agent's marker;
`person` and `all` can name no seat.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hail.harnesses import registry
from tests.support.ids import id_of
from tests.support.person import run_as_person, without_agents
from tests.support.world import World, clean_env

MARKERS = [m for h in registry.every() for m in h.markers]


@pytest.fixture
def world(tmp_path: Path) -> World:
    # No tmux here, so no stand-in agents: the agents hail knows are the ones a parent may be.
    env = without_agents(clean_env(tmp_path))
    del env["HAIL_AGENT_COMMANDS"]
    w = World(tmp_path, env)
    w.make_seat("api")
    return w


def person(world: World, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    proc = run_as_person(*args, cwd=world.root, env={**world.env, **(env or {})})
    return proc.returncode, proc.stdout, proc.stderr


def test_an_agents_ask_to_the_person_is_filed_in_their_inbox_and_exits_0(world: World) -> None:
    proc = world.run("person", "ask", "May I force-push main?", cwd="api")
    assert proc.returncode == 0, proc.stderr
    msg_id = id_of(proc.stdout)
    assert (world.state / "seats" / "person" / "new" / f"{msg_id}.md").is_file()
    assert "filed for the person: they see it in hail watch, or hail --as person inbox" in (
        proc.stderr
    )


def test_the_person_reads_and_answers_and_the_agent_gets_the_reply(world: World) -> None:
    ask = id_of(world.run("person", "ask", "May I force-push main?", cwd="api").stdout)
    code, out, err = person(world, "--as", "person", "inbox")
    assert code == 0, err
    assert "from:person is" not in out  # the agent's message is an agent's
    assert f"ask from:api id:{ask}] May I force-push main?" in out
    code, out, err = person(world, "--as", "person", "api", "fyi", "--re", ask, "GO: push it")
    assert code == 5, err  # no tmux here: filed, not woken
    reply = id_of(out)
    got = world.run("inbox", cwd="api")
    assert f"fyi from:person id:{reply} re:{ask}] GO: push it" in got.stdout
    assert "from:person is your user's seat, sent with hail --as person" in got.stdout
    assert f"replied {reply}" in world.run("sent", ask, cwd="api").stdout


def test_as_person_without_a_terminal_is_refused_and_nothing_is_filed(world: World) -> None:
    proc = world.run("--as", "person", "api", "fyi", "GO", cwd=world.root)
    assert proc.returncode == 7
    assert "--as person is refused: it has no terminal" in proc.stderr
    assert not (world.state / "seats").exists()


@pytest.mark.parametrize("marker", MARKERS)
def test_as_person_with_an_agents_marker_is_refused_at_a_terminal(
    world: World, marker: str
) -> None:
    code, out, err = person(world, "--as", "person", "api", "fyi", "GO", env={marker: "1"})
    assert (code, out) == (7, ""), err
    assert f"--as person is refused: {marker} is set" in err
    assert not (world.state / "seats").exists()


def test_as_person_under_an_agent_process_is_refused(world: World) -> None:
    # `sh` counts as an agent here: the walk up the parent chain meets the one that runs hail.
    code, _, err = person(world, "--as", "person", "whoami", env={"HAIL_AGENT_COMMANDS": "sh"})
    assert code == 7
    assert "--as person is refused: it runs under sh (pid" in err


def test_no_seat_here_never_falls_back_to_the_person(world: World) -> None:
    code, _, err = person(world, "inbox")
    assert code == 3
    assert "no seat here" in err


def test_as_takes_only_the_person_and_only_first(world: World) -> None:
    proc = world.run("--as", "api", "inbox", cwd="api")
    assert proc.returncode == 1
    assert "--as takes 'person', not 'api'" in proc.stderr
    proc = world.run("inbox", "--as", "person", cwd="api")
    assert (proc.returncode, proc.stderr.startswith("error: --as goes first")) == (1, True)
    proc = world.run("--as", "person", "seats", cwd="api")
    assert proc.returncode == 1
    assert "--as person runs send, sent, await, inbox, show, brief, whoami, not seats" in (
        proc.stderr
    )


@pytest.mark.parametrize("name", ["person", "all"])
def test_person_and_all_can_name_no_seat(world: World, name: str) -> None:
    world.make_seat("odd", content=name)
    proc = world.run("whoami", cwd="odd")
    assert proc.returncode == 3
    assert f"seat name '{name}' from {world.root / 'odd'} is reserved" in proc.stderr
    proc = world.run("whoami", cwd=world.root, env={"HAIL_SEAT": name})
    assert proc.returncode == 3
    assert f"HAIL_SEAT={name} is reserved" in proc.stderr


def test_whoami_as_person_names_the_persons_seat(world: World) -> None:
    code, out, err = person(world, "--as", "person", "whoami")
    assert code == 0, err
    assert out.splitlines()[0] == "seat: person"
    assert "(--as person)" in out


def test_a_reply_to_the_persons_ask_comes_back_to_the_persons_inbox(world: World) -> None:
    world.run("whoami", cwd="api")  # a known seat
    code, out, err = person(world, "--as", "person", "api", "ask", "Is the gate green?")
    assert code == 5, err  # no tmux: filed for api, not woken
    ask = id_of(out)
    reply = world.run("person", "fyi", "--re", ask, "GO: green at 4f2c9e1", cwd="api")
    assert reply.returncode == 0, reply.stderr  # filed for the person, typed nowhere
    assert "filed for the person" in reply.stderr
    code, out, err = person(world, "--as", "person", "await", "--reply", ask, "--timeout", "5")
    assert code == 0, err
    assert f"fyi from:api id:{id_of(reply.stdout)} re:{ask}] GO: green at 4f2c9e1" in out
    code, out, _ = person(world, "--as", "person", "sent", ask)
    assert f"replied {id_of(reply.stdout)}" in out
