"""Typed payloads of what the ContractScrub suite records, and their event types (`EVENT_PAYLOADS`, which the
platform registers with the event log).

- `scrub.items_built`: an item set built by injection: the corpus, seed, configuration and versions it was
  built with, the digest of its release JSONL, every item's gold with each edit's injected text (so the set can
  be rebuilt from the stored source contracts alone, `rebuild_items`), and the verifier's report.
- `scrub.items_ingested`: an item set loaded from a release JSONL (`lhl ingest contractscrub`): its digest,
  what it holds, and whether it was built by injection.
- `scrub.findings_recorded`: one answered call of a model (its findings, the request key and prompt version).
- `scrub.findings_failed`: a call that failed or whose answer did not parse: a missing call, never an empty
  answer.
- `scrub.findings_imported`: one line of `lhl import findings`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.domain.models import MODEL_NAME_PATTERN, RunNumber
from lhl_platform.scrub.build import PROVENANCE, BuildConfig, BuiltSet, SkippedContract
from lhl_platform.scrub.categories import CATEGORY_KEYS, CategoryKey
from lhl_platform.scrub.items import Edit, Finding, GoldFinding, ScrubItem, Source, export_items, item_set_id
from lhl_platform.scrub.verify import VerifierReport


class Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class BuiltGold(GoldFinding):
    """A gold tuple as recorded: with the text its edit put into the item."""

    inserted: str | None = None


class BuiltItem(Payload):
    contract_id: str
    source: Source
    text_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    gold: tuple[BuiltGold, ...]


class ScrubItemsBuilt(Payload):
    item_set: str = Field(description="first 16 hex digits of the SHA-256 of the release JSONL")
    provenance: str = Field(description="the label the set carries wherever it is reported")
    export_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    corpus: str
    seed: int
    requested: int = Field(ge=1)
    builder_version: str
    config: BuildConfig
    eligible: int = Field(ge=0)
    skipped: tuple[SkippedContract, ...]
    targeted: dict[CategoryKey, int]
    items: tuple[BuiltItem, ...]
    report: VerifierReport


class ScrubItemsIngested(Payload):
    item_set: str
    file_name: str
    file_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    items: int = Field(ge=1)
    contract_ids: tuple[str, ...]
    gold: dict[CategoryKey, int]
    injected: bool = Field(description="every item names its source and every gold tuple but defined terms its edit")


class _Call(Payload):
    model: str = Field(pattern=MODEL_NAME_PATTERN)
    run: RunNumber
    item_set: str
    contract_id: str
    category: CategoryKey


class ScrubFindingsRecorded(_Call):
    findings: tuple[Finding, ...]
    request_key: str
    prompt_version: str


class ScrubFindingsFailed(_Call):
    request_key: str
    prompt_version: str
    reason: str


class ScrubFindingsImported(_Call):
    findings: tuple[Finding, ...]
    file_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    line: int = Field(ge=1)


EVENT_PAYLOADS: dict[str, type[BaseModel]] = {
    "scrub.items_built": ScrubItemsBuilt,
    "scrub.items_ingested": ScrubItemsIngested,
    "scrub.findings_recorded": ScrubFindingsRecorded,
    "scrub.findings_failed": ScrubFindingsFailed,
    "scrub.findings_imported": ScrubFindingsImported,
}


def _gold_counts(items: Sequence[ScrubItem]) -> dict[CategoryKey, int]:
    counts = dict.fromkeys(CATEGORY_KEYS, 0)
    for item in items:
        for g in item.gold:
            counts[g.category] += 1
    return counts


def items_built(built: BuiltSet, requested: int) -> ScrubItemsBuilt:
    """The event of a built set."""
    data = export_items(built.items)
    records = []
    for item in built.items:
        assert item.source is not None  # a built item always names its source
        gold = tuple(BuiltGold(**g.model_dump(), inserted=item.text[g.edit.start:g.edit.end] if g.edit else None)
                     for g in item.gold)
        records.append(BuiltItem(contract_id=item.contract_id, source=item.source, text_sha256=item.text_sha256,
                                 gold=gold))
    return ScrubItemsBuilt(item_set=item_set_id(built.items), provenance=PROVENANCE,
                           export_sha256=hashlib.sha256(data).hexdigest(),
                           corpus=built.corpus, seed=built.seed, requested=requested,
                           builder_version=built.builder_version, config=built.config, eligible=built.eligible,
                           skipped=built.skipped, targeted=built.targeted, items=tuple(records), report=built.report)


def items_ingested(items: Sequence[ScrubItem], file_name: str, data: bytes) -> ScrubItemsIngested:
    """The event of a set loaded from a release JSONL."""
    injected = all(item.source is not None and all(g.edit is not None for g in item.gold
                                                   if g.category != "defined_terms") for item in items)
    return ScrubItemsIngested(item_set=item_set_id(items), file_name=file_name,
                              file_sha256=hashlib.sha256(data).hexdigest(), items=len(items),
                              contract_ids=tuple(i.contract_id for i in items), gold=_gold_counts(items),
                              injected=injected)


class RebuildError(ValueError):
    """A recorded set that the stored source contracts do not rebuild."""


def rebuild_items(event: ScrubItemsBuilt, sources: Mapping[str, str]) -> tuple[ScrubItem, ...]:
    """The items of a recorded set, rebuilt from the source texts (contract id -> text) and the recorded edits;
    each text is checked against its recorded SHA-256."""
    items = []
    for record in event.items:
        source = sources.get(record.source.contract_id)
        if source is None:
            raise RebuildError(f"source contract {record.source.contract_id!r} is not in the stored corpus")
        if hashlib.sha256(source.encode("utf-8")).hexdigest() != record.source.sha256:
            raise RebuildError(f"source contract {record.source.contract_id!r} is not the one the set was built from")
        pieces: list[str] = []
        cursor = 0  # in the source
        shift = 0  # item offset minus source offset
        for g in sorted((g for g in record.gold if g.edit is not None), key=lambda g: _start(g.edit)):
            assert g.edit is not None and g.inserted is not None
            source_start = g.edit.start - shift
            pieces += [source[cursor:source_start], g.inserted]
            cursor = source_start + len(g.edit.original)
            shift += len(g.inserted) - len(g.edit.original)
        pieces.append(source[cursor:])
        text = "".join(pieces)
        if hashlib.sha256(text.encode("utf-8")).hexdigest() != record.text_sha256:
            raise RebuildError(f"item {record.contract_id!r} does not rebuild to its recorded text")
        gold = tuple(GoldFinding(**g.model_dump(exclude={"inserted"})) for g in record.gold)
        items.append(ScrubItem(contract_id=record.contract_id, text=text, gold=gold, source=record.source))
    return tuple(items)


def _start(edit: Edit | None) -> int:
    return edit.start if edit is not None else 0
