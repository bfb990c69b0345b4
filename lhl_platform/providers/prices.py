"""What a call costs: the rates in force for a registered model, from the maintained price table or its registration.

The default is the price table of `genai-prices` (pinned in pyproject.toml, so its version is the table's version):
per provider and model id it keeps the published rates with their history by date, tiers by prompt size and the
batch rates. A model registered without rates is costed at the table's rates for its provider and model id on the
day of each call; rates given at `lhl models add` override the table's, rate by rate; an offline algorithm makes no
paid call and costs 0 by construction; a model neither prices has an unknown cost (None, never 0), which every cost
figure names. Every call's cost is recorded with where its rates came from (`PriceOrigin`).

The table is read once per (model, day, batch) into flat rates (`Rates`), so costing a call, or bounding what one
in flight can cost (`worst`), is a few multiplications: the call loop is hot.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any, Literal

from lhl_platform.domain.models import PRICE_RATES, ModelSpec, Price, PriceOrigin, Usage

TABLE = "genai-prices"
# The table's providers for ours; a base URL does not change whose model id it is (a loopback or a proxy serving
# `gpt-4o` is costed as OpenAI's gpt-4o; a local model the table does not know is unknown unless given rates).
TABLE_PROVIDERS = {"openai": "openai", "anthropic": "anthropic", "gemini": "google"}
BATCH_CONTEXT = {"processing": "batch"}
# Input tokens of a repair attempt beyond the first request and its reply (the rejection message).
REPAIR_TOKENS = 64


def table_version() -> str:
    from importlib.metadata import version

    return version(TABLE)


@dataclass(frozen=True)
class Rate:
    """USD per million tokens; `tiers` (threshold, rate): above a threshold of the request's input tokens, the
    tier's rate applies to all of its tokens (the table's "cliff" tiers)."""

    base: float
    tiers: tuple[tuple[int, float], ...] = ()

    def at(self, input_tokens: int) -> float:
        for start, rate in reversed(self.tiers):
            if input_tokens > start:
                return rate
        return self.base

    @property
    def highest(self) -> float:
        return max([self.base, *(r for _, r in self.tiers)])


@dataclass(frozen=True)
class Rates:
    """The rates in force for one model on one day, interactively or through the batch API. Cache reads and
    writes the table does not price separately are priced as input, as the table does."""

    input: Rate
    output: Rate
    cached_input: Rate
    cache_write: Rate

    def cost(self, usage: Usage) -> float:
        n = usage.input_tokens
        fresh = max(n - usage.cached_tokens - usage.cache_write_tokens, 0)
        return (fresh * self.input.at(n) + usage.cached_tokens * self.cached_input.at(n)
                + usage.cache_write_tokens * self.cache_write.at(n) + usage.output_tokens * self.output.at(n)) / 1e6

    def worst(self, input_tokens: int, output_tokens: int) -> float:
        """The most a call of at most these tokens can cost: every input token at the dearer of the input and
        cache-write rates, every output token at the output rate, at the tier of its input."""
        n = input_tokens
        return (n * max(self.input.at(n), self.cache_write.at(n)) + output_tokens * self.output.at(n)) / 1e6

    def flat(self) -> tuple[float, float, float, float]:
        """The base rates (input, output, cached input, cache write), for display and flat registrations."""
        return self.input.base, self.output.base, self.cached_input.base, self.cache_write.base


def _rate(value: Any) -> Rate | None:
    if value is None:
        return None
    if isinstance(value, Decimal | int | float):
        return Rate(float(value))
    return Rate(float(value.base), tuple((int(t.start), float(t.price)) for t in value.tiers))


@lru_cache(maxsize=512)
def _table_model(provider: str, model_id: str) -> tuple[Any, Any] | None:
    """The table's (provider, model) for one of ours, or None when the table does not price it."""
    from genai_prices import data_snapshot

    table_provider = TABLE_PROVIDERS.get(provider)
    if table_provider is None:
        return None
    try:
        return data_snapshot.get_snapshot().find_provider_model(model_id, None, table_provider, None)
    except LookupError:
        return None


@lru_cache(maxsize=2048)
def table_rates(provider: str, model_id: str, day: date, batch: bool) -> Rates | None:
    """The table's rates for a model on a day (its batch rates with `batch`), or None when it has none."""
    found = _table_model(provider, model_id)
    if found is None:
        return None
    _, model = found
    when = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
    prices = model.get_prices(when, BATCH_CONTEXT if batch else None)
    input_ = _rate(getattr(prices, "input_mtok", None))
    output = _rate(getattr(prices, "output_mtok", None))
    if input_ is None or output is None:
        return None
    return Rates(input=input_, output=output, cached_input=_rate(getattr(prices, "cache_read_mtok", None)) or input_,
                 cache_write=_rate(getattr(prices, "cache_write_mtok", None)) or input_)


def _flat_rates(price: Price, batch: bool) -> Rates:
    """A registration's flat rates; through the batch API its batch rates, the batch discount applied to the cache
    rates (as `lhl_platform.progress.cost_usd` prices)."""
    if batch:
        scale = price.batch_discount
        return Rates(Rate(price.batch_input_per_mtok), Rate(price.batch_output_per_mtok),
                     Rate(price.cached_input_per_mtok * scale), Rate(price.cache_write_per_mtok * scale))
    return Rates(Rate(price.input_per_mtok), Rate(price.output_per_mtok), Rate(price.cached_input_per_mtok),
                 Rate(price.cache_write_per_mtok))


def table_price(provider: str, model_id: str, day: date) -> Price | None:
    """The table's base rates in force on a day as a registration's `Price` (batch rates from its batch prices)."""
    interactive = table_rates(provider, model_id, day, False)
    if interactive is None:
        return None
    batch = table_rates(provider, model_id, day, True) or interactive
    i, o, c, w = interactive.flat()
    return Price(input_per_mtok=i, output_per_mtok=o, cached_input_per_mtok=c, cache_write_per_mtok=w,
                 batch_input_per_mtok=batch.input.base, batch_output_per_mtok=batch.output.base)


def origin_for(provider: str, model_id: str, given: tuple[str, ...]) -> PriceOrigin:
    """Where a registration's rates come from, given the rates named at `lhl models add`."""
    given = tuple(r for r in PRICE_RATES if r in given)
    if provider == "offline":  # no paid call: free, unless its owner gave rates (to cost a stand-in, say)
        return PriceOrigin(source="registration" if given else "offline", given=given)
    found = _table_model(provider, model_id)
    if found is None or table_rates(provider, model_id, datetime.now(UTC).date(), False) is None:
        return PriceOrigin(source="registration" if given else "unknown", given=given)
    table_provider, model = found
    source: Literal["table", "registration", "registration+table"] = (
        "table" if not given else "registration" if len(given) == len(PRICE_RATES) else "registration+table")
    if source == "registration":
        return PriceOrigin(source=source, given=given)
    return PriceOrigin(source=source, table=TABLE, table_version=table_version(), table_provider=table_provider.id,
                       table_model=model.id, given=given)


def registered_price(provider: str, model_id: str, given: dict[str, float]) -> tuple[Price, PriceOrigin]:
    """The rates a registration records (those given, the rest from the table today) and where they came from."""
    origin = origin_for(provider, model_id, tuple(given))
    table = table_price(provider, model_id, datetime.now(UTC).date()) if origin.table else None
    if table is None:
        return Price.model_validate(given), origin
    return Price.model_validate({**table.model_dump(), **given}), origin


def legacy_origin(spec: ModelSpec) -> PriceOrigin:
    """A registration recorded before the price table (or made without `lhl models add`): rates registered when
    any is non-zero, else the table's."""
    if spec.price_origin is not None:
        return spec.price_origin
    given = PRICE_RATES if spec.price != Price() else ()
    return origin_for(spec.provider, spec.model_id, given)


class Pricing:
    """The cost of a registered model's calls: `cost` of a call made now (None: unknown), `worst` what a call of
    at most these tokens can cost (None: unknown). Rates are looked up once per day and mode."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.origin = legacy_origin(spec)
        self.known = self.origin.source != "unknown"
        self.free = self.origin.source == "offline"
        self._day: date | None = None
        self._rates: dict[bool, Rates | None] = {}

    def rates(self, batch: bool = False, day: date | None = None) -> Rates | None:
        """The rates in force on a day (today by default); None when the model's cost is unknown."""
        if not self.known:
            return None
        if self.free:
            return _flat_rates(Price(), batch)
        source = self.origin.source
        if source == "registration":
            return _flat_rates(self.spec.price, batch)
        today = day or datetime.now(UTC).date()
        if day is None and today == self._day and batch in self._rates:
            return self._rates[batch]
        table = table_rates(self.spec.provider, self.spec.model_id, today, batch)
        if table is None:  # a newer table no longer prices it: the rates recorded with the registration
            found: Rates | None = _flat_rates(self.spec.price, batch)
        elif source == "table":
            found = table
        else:  # registration+table: the rates given override the table's base rates, rate by rate
            merged = table_price(self.spec.provider, self.spec.model_id, today)
            assert merged is not None
            given = {r: getattr(self.spec.price, r) for r in self.origin.given}
            found = _flat_rates(Price.model_validate({**merged.model_dump(), **given}), batch)
        if day is None:
            if today != self._day:
                self._day, self._rates = today, {}
            self._rates[batch] = found
        return found

    def cost(self, usage: Usage, *, batch: bool = False) -> float | None:
        rates = self.rates(batch)
        return None if rates is None else rates.cost(usage)

    def worst(self, input_tokens: int, output_tokens: int, *, batch: bool = False) -> float | None:
        rates = self.rates(batch)
        return None if rates is None else rates.worst(input_tokens, output_tokens)

    def describe(self) -> str:
        """Where the rates come from, in words."""
        o = self.origin
        table = f"{o.table} {o.table_version} ({o.table_provider}/{o.table_model})"
        return {"table": f"the price table {table}",
                "registration": "the rates given at registration",
                "registration+table": f"the rates given at registration ({', '.join(o.given)}), the rest from {table}",
                "offline": "an offline algorithm: no paid call, costs nothing",
                "unknown": f"unknown: {TABLE} {table_version()} does not price {self.spec.provider} model "
                           f"{self.spec.model_id!r} and no rates were given at registration"}[o.source]


_PRICINGS: dict[str, Pricing] = {}


def pricing_for(spec: ModelSpec) -> Pricing:
    """The pricing of a registered model (one per registration and process)."""
    key = spec.model_dump_json()
    found = _PRICINGS.get(key)
    if found is None:
        found = _PRICINGS[key] = Pricing(spec)
    return found
