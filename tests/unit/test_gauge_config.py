"""hail's own config.toml [docs/gauge.md "Config"]: the windows and prices a person gives, read
with tomlkit; a file that is not what the page describes is refused whole, naming the file and
the fix; hail invents no price."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hail.config import config_path, load, parse
from hail.errors import StateError
from hail.gauge.base import Tokens, priced

GOOD = """\
# the person's own notes survive
[gauge.windows]
"claude-nova-9" = 400000

[gauge.prices."claude-opus-5-5"]   # USD per million tokens
input = 5
output = 25.0
cache_read = 0.5
cache_write = 6.25

[gauge.prices."gpt-5.5"]
input = 1.25
output = 10
"""


def test_a_config_gives_windows_and_prices_by_model(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    path = Path(config_path(env))
    assert path == tmp_path / "xdg" / "hail" / "config.toml"
    assert (load(env).windows, load(env).prices) == ({}, {}), "no file: an empty config"
    path.parent.mkdir(parents=True)
    path.write_text(GOOD)
    config = load(env)
    assert config.windows == {"claude-nova-9": 400_000}
    opus = config.prices["claude-opus-5-5"]
    assert (opus.input, opus.output, opus.cache_read, opus.cache_write) == (5.0, 25.0, 0.5, 6.25)
    gpt = config.prices["gpt-5.5"]
    assert (gpt.cache_read, gpt.cache_write) == (None, None)


def test_a_linked_config_is_read_as_home_manager_leaves_it(tmp_path: Path) -> None:
    target = tmp_path / "store-config.toml"
    target.write_text(GOOD)
    env = {"HOME": str(tmp_path)}
    path = Path(config_path(env))
    path.parent.mkdir(parents=True)
    path.symlink_to(target)
    assert load(env).windows == {"claude-nova-9": 400_000}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[gauge.windows\n", "is not TOML"),
        ('[guage.windows]\n"m" = 1\n', "unknown key guage (known: gauge)"),
        ('[gauge.window]\n"m" = 1\n', "unknown key gauge.window"),
        ('[gauge.windows]\n"m" = "200k"\n', "gauge.windows.m is '200k', not a whole number"),
        ('[gauge.windows]\n"m" = 0\n', "gauge.windows.m is 0"),
        ('[gauge.prices."m"]\ninput = 1\n', "gauge.prices.m has no output price"),
        ('[gauge.prices."m"]\ninput = 1\noutput = -2\n', "gauge.prices.m.output is -2"),
        ('[gauge.prices."m"]\ninput = 1\noutput = true\n', "gauge.prices.m.output is True"),
        (
            '[gauge.prices."m"]\ninput = 1\noutput = 2\ncached = 1\n',
            "unknown key gauge.prices.m.cached",
        ),
        ("gauge = 3\n", "gauge is not a table"),
    ],
)
def test_a_config_hail_cannot_use_is_refused_with_its_path_and_fix(text: str, says: str) -> None:
    with pytest.raises(StateError) as err:
        parse(text, "/home/p/.config/hail/config.toml")
    message = str(err.value)
    assert message.startswith("/home/p/.config/hail/config.toml") and says in message
    assert message.endswith('fix it or move it aside (docs/gauge.md "Config")')


def test_an_unreadable_config_is_refused_too(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    path = Path(config_path(env))
    path.parent.mkdir(parents=True)
    path.write_bytes(b"[gauge]\n\xff\n")
    with pytest.raises(StateError, match="cannot be read"):
        load(env)
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(StateError, match="not a regular file"):
        load(env)  # and never waits on it


def test_a_price_never_covers_tokens_it_has_no_rate_for() -> None:
    price = parse('[gauge.prices."m"]\ninput = 2\noutput = 10\n', "c").prices["m"]
    assert priced(Tokens(1_000_000, 0, 0, 100_000), price) == pytest.approx(3.0)
    assert priced(Tokens(1_000_000, 5, 0, 0), price) is None, "a cache read with no cache price"
