"""Typed records that cross the platform's boundaries (CLI, files, events, providers).

Every model is frozen and validates on construction, so a bad value is rejected where it enters,
with pydantic's message naming the offending field.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator, model_validator

from lhl_platform.domain.params import ModelParams
from lhl_platform.domain.secrets import find_secret
from lhl_platform.domain.taxonomy import Category, canonical_clause_type

# Dagster multi-partition keys must not contain `| , [ ]`; we are stricter: a portable slug.
MODEL_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
RunNumber = Annotated[int, Field(ge=1, le=999)]


class Frozen(BaseModel):
    """The one frozen base of the platform's records. Each class builds its validator when it first validates
    (`defer_build`): a command builds those of the records it reads, not those of every module it imports."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Outcome(StrEnum):
    TP = "TP"
    FP = "FP"
    FN = "FN"
    TN = "TN"


class VerdictLabel(StrEnum):
    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    # A judge that abstains: its evidence does not decide (docs/method.md, section 4). Never counted as supported or
    # as contradicted: content figures are computed on the true positives a judge decided.
    UNDETERMINED = "undetermined"


DECIDED = (VerdictLabel.SUPPORTED, VerdictLabel.CONTRADICTED)


class MismatchType(StrEnum):
    NONE = "none"
    NUMERIC = "numeric"
    TEMPORAL = "temporal"
    OBLIGATION = "obligation"
    SCOPE = "scope"
    MISSING_CONDITION = "missing_condition"
    EXTRA_CONDITION = "extra_condition"
    OTHER = "other"


def outcome_of(gt_present: bool, predicted_present: bool) -> Outcome:
    if gt_present:
        return Outcome.TP if predicted_present else Outcome.FN
    return Outcome.FP if predicted_present else Outcome.TN


class _HasClauseType(Frozen):
    clause_type: str

    @field_validator("clause_type")
    @classmethod
    def _canonical(cls, value: str) -> str:
        return canonical_clause_type(value)


class Contract(Frozen):
    contract_id: str = Field(min_length=1)
    filename: str
    text: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class OracleRow(_HasClauseType):
    contract_id: str = Field(min_length=1)
    category: Category
    present: bool
    spans: tuple[str, ...]
    answer: str = ""

    @model_validator(mode="after")
    def _present_iff_spans(self) -> OracleRow:
        if self.present != bool(self.spans):
            raise ValueError("present must be true exactly when spans is non-empty")
        return self


class Extraction(_HasClauseType):
    """One model's answer for one (contract, clause type): not present, or verbatim quotes."""

    model: str = Field(pattern=MODEL_NAME_PATTERN)
    run: RunNumber
    contract_id: str = Field(min_length=1)
    present: bool
    quotes: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _quotes_iff_present(self) -> Extraction:
        if self.present and not any(q.strip() for q in self.quotes):
            raise ValueError("a present extraction needs at least one non-empty quote")
        if not self.present and self.quotes:
            raise ValueError("an absent extraction carries no quotes")
        return self

    @property
    def text(self) -> str:
        return " ... ".join(self.quotes)


class Verdict(Frozen):
    verdict: VerdictLabel
    mismatch_type: MismatchType
    reason: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> Verdict:
        contradicted = self.verdict is VerdictLabel.CONTRADICTED
        if contradicted == (self.mismatch_type is MismatchType.NONE):
            raise ValueError("mismatch_type must be 'none' exactly when the verdict is not 'contradicted'")
        return self

    @property
    def decided(self) -> bool:
        return self.verdict in DECIDED


class Price(Frozen):
    """USD per million tokens, every rate the provider publishes for the model.

    A rate left out is taken from the rate it discounts or marks up: cached input, cache writes and batch
    input from the input rate, batch output from the output rate. So a model registered with only input
    and output prices is never costed below them; publish the discounts to have them applied."""

    input_per_mtok: float = Field(default=0.0, ge=0)
    output_per_mtok: float = Field(default=0.0, ge=0)
    cached_input_per_mtok: float = Field(default=0.0, ge=0, description="input read from the provider's cache")
    cache_write_per_mtok: float = Field(default=0.0, ge=0, description="input written to the cache (Anthropic)")
    batch_input_per_mtok: float = Field(default=0.0, ge=0, description="input sent through the batch API")
    batch_output_per_mtok: float = Field(default=0.0, ge=0, description="output of the batch API")

    @model_validator(mode="before")
    @classmethod
    def _unpublished_rates(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            base = {"cached_input_per_mtok": "input_per_mtok", "cache_write_per_mtok": "input_per_mtok",
                    "batch_input_per_mtok": "input_per_mtok", "batch_output_per_mtok": "output_per_mtok"}
            for rate, source in base.items():
                if data.get(rate) is None:
                    data[rate] = data.get(source) or 0.0
        return data

    @property
    def batch_discount(self) -> float:
        """What the batch API charges relative to the interactive input rate (applied to cache rates too)."""
        return self.batch_input_per_mtok / self.input_per_mtok if self.input_per_mtok else 1.0


PRICE_RATES = ("input_per_mtok", "output_per_mtok", "cached_input_per_mtok", "cache_write_per_mtok",
               "batch_input_per_mtok", "batch_output_per_mtok")


class PriceOrigin(Frozen):
    """Where a model's rates come from, recorded with its registration and with the cost of each call.

    `table`: every rate from the maintained price table (its name and version, the table's provider and model id
    the registered id matched), in force on the day of each call; `registration`: every rate given at `lhl models
    add`; `registration+table`: the rates named in `given` from the registration, the rest from the table;
    `offline`: an offline algorithm, which makes no paid call (it costs nothing by construction); `unknown`:
    neither the table nor the registration prices the model, so its cost is unknown (null, never 0)."""

    source: Literal["table", "registration", "registration+table", "offline", "unknown"]
    table: str | None = None
    table_version: str | None = None
    table_provider: str | None = None
    table_model: str | None = None
    given: tuple[str, ...] = ()  # the rates given at registration (Price field names); they override the table's


class Usage(BaseModel):
    """Tokens of one model call, as the provider reported them (offline models estimate). `input_tokens` is
    the whole prompt; `cached_tokens` of it were read from the provider's cache and `cache_write_tokens`
    written to it (both part of `input_tokens`)."""

    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cached_tokens: int = Field(default=0, ge=0)
    cache_write_tokens: int = Field(default=0, ge=0)


class ModelSpec(Frozen):
    """A registered model: one key of the dynamic `model` partition dimension."""

    name: str = Field(pattern=MODEL_NAME_PATTERN)
    provider: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    model_id: str = Field(min_length=1)
    base_url: str | None = None
    params: ModelParams = Field(default_factory=ModelParams)
    price: Price = Field(default_factory=Price)
    # Where the rates come from (None: registered before the price table; read as the rates registered when any
    # is non-zero, else the table's). See `lhl_platform.providers.prices`.
    price_origin: PriceOrigin | None = None
    role: str = Field(default="extractor", pattern=r"^[a-z][a-z0-9_-]{0,31}$",
                      description="what it is for; the model factory knows the roles (a model under test, a judge)")

    @model_validator(mode="before")
    @classmethod
    def _no_secrets(cls, data: Any) -> Any:
        # Checked on the raw input, at any depth, before the typed fields: a refused value is never echoed.
        if isinstance(data, dict):
            for field in ("params", "base_url", "model_id"):  # a key pasted as a model id is refused too
                value = data.get(field)
                if isinstance(value, BaseModel):
                    value = value.model_dump()
                problem = find_secret(value, field) if value is not None else None
                if problem:
                    raise ValueError(problem)
        return data

    @field_serializer("params")
    def _explicit_params(self, params: ModelParams) -> dict[str, Any]:
        return params.explicit()


class Subset(Frozen):
    name: str = Field(pattern=MODEL_NAME_PATTERN)
    contract_ids: tuple[str, ...] = Field(min_length=1)
    seed: int | None = None
    stratified_by: str | None = None

    @field_validator("contract_ids")
    @classmethod
    def _unique(cls, ids: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(ids)) != len(ids):
            raise ValueError("contract_ids must be unique")
        return ids


class InstanceOutcome(_HasClauseType):
    """One row of `lhl import outcomes`: an instance already scored elsewhere."""

    model: str = Field(pattern=MODEL_NAME_PATTERN)
    run: RunNumber
    contract_id: str = Field(min_length=1)
    gt_present: bool
    predicted_present: bool
    verdict: VerdictLabel | None = None
    mismatch_type: MismatchType | None = None

    @model_validator(mode="after")
    def _verdict_only_on_tp(self) -> InstanceOutcome:
        tp = self.gt_present and self.predicted_present
        if self.verdict is not None and not tp:
            raise ValueError("verdict is only allowed on a TP (gt_present and predicted_present)")
        if self.mismatch_type is not None and self.verdict is None:
            raise ValueError("mismatch_type given without a verdict")
        if self.verdict is not None:
            mismatch = self.mismatch_type or (
                MismatchType.NONE if self.verdict is VerdictLabel.SUPPORTED else MismatchType.OTHER)
            Verdict(verdict=self.verdict, mismatch_type=mismatch)
        return self

