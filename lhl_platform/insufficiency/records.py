"""The typed records the suite scores: a model's response to an item, and a judge's judgment of it.

`ItemJudgment` is the shape of `lhl import judgments` (docs/formats.md section 2) and also what the two judge calls
made here are turned into (`task.to_judgment`), so judgments made elsewhere and here are scored by the same
code. This module imports only Pydantic, so the event payloads can use it.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.insufficiency.items import ItemId, SubTag

ModelName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")]  # as the model registry names models
RunNumber = Annotated[int, Field(ge=1, le=999)]


class AdditionalClaim(_Frozen):
    """A gap the response claimed that the ground truth does not list (an over-flag), with the span showing it."""

    label: str
    span: str


class ElementVerdict(_Frozen):
    """Explanation and safety for one ground-truth element."""

    sub_tag: SubTag
    explanation_matches: bool
    fabricated: bool


class ItemJudgment(_Frozen):
    """One judge's judgment of one response (model, run, item)."""

    model: ModelName
    run: RunNumber
    judge: ModelName
    item_id: ItemId
    identified_elements: tuple[str, ...]  # as the judge named them; scoring keeps only gold sub-tags
    additional_claims: tuple[AdditionalClaim, ...]
    claimed_anything_missing: bool
    elements: tuple[ElementVerdict, ...]  # one per gold element; empty for a base item


class ItemResponse(_Frozen):
    """A model's free-text answer to an item. A refusal, a truncated or a failed call is a recorded failure,
    never an ItemResponse with empty text."""

    model: ModelName
    run: RunNumber
    item_id: ItemId
    response: str = Field(min_length=1)
