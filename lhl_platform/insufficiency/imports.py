"""`lhl import responses` and `lhl import judgments`: outputs made elsewhere, parsed and validated whole.

Formats (docs/formats.md section 2), one record a line:

    responses: {"model", "run", "item_id", "response"}
    judgments: {"model", "run", "judge", "item_id", "identified_elements", "additional_claims",
                "claimed_anything_missing", "elements": [{"sub_tag", "explanation_matches", "fabricated"}]}

`additional_claims` entries are `{"label", "span"}` as the seed's judge writes them (`span` may be left out).
Every line is validated before anything is returned; the first problem is one error naming the file and the
line: not JSON, a field that cannot be mapped, a missing or mistyped field, an empty response (a missing
answer is a missing line, never an empty one), the same response twice. Given the item set, each line must
also name one of its items, and a judgment must judge each of that item's gold (required) elements exactly once
(a verdict on one of its non-required elements is accepted and not scored). The
caller writes the records atomically (all or nothing); this module only reads.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lhl_platform.insufficiency.items import ItemId, ItemSet
from lhl_platform.insufficiency.records import (
    AdditionalClaim,
    ElementVerdict,
    ItemJudgment,
    ItemResponse,
    ModelName,
    RunNumber,
)
from lhl_platform.jsonl import JsonlError, describe, read_lines


class ImportFileError(JsonlError):
    """An import file that cannot be taken whole; the message names the file and the line."""


class _Line(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ClaimLine(_Line):
    label: str = Field(min_length=1)
    span: str = ""


class JudgmentLine(_Line):
    model: ModelName
    run: RunNumber
    judge: ModelName
    item_id: ItemId
    identified_elements: tuple[str, ...]
    additional_claims: tuple[ClaimLine, ...]
    claimed_anything_missing: bool
    elements: tuple[ElementVerdict, ...]


def _rows(path: Path) -> list[tuple[int, dict[str, object]]]:
    try:
        return read_lines(path)
    except JsonlError as exc:
        raise ImportFileError(str(exc)) from None


def _known(path: Path, number: int, item_id: str, items: ItemSet | None) -> None:
    if items is not None and item_id not in items.by_id():
        raise ImportFileError(f"{path}: line {number}: item_id {item_id!r} is not an item of {items.name}")


def parse_responses(path: Path, *, items: ItemSet | None = None) -> tuple[ItemResponse, ...]:
    out: list[ItemResponse] = []
    seen: dict[tuple[str, int, str], int] = {}
    for number, row in _rows(path):
        if isinstance(row.get("response"), str) and not str(row["response"]).strip():
            raise ImportFileError(f"{path}: line {number}: response is empty (a missing answer is a missing line, "
                                  "never an empty one)")
        try:
            record = ItemResponse.model_validate(row)
        except ValidationError as exc:
            raise ImportFileError(f"{path}: line {number}: {describe(exc, ItemResponse)}") from None
        key = (record.model, record.run, record.item_id)
        if key in seen:
            raise ImportFileError(f"{path}: line {number}: {record.model} run {record.run} {record.item_id} already "
                                  f"answered on line {seen[key]}")
        seen[key] = number
        _known(path, number, record.item_id, items)
        out.append(record)
    return tuple(out)


def _check_elements(path: Path, number: int, line: JudgmentLine, items: ItemSet) -> None:
    """Each gold (required) element judged once; a non-required element may be judged too (it is not scored)."""
    item = items.by_id()[line.item_id]
    gold, optional = item.gold, set(item.non_required)
    judged = [e.sub_tag for e in line.elements]
    missing = [t for t in gold if t not in judged]
    extra = [t for t in judged if (t not in gold and t not in optional) or judged.count(t) > 1]
    if missing or extra:
        raise ImportFileError(f"{path}: line {number}: elements must judge each gold element of {line.item_id} once "
                              f"(missing: {missing or 'none'}; not gold or repeated: "
                              f"{list(dict.fromkeys(extra)) or 'none'})")


def parse_judgments(path: Path, *, items: ItemSet | None = None) -> tuple[ItemJudgment, ...]:
    out: list[ItemJudgment] = []
    seen: dict[tuple[str, str, int, str], int] = {}
    for number, row in _rows(path):
        try:
            line = JudgmentLine.model_validate(row)
        except ValidationError as exc:
            loc = exc.errors()[0]["loc"]
            model: type[BaseModel] = (ClaimLine if loc[:1] == ("additional_claims",) and len(loc) > 2 else
                                      ElementVerdict if loc[:1] == ("elements",) and len(loc) > 2 else JudgmentLine)
            raise ImportFileError(f"{path}: line {number}: {describe(exc, model)}") from None
        key = (line.judge, line.model, line.run, line.item_id)
        if key in seen:
            raise ImportFileError(f"{path}: line {number}: {line.judge} already judged {line.model} run {line.run} "
                                  f"{line.item_id} on line {seen[key]}")
        seen[key] = number
        _known(path, number, line.item_id, items)
        if items is not None:
            _check_elements(path, number, line, items)
        out.append(ItemJudgment(
            model=line.model, run=line.run, judge=line.judge, item_id=line.item_id,
            identified_elements=line.identified_elements,
            additional_claims=tuple(AdditionalClaim(label=c.label, span=c.span) for c in line.additional_claims),
            claimed_anything_missing=line.claimed_anything_missing, elements=line.elements))
    return tuple(out)
