"""An agent's context gauge, read from the file its client writes [docs/gauge.md].

Each client writes its figures in its own format: one module per client reads it (`claude`,
`codex`, `gemini`, `opencode`, chosen by `choose.reader`) and answers one primitive question,
`Reader.reading`: what the file says of the newest model call and of the session. The figures a
person sees are made here, the same way for every client: the tokens in context now, the window
and the share of it used, the tokens spent this session and their cost, each with its source, or
unknown with the reason. A figure hail cannot read is unknown, never guessed.
"""

from __future__ import annotations

from typing import TypeVar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from hail.config import Config, Price

V = TypeVar("V")

# Sources of a known figure [docs/gauge.md "Figures and their sources"]; the client's own file is
# each reader's `source` (`transcript`, `rollout`, `session-file`, `plugin-record`).
#: hail's table of the client's model windows (`Reader.table_window`).
HAIL_TABLE = "hail-table"
#: The person's `config.toml` (`[gauge.windows]`, `[gauge.prices]`).
CONFIG = "config"

# Why a figure is unknown.
NO_FILE = "no-file"
UNREADABLE = "unreadable"
NOT_IN_TAIL = "not-in-tail"
NO_CALL = "no-call"
COMPACTED = "compacted"
UNKNOWN_MODEL = "unknown-model"
TOO_LONG = "too-long"
NO_PRICE = "no-price"
NO_READER = "no-reader"
OTHER_SESSION = "other-session"
NOT_RECORDED = "not-recorded"


class Where:
    """Where a hook said an agent's figures are: the file its client writes (a transcript, a
    rollout, a session file, hail's opencode plugin's record), and the model and the session the
    hook's payload named ("" when it named none)."""

    __slots__ = ("model", "path", "session")

    def __init__(self, path: str, model: str = "", session: str = "") -> None:
        self.path = path
        self.model = model
        self.session = session


class Tokens:
    """Tokens of one model call, or summed over calls: the input read fresh, read from a cache and
    written to one, and the output (reasoning included)."""

    __slots__ = ("cache_read", "cache_write", "fresh", "output")

    def __init__(self, fresh: int, cache_read: int = 0, cache_write: int = 0, output: int = 0):
        self.fresh = fresh
        self.cache_read = cache_read
        self.cache_write = cache_write
        self.output = output

    def __repr__(self) -> str:
        return f"Tokens({self.fresh}, {self.cache_read}, {self.cache_write}, {self.output})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tokens) and self.parts() == other.parts()

    def parts(self) -> tuple[int, int, int, int]:
        return (self.fresh, self.cache_read, self.cache_write, self.output)

    @property
    def input(self) -> int:
        """The call's whole input: what sat in the model's context for it."""
        return self.fresh + self.cache_read + self.cache_write

    @property
    def total(self) -> int:
        return self.input + self.output

    def plus(self, other: Tokens) -> Tokens:
        return Tokens(*(a + b for a, b in zip(self.parts(), other.parts(), strict=True)))


def counts(fields: Mapping[str, object], keys: tuple[str, ...]) -> list[int] | None:
    """The token counts under `keys` (a missing one is 0); None when one is no count."""
    found = [fields.get(key, 0) for key in keys]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in found):
        return None
    return found  # type: ignore[return-value]  # ints, checked above


class Call:
    """One model call as its client's file gives it: its id, model and tokens."""

    __slots__ = ("id", "model", "tokens")

    def __init__(self, id: str, model: str, tokens: Tokens) -> None:
        self.id = id
        self.model = model
        self.tokens = tokens


class Reading:
    """What a client's file says, before hail's tables: each reader's answer.

    `last` is the newest model call's tokens and `model` its model; `window` the window where the
    file names it; `spent` the session's tokens where the file keeps a running total or every
    call was read; `by_model` the same per model, where every call and its model was read (what
    a price table needs); `cost` the session's cost in USD where the client recorded it. `why`
    says why `last` is None, or why its figure no longer holds (`COMPACTED`).
    """

    __slots__ = ("by_model", "bytes_read", "cost", "last", "model", "spent", "why", "window")

    def __init__(
        self,
        *,
        last: Tokens | None = None,
        model: str = "",
        window: int | None = None,
        spent: Tokens | None = None,
        by_model: Mapping[str, Tokens] | None = None,
        cost: float | None = None,
        why: str = "",
        bytes_read: int = 0,
    ) -> None:
        self.last = last
        self.model = model
        self.window = window
        self.spent = spent
        self.by_model = by_model
        self.cost = cost
        self.why = why
        self.bytes_read = bytes_read


def from_calls(
    newest: Call | None, calls: Iterable[Call], *, whole: bool, bytes_read: int, why: str = ""
) -> Reading:
    """What a file of calls says: the newest call, and every call summed (in all and per model)
    when `whole`, the file having been read to its start; never a partial sum."""
    spent: Tokens | None = None
    by_model: dict[str, Tokens] | None = None
    if whole:
        spent, by_model = Tokens(0), {}
        for call in calls:
            spent = spent.plus(call.tokens)
            by_model[call.model] = by_model.get(call.model, Tokens(0)).plus(call.tokens)
    if newest is None:
        why = NO_CALL if whole else NOT_IN_TAIL
        return Reading(spent=spent, by_model=by_model, why=why, bytes_read=bytes_read)
    return Reading(
        last=newest.tokens,
        model=newest.model,
        spent=spent,
        by_model=by_model,
        why=why,
        bytes_read=bytes_read,
    )


def file_trouble(error: OSError, bytes_read: int = 0) -> Reading:
    """A file that could not be read: missing, or unreadable (no regular file, no permission)."""
    return Reading(
        why=NO_FILE if isinstance(error, FileNotFoundError) else UNREADABLE, bytes_read=bytes_read
    )


class Figure:
    """One figure and where it came from; `value` None when unknown, and `why` then says why."""

    __slots__ = ("source", "value", "why")

    def __init__(self, value: float | None, source: str = "", why: str = "") -> None:
        self.value = value
        self.source = source if value is not None else ""
        self.why = why if value is None else ""

    def __repr__(self) -> str:
        return f"Figure({self.value!r}, {self.source or self.why!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Figure) and self.as_json() == other.as_json()

    __hash__ = None  # type: ignore[assignment]  # compared by value, like a dict

    def as_json(self) -> dict[str, object]:
        if self.value is None:
            return {"value": None, "unknown": self.why}
        return {"value": self.value, "source": self.source}


def unknown(why: str) -> Figure:
    return Figure(None, why=why)


class Gauge:
    """An agent's figures: tokens in context now (the newest call's whole input), the window,
    tokens spent this session, the session's cost in USD; the model of the newest call; how many
    bytes of the file were read; the context at which its client compacts (None without a window)
    [docs/gauge.md "Compaction"]."""

    __slots__ = ("bytes_read", "compacts_at", "context", "cost", "model", "spent", "window")

    def __init__(
        self,
        context: Figure,
        window: Figure,
        spent: Figure,
        cost: Figure,
        model: str = "",
        bytes_read: int = 0,
        compacts_at: int | None = None,
    ) -> None:
        self.context = context
        self.window = window
        self.spent = spent
        self.cost = cost
        self.model = model
        self.bytes_read = bytes_read
        self.compacts_at = compacts_at

    def __repr__(self) -> str:
        return f"Gauge({self.context!r}, {self.window!r})"

    def __eq__(self, other: object) -> bool:
        """The same figures shown (how much was read to find them is no figure)."""
        return isinstance(other, Gauge) and self.as_json() == other.as_json()

    __hash__ = None  # type: ignore[assignment]  # compared by value, like a dict

    def percent(self) -> float | None:
        """The share of the window in context now, in percent; None unless both are known."""
        context, window = self.context.value, self.window.value
        if context is None or not window:
            return None
        return 100.0 * context / window

    def as_json(self) -> dict[str, object]:
        """Every figure as a number and its source (or why it is unknown), for `--json`."""
        percent = self.percent()
        return {
            "model": self.model or None,
            "context": self.context.as_json(),
            "window": self.window.as_json(),
            "percent": None if percent is None else round(percent, 1),
            "spent": self.spent.as_json(),
            "cost": self.cost.as_json(),
            "compacts_at": self.compacts_at,
        }


#: The longest source, reason or model another machine's gauge may name (a model name's bound).
_FAR_TEXT_MAX = 200


def gauge_from_json(data: object) -> Gauge:
    """A gauge as another machine's `Gauge.as_json` gave it, every value checked (a figure a number
    or null with its reason, each text one printable line of bounded length); ValueError for
    anything else. The share of the window is made again from the figures, not taken."""
    if not isinstance(data, dict):
        raise ValueError("a gauge is an object")
    compacts_at = data.get("compacts_at")
    if compacts_at is not None and (not _is_count(compacts_at)):
        raise ValueError(f"compacts_at is no count: {compacts_at!r}")
    model = data.get("model")
    return Gauge(
        _figure_from_json(data.get("context")),
        _figure_from_json(data.get("window")),
        _figure_from_json(data.get("spent")),
        _figure_from_json(data.get("cost")),
        "" if model is None else far_text(model),
        0,
        compacts_at,
    )


def _figure_from_json(data: object) -> Figure:
    if not isinstance(data, dict):
        raise ValueError("a figure is an object")
    value = data.get("value")
    if value is None:
        return unknown(far_text(data.get("unknown")))
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e18:
        raise ValueError(f"a figure's value is no number: {value!r}")
    return Figure(value, far_text(data.get("source")))


def far_text(value: object) -> str:
    """A text another machine sent: a string, one printable line, at most _FAR_TEXT_MAX long."""
    if not isinstance(value, str) or len(value) > _FAR_TEXT_MAX or not value.isprintable():
        raise ValueError(f"not one printable line of at most {_FAR_TEXT_MAX}: {value!r}")
    return value


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class Reader:
    """One client's reader: its primitive answer (`reading`), its table of windows; the figures
    are made from them here."""

    #: The harness whose files this reader reads (its module's name, `harnesses.registry.NAMES`).
    name = ""
    #: The source of the figures its file gives, as `Figure.source` names it.
    source = ""
    #: The source of `table_window`'s answer.
    table_source = HAIL_TABLE
    #: Why the session's figures are unknown when the file could be read: it is too long to sum.
    session_unknown = TOO_LONG
    #: Whether the client's file states the window (then a missing one is the file's, not the
    #: model's, to give).
    window_in_file = False
    #: What compacts the session at a point of the person's choosing, typed in its client.
    compact_command = "/compact"

    def compacts_at(self, window: int) -> int | None:
        """The context, in tokens, at which the client compacts a session whose window is `window`
        (docs/gauge.md "Compaction"); None when hail does not know its rule."""
        return None

    def reading(self, where: Where) -> Reading:
        """What the client's file at `where` says; reads at most `policy.GAUGE_READ_MAX` bytes."""
        return Reading(why=NO_READER)

    def table_window(self, model: str, where: Where) -> int | None:
        """`model`'s window from hail's table of this client's models; None when not in it."""
        return None

    def model_names(self, model: str) -> list[str]:
        """The names a person's config may give `model` under, the first that is found winning."""
        return [model]

    def gauge(self, where: Where, config: Config) -> Gauge:
        """The figures of the agent whose client writes at `where`, with the person's config."""
        reading = self.reading(where)
        model = reading.model or where.model
        window = self._window(reading, model, where, config)
        return Gauge(
            self._context(reading),
            window,
            self._spent(reading),
            self._cost(reading, config),
            model,
            reading.bytes_read,
            None if window.value is None else self.compacts_at(int(window.value)),
        )

    def _context(self, reading: Reading) -> Figure:
        if reading.last is None or reading.why:
            return unknown(reading.why or NOT_IN_TAIL)
        return Figure(reading.last.input, self.source)

    def _window(self, reading: Reading, model: str, where: Where, config: Config) -> Figure:
        """The file's own window first (what the client compacts by), then the person's, then
        hail's table."""
        if reading.window:
            return Figure(reading.window, self.source)
        if not model:
            return unknown(reading.why or UNKNOWN_MODEL)
        configured = self._configured(config.windows, model)
        if configured is not None:
            return Figure(configured, CONFIG)
        table = self.table_window(model, where)
        if table is not None:
            return Figure(table, self.table_source)
        return unknown((reading.why or NOT_RECORDED) if self.window_in_file else UNKNOWN_MODEL)

    def _spent(self, reading: Reading) -> Figure:
        if reading.spent is not None:
            return Figure(reading.spent.total, self.source)
        return unknown(self._session_why(reading))

    def _cost(self, reading: Reading, config: Config) -> Figure:
        """The client's own cost first; else the person's prices times every call, each at its
        model's price; unknown when a model has no price (hail invents none)."""
        if reading.cost is not None:
            return Figure(reading.cost, self.source)
        if reading.by_model is None:
            return unknown(self._session_why(reading))
        total = 0.0
        for model, tokens in reading.by_model.items():
            price = self._configured(config.prices, model)
            cost = None if price is None else priced(tokens, price)
            if cost is None:
                return unknown(NO_PRICE)
            total += cost
        return Figure(total, CONFIG)

    def _session_why(self, reading: Reading) -> str:
        """Why a session's figure is unknown: the file's trouble, else `session_unknown`."""
        return (
            reading.why if reading.why not in ("", COMPACTED, NOT_IN_TAIL) else self.session_unknown
        )

    def _configured(self, table: Mapping[str, V], model: str) -> V | None:
        return next((table[n] for n in self.model_names(model) if n in table), None)


def priced(tokens: Tokens, price: Price) -> float | None:
    """The USD `tokens` cost at `price`; None when tokens of a kind the price leaves out were
    spent (a cache read with no cache_read price)."""
    rates = (price.input, price.cache_read, price.cache_write, price.output)
    if any(rate is None and count for rate, count in zip(rates, tokens.parts(), strict=True)):
        return None
    return (
        sum((rate or 0.0) * count for rate, count in zip(rates, tokens.parts(), strict=True)) / 1e6
    )
