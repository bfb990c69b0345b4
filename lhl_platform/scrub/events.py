"""Typed payloads of what the ContractScrub suite records, and their event types (`EVENT_PAYLOADS`, registered
with the event log when this module is imported).

Kept flat enough for the generated staging tables: a set is one small summary event plus one event per item,
a call one event, a score one event per answered call.

- `scrub.items_built`: an item set built by injection: the corpus, seed, configuration and versions it was
  built with, the digest of its release JSONL, its gold counts and the verifier's report;
- `scrub.items_ingested`: an item set loaded from a release JSONL (`lhl ingest contractscrub`): its digest,
  what it holds, and whether it was built by injection;
- `scrub.item`: one item of a recorded set (its text, source and gold), so a set is read back from the log
  alone, byte for byte;
- `scrub.scope`: the contracts of a set a (model, run) was asked to scrub (by the stage or by an import): nine
  calls each, so a call absent is a missing call;
- `scrub.findings_recorded`: one answered call of a model (its findings, the request key and prompt version);
- `scrub.findings_failed`: a call that failed or whose answer did not parse: a missing call, never an empty
  answer;
- `scrub.findings_imported`: one line of `lhl import findings`;
- `scrub.scored`: the counts of one answered call (`scoring.UnitScore`), which the marts add up.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from lhl_platform.domain.models import MODEL_NAME_PATTERN, RunNumber
from lhl_platform.domain.reviewed import Reviewed
from lhl_platform.events.kinds import register_events
from lhl_platform.events.payloads import Payload
from lhl_platform.scrub.categories import CATEGORY_KEYS, CategoryKey
from lhl_platform.scrub.items import Finding, GoldFinding, ScrubItem, Source, export_items, item_set_id
from lhl_platform.scrub.records import BuildConfig, DistanceCount, SkippedContract, VerifierReport

if TYPE_CHECKING:  # the builder and the scorer: not for the payloads, which the warehouse imports to stage them
    from lhl_platform.scrub.build import BuiltSet
    from lhl_platform.scrub.scoring import UnitScore

SCORER_VERSION = "scrub-score-v1"  # part of every score's key: a change of scoring re-scores every call
# How a set loaded from a file is labelled when it was not built by this platform's injection.
EXTERNAL_PROVENANCE = "external: gold as given in the ingested file"


class ScrubItemsBuilt(Payload):
    """An item set built by injection from a stored corpus: how, and what the verifier kept and rejected."""

    item_set: str = Field(description="first 16 hex digits of the SHA-256 of the release JSONL")
    provenance: str = Field(description="the label the set carries wherever it is reported")
    export_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    corpus: str
    corpus_id: str = Field(description="the stored corpus it was built from")
    seed: int
    requested: int = Field(ge=1)
    builder_version: str
    config: BuildConfig
    eligible: int = Field(ge=0)
    skipped: tuple[SkippedContract, ...]
    targeted: dict[CategoryKey, int]
    contract_ids: tuple[str, ...]
    gold: dict[CategoryKey, int]
    report: VerifierReport


class ScrubItemsIngested(Payload):
    """An item set loaded from a release JSONL."""

    item_set: str
    provenance: str
    file_name: str
    file_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    items: int = Field(ge=1)
    contract_ids: tuple[str, ...]
    gold: dict[CategoryKey, int]
    injected: bool = Field(description="every item names its source and every gold tuple but defined terms its edit")


class ScrubItemRecorded(Payload):
    """One item of a recorded set."""

    item_set: str
    contract_id: str
    text: str
    text_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    source: Source | None
    gold: tuple[GoldFinding, ...]
    reviewed: Reviewed | None = None  # the file was a reviewed export (`lhl scrub export --gold-version N`)

    def item(self) -> ScrubItem:
        return ScrubItem(contract_id=self.contract_id, text=self.text, gold=self.gold, source=self.source,
                         reviewed=self.reviewed)


class ScrubScope(Payload):
    """The contracts of a set one (model, run) was asked to scrub, nine categories each."""

    model: str = Field(pattern=MODEL_NAME_PATTERN)
    run: RunNumber
    item_set: str
    items: tuple[str, ...]
    source: Literal["stage", "import"]


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


class ScrubScored(_Call):
    """The counts of one answered call (recorded or imported), by the scorer of `scorer_version`."""

    source: Literal["recorded", "imported"]
    answer_key: str = Field(description="the recorded call's request key, or the imported file's digest and line")
    scorer_version: str
    gold: int = Field(ge=0)
    predicted: int = Field(ge=0)
    tp: int = Field(ge=0)
    fp: int = Field(ge=0)
    fn: int = Field(ge=0)
    terms_gold: int | None
    terms_predicted: int | None
    terms_tp: int | None
    terms_fp: int | None
    terms_fn: int | None
    by_distance: tuple[DistanceCount, ...]

    @staticmethod
    def of(unit: UnitScore, *, model: str, item_set: str, source: Literal["recorded", "imported"],
           answer_key: str) -> ScrubScored:
        return ScrubScored(model=model, item_set=item_set, source=source, answer_key=answer_key,
                           scorer_version=SCORER_VERSION, **unit.model_dump(exclude={"by_distance"}),
                           by_distance=unit.by_distance)

    def key(self) -> str:
        return (f"scrub.scored:{self.scorer_version}:{self.item_set}:{self.model}:{self.run}:{self.contract_id}:"
                f"{self.category}:{self.answer_key}")


class ScrubEventType:
    ITEMS_BUILT = "scrub.items_built"
    ITEMS_INGESTED = "scrub.items_ingested"
    ITEM = "scrub.item"
    SCOPE = "scrub.scope"
    FINDINGS_RECORDED = "scrub.findings_recorded"
    FINDINGS_FAILED = "scrub.findings_failed"
    FINDINGS_IMPORTED = "scrub.findings_imported"
    SCORED = "scrub.scored"


EVENT_PAYLOADS: dict[str, type[BaseModel]] = {
    ScrubEventType.ITEMS_BUILT: ScrubItemsBuilt,
    ScrubEventType.ITEMS_INGESTED: ScrubItemsIngested,
    ScrubEventType.ITEM: ScrubItemRecorded,
    ScrubEventType.SCOPE: ScrubScope,
    ScrubEventType.FINDINGS_RECORDED: ScrubFindingsRecorded,
    ScrubEventType.FINDINGS_FAILED: ScrubFindingsFailed,
    ScrubEventType.FINDINGS_IMPORTED: ScrubFindingsImported,
    ScrubEventType.SCORED: ScrubScored,
}

register_events(EVENT_PAYLOADS, owner=__name__)


def gold_counts(items: Sequence[ScrubItem]) -> dict[CategoryKey, int]:
    counts = dict.fromkeys(CATEGORY_KEYS, 0)
    for item in items:
        for g in item.gold:
            counts[g.category] += 1
    return counts


def items_built(built: BuiltSet, requested: int, corpus_id: str) -> ScrubItemsBuilt:
    """The summary event of a built set."""
    from lhl_platform.scrub.build import PROVENANCE

    data = export_items(built.items)
    return ScrubItemsBuilt(item_set=item_set_id(built.items), provenance=PROVENANCE,
                           export_sha256=hashlib.sha256(data).hexdigest(), corpus=built.corpus, corpus_id=corpus_id,
                           seed=built.seed, requested=requested, builder_version=built.builder_version,
                           config=built.config, eligible=built.eligible, skipped=built.skipped,
                           targeted=built.targeted, contract_ids=tuple(i.contract_id for i in built.items),
                           gold=gold_counts(built.items), report=built.report)


def is_injected(items: Sequence[ScrubItem]) -> bool:
    """Every item names its source and every gold tuple but the derived defined terms its edit."""
    return all(item.source is not None and all(g.edit is not None for g in item.gold
                                               if g.category != "defined_terms") for item in items)


def items_ingested(items: Sequence[ScrubItem], file_name: str, data: bytes) -> ScrubItemsIngested:
    """The summary event of a set loaded from a release JSONL."""
    from lhl_platform.scrub.build import PROVENANCE

    injected = is_injected(items)
    return ScrubItemsIngested(item_set=item_set_id(items), provenance=PROVENANCE if injected else EXTERNAL_PROVENANCE,
                              file_name=file_name, file_sha256=hashlib.sha256(data).hexdigest(), items=len(items),
                              contract_ids=tuple(i.contract_id for i in items), gold=gold_counts(items),
                              injected=injected)


def item_recorded(item_set: str, item: ScrubItem) -> ScrubItemRecorded:
    return ScrubItemRecorded(item_set=item_set, contract_id=item.contract_id, text=item.text,
                             text_sha256=item.text_sha256, source=item.source, gold=item.gold,
                             reviewed=item.reviewed)
