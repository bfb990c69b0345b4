"""What every suite's result rows share: the row base class, the marker of a field the report computes, reading a
mart through its row class, and the rows of the cost marts every suite has (`cost.py`).

A suite's own row classes build on these (the clause suite's are `lhl_platform/clause/report/marts.py`). Row
classes are plain Pydantic models, so that a report never loads SQLAlchemy; `lhl publish` makes a table class of
each (`publish.py`). The field order is the order of the report's JSON and must stay as it is.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.stats import nan_free


class Row(BaseModel):
    """A result row (read from a mart, or computed by the report); its validator is built when it first validates
    (a report's rows validate as part of the report they are fields of)."""

    model_config = ConfigDict(from_attributes=True, defer_build=True)


_Row = TypeVar("_Row", bound=Row)


def derived(description: str) -> Any:
    """A field the report computes (not a column of the mart); null until computed."""
    return Field(default=None, description=description, json_schema_extra={"derived": True})


def is_derived(cls: type[Row], field: str) -> bool:
    extra = cls.model_fields[field].json_schema_extra
    return isinstance(extra, dict) and bool(extra.get("derived"))


class CostStageRow(Row):
    """`cost_by_stage` (and each suite's `<suite>_cost_by_stage`): cost per system, stage (solve, judge, debate),
    role (a debate role, a judge's step) and billed model; cost null when a call of it has an unknown cost."""

    model: str
    stage: str
    role: str | None
    billed_model: str
    runs: int
    calls: int
    batch_calls: int
    unknown_cost_calls: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    cost_usd: float | None


class CostPerCorrectRow(Row):
    """`cost_per_correct` (and each suite's): what a system's calls cost per correct answer (a true positive, a found
    defect, an identified missing element); null when there is none or the cost is unknown."""

    model: str
    calls: int | None
    unknown_cost_calls: int | None
    correct: int | None  # null: nothing of the model was scored (or judged) yet, not zero correct answers
    unit: str  # what a correct answer is in the suite
    cost_usd: float | None
    cost_per_correct_usd: float | None


class BatchSavingsRow(Row):
    """`batch_savings` (and each suite's): what the batch calls cost beside their cost at the interactive rates."""

    model: str
    billed_model: str
    batch_calls: int
    batch_cost_usd: float | None
    interactive_cost_usd: float | None
    saved_usd: float | None
    saved_share: float | None


class CostOverTimeRow(Row):
    """`cost_over_time` (and each suite's): a monitored model's cost per run, with the days of its calls."""

    model: str
    run: int
    first_day: str
    last_day: str
    calls: int
    unknown_cost_calls: int
    cost_usd: float | None


def rows_of(con: Any, mart: str, cls: type[_Row]) -> list[_Row]:
    """Every row of a mart (or any query's result named `mart`) through its row class; NaN becomes null."""
    cursor = con.execute(f"select * from {mart}")
    names = [d[0] for d in cursor.description]
    return [cls.model_validate(nan_free(dict(zip(names, row, strict=True)))) for row in cursor.fetchall()]
