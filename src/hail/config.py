"""hail's own config file, `$XDG_CONFIG_HOME/hail/config.toml` [docs/gauge.md "Config"]: the
windows and prices a person gives for the models their agents run, which the context gauge uses
where a client's own files do not say them.

The one module that reads TOML of hail's own (tomlkit, imported only when the file exists). A file
that is not what docs/gauge.md describes is refused whole, with its path and what is wrong: a
mistyped price must not turn into a wrong cost.
"""

from __future__ import annotations

import errno
import os
import stat

from hail.errors import StateError
from hail.store import fs
from hail.store.store import config_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

CONFIG_NAME = "config.toml"
#: The keys of a model's price, in USD per million tokens; the first two are required.
PRICE_KEYS = ("input", "output", "cache_read", "cache_write")
_GAUGE_KEYS = ("windows", "prices")
#: The fix every refusal ends with.
FIX = 'fix it or move it aside (docs/gauge.md "Config")'


class Price:
    """What one model costs, in USD per million tokens: input read fresh, output (reasoning
    included), and, where the person gives them, input read from a cache and written to one."""

    __slots__ = ("cache_read", "cache_write", "input", "output")

    def __init__(
        self,
        input: float,
        output: float,
        cache_read: float | None = None,
        cache_write: float | None = None,
    ) -> None:
        self.input = input
        self.output = output
        self.cache_read = cache_read
        self.cache_write = cache_write

    def __repr__(self) -> str:
        return f"Price({self.input}, {self.output}, {self.cache_read}, {self.cache_write})"


class Config:
    """The person's windows (tokens) and prices, by model name as the client names it."""

    __slots__ = ("path", "prices", "windows")

    def __init__(
        self,
        path: str = "",
        windows: Mapping[str, int] | None = None,
        prices: Mapping[str, Price] | None = None,
    ) -> None:
        self.path = path
        self.windows: Mapping[str, int] = windows or {}
        self.prices: Mapping[str, Price] = prices or {}


def config_path(env: Mapping[str, str]) -> str:
    return os.path.join(config_root(env), CONFIG_NAME)


def load(env: Mapping[str, str]) -> Config:
    """The person's config; an empty one when there is no file. StateError, naming the file and
    the fix, when it cannot be read or is not what docs/gauge.md describes."""
    path = config_path(env)
    try:
        text = _read(path)
    except (OSError, UnicodeDecodeError) as e:
        raise StateError(f"{path} cannot be read ({e}); {FIX}") from e
    return Config(path) if text is None else parse(text, path)


class Followed:
    """The person's config as a look that repeats keeps it (`hail watch`): read once, again only
    when the file's mtime or size changed, never while there is none. `config` is None while the
    file is refused, and `refused` then says why, with the fix."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.path = config_path(env)
        self.env = env
        self.config: Config | None = Config(self.path)
        self.refused = ""
        self._stamp: tuple[int, int] | None = None

    def look(self) -> Config | None:
        """The config now: one stat when it did not change."""
        try:
            st = os.stat(self.path)
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if stamp != self._stamp:
            self._stamp = stamp
            try:
                self.config, self.refused = load(self.env), ""
            except StateError as e:
                self.config, self.refused = None, e.message
        return self.config


def _read(path: str) -> str | None:
    """The file's text, None when there is none. Unlike the state's files it may be a symlink (a
    Home Manager user's config is a link into the Nix store); a FIFO is never waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise fs.NotRegularFile(errno.EINVAL, "not a regular file", path)
        chunks: list[bytes] = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8")


def parse(text: str, path: str) -> Config:
    """The config in `text` (the file at `path`, named in errors)."""
    import tomlkit
    import tomlkit.exceptions

    try:
        doc = tomlkit.parse(text).unwrap()
    except tomlkit.exceptions.ParseError as e:
        raise StateError(f"{path} is not TOML: {e}; {FIX}") from e
    _only(doc, ("gauge",), path, "")
    gauge = _table(doc.get("gauge", {}), path, "gauge")
    _only(gauge, _GAUGE_KEYS, path, "gauge.")
    windows = _table(gauge.get("windows", {}), path, "gauge.windows")
    prices = _table(gauge.get("prices", {}), path, "gauge.prices")
    return Config(
        path,
        {model: _window(value, path, model) for model, value in windows.items()},
        {model: _price(value, path, model) for model, value in prices.items()},
    )


def _only(table: Mapping[str, object], known: tuple[str, ...], path: str, prefix: str) -> None:
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise StateError(
            f"{path}: unknown key {prefix}{unknown[0]} (known: {', '.join(known)}); {FIX}"
        )


def _table(value: object, path: str, name: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise StateError(f"{path}: {name} is not a table; {FIX}")
    return value


def _number(value: object) -> float | None:
    """A non-negative int or float as a float; None for anything else (a bool is no number)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)


def _window(value: object, path: str, model: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise StateError(
            f"{path}: gauge.windows.{model} is {value!r}, not a whole number of tokens; {FIX}"
        )
    return value


def _price(value: object, path: str, model: str) -> Price:
    name = f"gauge.prices.{model}"
    table = _table(value, path, name)
    _only(table, PRICE_KEYS, path, name + ".")
    rates: dict[str, float | None] = {}
    for key in PRICE_KEYS:
        if key not in table:
            if key in PRICE_KEYS[:2]:
                raise StateError(f"{path}: {name} has no {key} price; {FIX}")
            rates[key] = None
            continue
        rate = _number(table[key])
        if rate is None:
            raise StateError(
                f"{path}: {name}.{key} is {table[key]!r}, not a price in USD per million "
                f"tokens; {FIX}"
            )
        rates[key] = rate
    input_rate, output_rate = rates["input"], rates["output"]
    assert input_rate is not None and output_rate is not None
    return Price(input_rate, output_rate, rates["cache_read"], rates["cache_write"])
