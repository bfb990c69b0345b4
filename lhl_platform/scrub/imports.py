"""`lhl import findings FILE.jsonl`: predictions made elsewhere, scored by the same code.

One (model, run, contract, category) a line (docs/formats.md section 1):

    {"model": ..., "run": 1, "contract_id": ..., "category": ..., "findings": [{"term": ..., "location": ...}]}

Each finding has the category's fields (`term`, `location`, `wrong`, `correct`, `location_2`); fields the
category does not use are absent or null, and a finding may repeat the line's category. The gold's provenance
(`edit`, `distance` of the release format) is not a finding's: a finding carrying it is an error naming the
command that writes a set's gold in this format (`lhl scrub export FILE --as-findings NAME`, `gold_findings`).
The whole file is validated before anything is used: the first problem is one error naming its line number and
field, and nothing is imported. A (model, run, contract, category) absent from the file is a missing call,
reported as missing and left out of every figure, never read as an empty answer; `"findings": []` is an answer
that found nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lhl_platform.domain.models import MODEL_NAME_PATTERN, RunNumber
from lhl_platform.jsonl import JsonlError, parse_lines
from lhl_platform.scrub.categories import CATEGORY_KEYS, CategoryKey
from lhl_platform.scrub.items import Finding, ScrubItem
from lhl_platform.scrub.scoring import Answers

GOLD_ONLY = ("edit", "distance")  # fields of a gold tuple in the release format, never of a finding


class FindingsImportError(ValueError):
    """A findings file that cannot be imported whole; the message names the line and the field."""


class ImportedCall(BaseModel):
    """One answered (model, run, contract, category), as a line of the file gave it."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    model: str = Field(pattern=MODEL_NAME_PATTERN)
    run: RunNumber
    contract_id: str = Field(min_length=1)
    category: CategoryKey
    findings: tuple[Finding, ...]
    line: int = Field(ge=1, description="where it was in the file")


def _path(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _line(raw: dict[str, Any], number: int, where: str) -> ImportedCall:
    findings = raw.get("findings")
    if not isinstance(findings, list):
        raise FindingsImportError(f"{where}: field findings: expected a list of findings, got "
                                  f"{type(findings).__name__ if findings is not None else 'nothing'}")
    category = raw.get("category")
    if category not in CATEGORY_KEYS:
        raise FindingsImportError(f"{where}: field category: {category!r} is not one of {', '.join(CATEGORY_KEYS)}")
    parsed = []
    for index, finding in enumerate(findings):
        if not isinstance(finding, dict):
            raise FindingsImportError(f"{where}: field findings[{index}]: expected an object")
        provenance = next((name for name in GOLD_ONLY if name in finding), None)
        if provenance is not None:
            raise FindingsImportError(f"{where}: field findings[{index}].{provenance}: gold provenance of the release "
                                      "format, not a finding's field; `lhl scrub export FILE --as-findings NAME` "
                                      "writes an item set's gold as findings")
        if finding.get("category", category) != category:
            raise FindingsImportError(f"{where}: field findings[{index}].category: {finding['category']!r} on a "
                                      f"line of category {category}")
        try:
            parsed.append(Finding.model_validate({**finding, "category": category}))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = _path(first["loc"])
            raise FindingsImportError(f"{where}: field findings[{index}]{'.' + field if field else ''}: "
                                      f"{first['msg']}") from None
    try:
        return ImportedCall.model_validate({**raw, "findings": tuple(parsed), "line": number})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise FindingsImportError(f"{where}: field {_path(first['loc'])}: {first['msg']}") from None


def parse_findings(data: bytes | str, name: str = "<findings>",
                   items: Sequence[ScrubItem] | None = None) -> tuple[ImportedCall, ...]:
    """Every line of a findings file, or a FindingsImportError naming the first bad line. With `items`, a line
    about a contract the item set does not have is an error too."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    known = {item.contract_id for item in items} if items is not None else None
    calls: list[ImportedCall] = []
    seen: dict[tuple[str, int, str, str], int] = {}
    try:
        rows = parse_lines(text, name)
    except JsonlError as exc:
        raise FindingsImportError(str(exc)) from None
    for number, raw in rows:
        where = f"{name}: line {number}"
        call = _line(raw, number, where)
        if known is not None and call.contract_id not in known:
            raise FindingsImportError(f"{where}: field contract_id: {call.contract_id!r} is not in the item set")
        key = (call.model, call.run, call.contract_id, call.category)
        if key in seen:
            raise FindingsImportError(f"{where}: the same model, run, contract and category as line {seen[key]}")
        seen[key] = number
        calls.append(call)
    return tuple(calls)


def answers_of(calls: Iterable[ImportedCall], model: str) -> Answers:
    """One model's imported answers in the form scoring reads, keyed by (run, contract, category)."""
    return {(c.run, c.contract_id, c.category): c.findings for c in calls if c.model == model}


def findings_line(model: str, run: int, contract_id: str, category: CategoryKey, findings: Iterable[Finding]) -> str:
    """One line of the findings format (what another pipeline would write)."""
    rows = [{name: getattr(f, name) for name in f.fields()} for f in findings]
    return json.dumps({"model": model, "run": run, "contract_id": contract_id, "category": category,
                       "findings": rows}, ensure_ascii=False, separators=(",", ":"))


def gold_findings(items: Iterable[ScrubItem], model: str, run: int = 1) -> bytes:
    """An item set's gold in the findings format, as model `model`'s answers in run `run`: one line per (contract,
    category), every call of the set (`"findings": []` where the contract has no gold of the category), each
    gold tuple with its category's fields only. Imported, it scores 1.0 wherever a figure exists."""
    return "".join(findings_line(model, run, item.contract_id, key, [g for g in item.gold if g.category == key]) + "\n"
                   for item in items for key in CATEGORY_KEYS).encode("utf-8")
