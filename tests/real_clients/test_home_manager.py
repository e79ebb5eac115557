"""hail's hooks installed by the Home Manager module, not by ``hail setup`` (docs/nix.md "Agents
managed by Home Manager"): the test's own Claude Code settings and Codex config (probe hooks, fake
model server, trusted projects) become ``programs.claude-code.settings`` and
``programs.codex.settings`` of a home configuration with ``programs.hail.enable`` and
``hooks.trustCodex``, evaluated inside the real Home Manager (``tests.support.home_manager``). The
files that evaluation generates replace the test's own as read-only links into a store directory,
as Home Manager installs them: settings.json, config.toml, hooks.json and the rule file, which neither
client can write (Codex would otherwise record its first-start notes in config.toml). Then a real
client delivers a message through those hooks, with no review of Codex's hooks.

Needs nix and Home Manager's sources (the snapshots in shared/vendor, or HAIL_HM_SOURCE and
HAIL_HM_NIXPKGS); skipped without them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomlkit

from tests.support import home_manager
from tests.support.entry import hail_bin

from .clients import execpolicy
from .evidence import delivery_tokens, envelope, eventually, first_delivery, submitted_prompt
from .fake_http import request_text
from .world import World

pytestmark = pytest.mark.skipif(
    not home_manager.available(),
    reason="needs nix and Home Manager's sources (the snapshots in shared/vendor)",
)

#: Root writes a 0444 file anyway; an immutable one it cannot.
IMMUTABLE = os.geteuid() == 0 and shutil.which("chattr") is not None

#: The files Home Manager installs for this configuration, home-relative.
GENERATED = (
    ".claude/settings.json",
    ".codex/config.toml",
    ".codex/hooks.json",
    ".codex/rules/hail.rules",
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Path]:
    """A directory standing for the Nix store: files in it are read-only, for root too
    (immutable, where chattr can), as a store path is to its user."""
    path = tmp_path / "store"
    path.mkdir()
    yield path
    if IMMUTABLE:
        for stored in path.iterdir():
            subprocess.run(["chattr", "-i", str(stored)], check=False)


def install_from_the_module(world: World, store: Path) -> Path:
    """Evaluate the module with the world's own agent configs as the user's settings, and link
    the generated files into the world's home. Returns the package's bin/hail."""
    package = world.root / "package"
    (package / "bin").mkdir(parents=True)
    program = package / "bin" / "hail"
    program.symlink_to(hail_bin())

    claude = world.home / ".claude" / "settings.json"
    codex = world.home / ".codex" / "config.toml"
    users = world.root / "users"
    users.mkdir()
    (users / "claude.json").write_text(claude.read_text())
    (users / "codex.json").write_text(json.dumps(tomllib.loads(codex.read_text())))
    config = f"""
      programs.hail.enable = true;
      programs.hail.hooks.trustCodex = true;
      programs.claude-code.enable = true;
      programs.claude-code.package = null;
      programs.claude-code.settings = builtins.fromJSON (builtins.readFile "{users}/claude.json");
      programs.codex.enable = true;
      programs.codex.package = null;
      programs.codex.settings = builtins.fromJSON (builtins.readFile "{users}/codex.json");
    """
    files = home_manager.evaluate(config, str(package), home=str(world.home))["files"]

    world.env["NIX_STORE_DIR"] = str(
        store
    )  # so that hail doctor knows the links for Home Manager's
    for target in GENERATED:
        generated = files[target]
        # Home Manager's TOML format writes the value as TOML; the stand-in package set keeps JSON.
        if target.endswith(".toml"):
            text = tomlkit.dumps(generated["value"])
        else:
            text = generated["content"]
        stored = store / f"{len(list(store.iterdir())):032d}-{Path(target).name}"
        stored.write_text(text)
        stored.chmod(0o444)
        if IMMUTABLE:
            subprocess.run(["chattr", "+i", str(stored)], check=False)
        link = world.home / target
        link.parent.mkdir(parents=True, exist_ok=True)
        link.unlink(missing_ok=True)
        link.symlink_to(stored)
    return program


def test_a_client_delivers_through_the_hooks_of_the_modules_generated_files(
    unset_world: World, client: str, store: Path
) -> None:
    world = unset_world
    program = install_from_the_module(world, store)
    installed = {target: (world.home / target).read_text() for target in GENERATED}
    hooks_file = world.home / (
        ".claude/settings.json" if client == "claude" else ".codex/hooks.json"
    )
    hooks = json.loads(hooks_file.read_text())["hooks"]
    commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
    assert f"{program} deliver --format {client}" in commands, commands

    doctor = world.hail(["doctor"], cwd=world.seat["boss"])
    name = "Claude Code" if client == "claude" else "Codex"
    assert f"ok   {name} hooks current ({hooks_file}, from Home Manager)" in doctor.out, doctor
    assert "trustCodex" not in doctor.out, "the module recorded Codex's trust"

    agent = world.start(client)  # no "Hooks need review": the trust came with the config
    fake = world.fake_for(agent)
    headline = "the module installed these hooks"
    body = "BODY-HM-1 delivered by the hooks Home Manager wrote"

    sent = world.send("worker", headline, body)

    assert sent.rc == 0, sent
    message_id = sent.id
    if client == "claude":
        # The module's hooks hold the waiter too: the idle session is woken, nothing typed.
        assert "hail: woken:" in sent.err, sent
    else:
        prompt = submitted_prompt(agent, message_id)
        assert prompt == envelope(
            message_id, headline, sender=f"boss/{world.boss_pane}", with_body=True
        )
    turn = eventually(lambda: first_delivery(fake, message_id), "the framed body reached the model")
    assert "BODY-HM-1 delivered by the hooks Home Manager wrote" in request_text(turn)
    agent.wait_stops(1)
    assert len(delivery_tokens(fake, message_id)) == 1, "delivered exactly once"
    receipt = world.hail(["sent", message_id])
    assert receipt.out.startswith("injected "), receipt
    for target in GENERATED:
        link = world.home / target
        assert link.is_symlink(), f"{target} stayed Home Manager's link"
        assert link.read_text() == installed[target], f"nothing wrote into {target}"


def test_codex_lets_out_the_modules_hail_by_its_store_path_and_no_other_program_of_that_name(
    unset_world: World, store: Path
) -> None:
    """The pinned Codex's own checker on the rule file the module generated (test_rules.py does
    the same for the one hail setup writes)."""
    world = unset_world
    program = install_from_the_module(world, store)
    rules = world.home / ".codex" / "rules" / "hail.rules"
    cwd = world.seat["worker"]

    def verdict(*argv: str) -> str | None:
        return execpolicy(world.client_bin, [rules], list(argv), cwd=cwd, home=world.home)

    assert verdict("hail", "boss", "ask", "review the parser") == "allow"
    assert verdict(str(program), "inbox") == "allow"
    assert verdict("./hail", "-c", "id") is None
    assert verdict("/tmp/x/hail", "-c", "id") is None
    for args in (["read", "%1", "1000"], ["type", "%1", "x"], ["keys", "%1", "y"], ["setup"]):
        assert verdict("hail", *args) == "prompt", args
        assert verdict(str(program), *args) == "prompt", args
