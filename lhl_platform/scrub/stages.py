"""The suite's stages, as plain functions of a `StageContext`, and the work they share with the commands.

- `scrub_items` (items): the active item set, or one built from the active corpus (`contracts`, `seed`) or
  ingested from a release JSONL (`path`), recorded in the home (`store.py`);
- `scrub_findings` (solve, per model x run): one call per (contract, category) of the item set through the call
  engine (`run_partition`: interactively or through the provider's batch API, resumable, every call a
  `model.call` event with `stage`, `system`, `item`); the answer is the category's strict schema, passed to the
  provider's native structured output; temperature and reasoning effort are the model's registered parameters;
  a prompt that cannot fit the model's context window is a recorded failure without a call (the provider layer
  checks it; the contract is never truncated); a failed call or an unparseable answer is a recorded failure
  and a missing call, never an empty list;
- `scrub_scores` (score, per model x run): every answered call's findings matched against the gold by
  `scoring.unit_score`, one `scrub.scored` event per call, which the marts add up.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from lhl_platform.calls.ledger import Answer, Unusable, Who
from lhl_platform.calls.partition import run_partition
from lhl_platform.calls.policy import CommitPolicy
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import active_corpus_id, ingested_corpora, load_corpus
from lhl_platform.events.log import StreamWriter
from lhl_platform.events.payloads import ModelCall
from lhl_platform.factory import build_model
from lhl_platform.home import Home
from lhl_platform.progress import CallTally
from lhl_platform.providers.base import ModelRequest
from lhl_platform.providers.llm.base import LlmModel
from lhl_platform.registry import get_model
from lhl_platform.scrub.build import CUAD_CONFIG, DEMO_CONFIG, build_items
from lhl_platform.scrub.categories import CATEGORY_KEYS, CategoryKey
from lhl_platform.scrub.events import (
    ScrubEventType,
    ScrubFindingsFailed,
    ScrubFindingsRecorded,
    ScrubScope,
    ScrubScored,
)
from lhl_platform.scrub.items import Finding, ScrubItem, parse_items
from lhl_platform.scrub.parties import annotated_parties
from lhl_platform.scrub.scoring import unit_scores
from lhl_platform.scrub.store import StoredSet, load_set, record_built, record_ingested
from lhl_platform.scrub.task import OUTPUTS, SCRUB_PROMPT_VERSION, findings_of, scrub_messages, scrub_task
from lhl_platform.suites import kit  # the suite kit: config bases, call stages, checks
from lhl_platform.suites.contract import Markdown, PlannedCall, StageContext, StageResult

FINDINGS_STAGE = "scrub"  # the `stage` of the suite's calls, as int_calls reports them
FINDINGS_KIND = "scrub.findings"  # the prefix of a call's idempotency key (`kit.unit_key`)
IMPORTS_STREAM = "scrub.imports"


def findings_stream(model: str, run: int) -> str:
    return f"scrub.findings.model={model}.run={run}"


def scores_stream(model: str, run: int) -> str:
    return f"scrub.scores.model={model}.run={run}"


class ItemsConfig(kit.StageConfig):
    contracts: int | None = Field(default=None, ge=1, description="build a set of this many contracts from the "
                                                                   "active corpus; default: keep the active set")
    seed: int = Field(default=0, description="the build's seed")
    path: str | None = Field(default=None, description="a release JSONL to ingest instead (lhl ingest contractscrub)")


_CONTRACTS = Field(default=None, ge=1, description="only the first N contracts of the item set (by id)")
_SUBSET = Field(default=None, description="only the item set's contracts in this stored subset (lhl subset create)")


class ScoresConfig(kit.ItemSetConfig):
    contracts: int | None = _CONTRACTS
    subset: str | None = _SUBSET


class FindingsConfig(ScoresConfig, kit.BatchConfig):
    pass


def chosen_items(home: Home, stored: StoredSet, contracts: int | None = None,
                 subset: str | None = None) -> tuple[ScrubItem, ...]:
    """The items of a set an audit scrubs: those of a stored subset (`lhl audit --subset`), then the first
    `contracts` by id (`--contracts`); the whole set without either. Asking for more than there is is an error."""
    from lhl_platform.corpus.subsets import get_subset

    items = tuple(sorted(stored.items, key=lambda i: i.contract_id))
    if subset is not None:
        wanted = set(get_subset(home, subset).contract_ids)
        items = tuple(i for i in items if i.contract_id in wanted)
        if not items:
            raise ValueError(f"subset {subset!r} holds none of the {len(stored.items)} contracts of item set "
                             f"{stored.item_set}")
    if contracts is not None:
        if contracts > len(items):
            raise ValueError(f"--contracts {contracts} is more than the {len(items)} contracts of item set "
                             f"{stored.item_set}{f' in subset {subset!r}' if subset else ''}; give at most "
                             f"{len(items)}")
        items = items[:contracts]
    return items


def selection_of(stored: StoredSet, items: tuple[ScrubItem, ...]) -> StoredSet:
    """The set restricted to the chosen items (its own id and provenance kept)."""
    return stored if len(items) == len(stored.items) else dataclasses.replace(stored, items=items)


# Items ------------------------------------------------------------------------------------------------

def build_set(home: Home, contracts: int, seed: int) -> StoredSet:
    """A set of `contracts` items built from the active corpus with `seed`, recorded and made active. The demo
    corpus's short contracts are built with their own thresholds (`DEMO_CONFIG`), any other corpus with the
    paper's (`CUAD_CONFIG`)."""
    corpus_id = active_corpus_id(home)
    name = ingested_corpora(home)[corpus_id].name  # as it was ingested (the stored copy is named by its id)
    config = DEMO_CONFIG if name == DEMO_DIR.name else CUAD_CONFIG
    corpus = load_corpus(home, corpus_id)
    built = build_items(corpus.contracts, contracts, seed, corpus=name, config=config,
                        parties=annotated_parties(corpus.oracle))
    return record_built(home, built, contracts, corpus_id)


def ingest_file(home: Home, path: Path) -> StoredSet:
    """A release JSONL validated whole (a bad line is one error naming it), recorded and made active."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    data = path.read_bytes()
    return record_ingested(home, parse_items(data, path.name), path.name, data)


def set_summary(stored: StoredSet) -> dict[str, object]:
    gold: dict[str, int] = dict.fromkeys(CATEGORY_KEYS, 0)
    for item in stored.items:
        for g in item.gold:
            gold[g.category] += 1
    table = "| category | gold |\n|---|---:|\n" + "\n".join(f"| {c} | {n} |" for c, n in gold.items())
    return {"item_set": stored.item_set, "contracts": len(stored.items), "provenance": stored.provenance,
            "gold": Markdown(table)}


def scrub_items(ctx: StageContext) -> StageResult:
    config = kit.config_of(ctx, ItemsConfig)
    if config.path is not None and config.contracts is not None:
        raise ValueError("give contracts (a build) or path (an ingest), not both")
    if config.path is not None:
        stored = ingest_file(ctx.home, Path(config.path))
    elif config.contracts is not None:
        stored = build_set(ctx.home, config.contracts, config.seed)
    else:
        stored = load_set(ctx.home)
    return StageResult(metadata=set_summary(stored))


# Findings ---------------------------------------------------------------------------------------------

Unit = tuple[ScrubItem, CategoryKey]


@dataclass
class FindingsStage(kit.ItemSetCalls[Unit]):
    """One call per (contract, category) of an item set (a `SingleCallStage`)."""

    name: str = FINDINGS_STAGE
    policy: CommitPolicy = CommitPolicy(units=9)
    failures: list[tuple[str, str]] = field(default_factory=list)
    kind = FINDINGS_KIND

    def ids(self, unit: Unit) -> tuple[str, ...]:
        item, category = unit
        return item.contract_id, category

    def request(self, unit: Unit) -> ModelRequest:
        item, category = unit
        task = scrub_task(category, item.contract_id, item.text)
        return ModelRequest(provider=self.chat.provider, model_id=self.chat.model_id,
                            prompt_version=SCRUB_PROMPT_VERSION, run=self.run, params=self.chat.request_params(),
                            messages=scrub_messages(task), task=task)

    def who(self, unit: Unit) -> Who:
        item, category = unit
        return Who(stage=FINDINGS_STAGE, subject=f"{item.contract_id}/{category}", system=self.model,
                   item=item.contract_id)

    def parse(self, unit: Unit, call: ModelCall, validated: bool) -> tuple[Finding, ...]:
        _, category = unit
        try:
            return findings_of(category, OUTPUTS[category].model_validate(call.content or {}))
        except ValidationError as exc:
            first = exc.errors()[0]
            raise Unusable(f"answer does not fit the {category} schema at "
                           f"{'.'.join(map(str, first['loc'])) or 'top'}: {first['msg']}") from None

    def record(self, writer: StreamWriter, unit: Unit, call: ModelCall, parsed: tuple[Finding, ...]) -> None:
        item, category = unit
        writer.append(ScrubEventType.FINDINGS_RECORDED, f"{item.contract_id}/{category}", self.key(unit),
                      ScrubFindingsRecorded(model=self.model, run=self.run, item_set=self.item_set,
                                            contract_id=item.contract_id, category=category, findings=parsed,
                                            request_key=call.request_key, prompt_version=call.prompt_version))

    def reject(self, writer: StreamWriter, unit: Unit, answer: Answer[tuple[Finding, ...]], stage: str) -> None:
        item, category = unit
        reason = f"{stage}: {answer.reason}"[:2000]
        self.failures.append((f"{item.contract_id}/{category}", reason))
        writer.append(ScrubEventType.FINDINGS_FAILED, f"{item.contract_id}/{category}",
                      f"scrub.findings_failed:{answer.call.request_key}:{uuid.uuid4().hex}",
                      ScrubFindingsFailed(model=self.model, run=self.run, item_set=self.item_set,
                                          contract_id=item.contract_id, category=category,
                                          request_key=answer.call.request_key, prompt_version=SCRUB_PROMPT_VERSION,
                                          reason=reason))


class FindingsSummary(BaseModel):
    item_set: str
    contracts: int
    expected_calls: int
    answered: int
    calls: int
    reused_calls: int
    failures: list[tuple[str, str]]


def answered_calls(home: Home, model: str, run: int, item_set: str) -> dict[tuple[str, CategoryKey],
                                                                                ScrubFindingsRecorded]:
    """A partition's answered calls of a set, by (contract, category)."""
    stream = findings_stream(model, run)
    if not (home.events.root / stream).exists():
        return {}
    found = (e.data_as(ScrubFindingsRecorded) for e in home.events.read(stream)
             if e.type == ScrubEventType.FINDINGS_RECORDED)
    return {(f.contract_id, f.category): f for f in found if f.item_set == item_set}


def run_findings(home: Home, model: str, run: int, stored: StoredSet, *, batch: bool = False,
                 status: Callable[[str], None] | None = None, whole: int | None = None) -> FindingsSummary:
    """Every (contract, category) of `stored` (a set, or a selection of the `whole` contracts of one) answered."""
    spec = get_model(home, model)
    chat = build_model(spec, run=run, home=home)
    stage = FindingsStage(model, run, chat, stored.item_set)
    units: list[Unit] = [(item, category) for item in stored.items for category in CATEGORY_KEYS]
    tally = CallTally()
    ids = tuple(item.contract_id for item in stored.items)

    # A selection's scope is its own event (the cells are their union); the whole set's key is as it always was.
    part = "" if whole is None or whole == len(ids) else ":" + hashlib.sha256("|".join(ids).encode()).hexdigest()[:12]

    def opening(writer: StreamWriter) -> None:
        writer.append(ScrubEventType.SCOPE, f"{model}/{run}", f"scrub.scope:{stored.item_set}:{model}:{run}{part}",
                      ScrubScope(model=model, run=run, item_set=stored.item_set, items=ids, source="stage"))

    ledger = asyncio.run(run_partition(
        home.events, findings_stream(model, run), stage, chat, units, model_name=model, run=run,
        owner=f"{model}/{run}", tally=tally, concurrency=spec.params.concurrency,
        batch=batch and isinstance(chat, LlmModel), opening=opening, status=status))
    answered = answered_calls(home, model, run, stored.item_set)
    done = {f"{contract}/{category}" for contract, category in answered}  # a later answer settles a failure
    return FindingsSummary(item_set=stored.item_set, contracts=len(stored.items), expected_calls=len(units),
                           answered=len(answered), calls=tally.calls, reused_calls=ledger.reused.calls,
                           failures=[f for f in stage.failures if f[0] not in done])


def _chosen(ctx: StageContext, config: ScoresConfig) -> tuple[StoredSet, StoredSet]:
    """The whole set a stage's config names, and the selection of it the stage runs on."""
    whole = load_set(ctx.home, config.item_set)
    return whole, selection_of(whole, chosen_items(ctx.home, whole, config.contracts, config.subset))


def scrub_findings(ctx: StageContext) -> StageResult:
    config = kit.config_of(ctx, FindingsConfig)
    model, run = kit.model_run(ctx)
    whole, stored = _chosen(ctx, config)
    ctx.log(f"{model} run {run}: scrubbing {len(stored.items)} contracts x {len(CATEGORY_KEYS)} categories "
            f"({whole.describe()})")
    summary = run_findings(ctx.home, model, run, stored, batch=config.batched(), status=ctx.log,
                           whole=len(whole.items))
    check = kit.every_unit_answered(
        "every_call_answered", "every (contract, category) of the set has an answer (a failure is a missing call)",
        summary.expected_calls, summary.answered, units="calls", failures=summary.failures, reason_chars=80)
    return StageResult(metadata={k: v for k, v in summary.model_dump().items() if k != "failures"},
                       checks=[check], failures=summary.failures[:20])


# Scores -----------------------------------------------------------------------------------------------

def write_scores(writer: StreamWriter, items: tuple[ScrubItem, ...], item_set: str, model: str, run: int,
                 answers: dict[tuple[str, CategoryKey], tuple[tuple[Finding, ...], str]],
                 source: Literal["recorded", "imported"]) -> int:
    """One `scrub.scored` event per answered call (`answers`: (contract, category) -> (findings, answer key));
    returns how many are new."""
    keys = {(run, contract, category): key for (contract, category), (_, key) in answers.items()}
    scored = unit_scores(items, {(run, c, cat): f for (c, cat), (f, _) in answers.items()}, runs=(run,))
    new = 0
    for unit in scored:
        event = ScrubScored.of(unit, model=model, item_set=item_set, source=source,
                               answer_key=keys[(unit.run, unit.contract_id, unit.category)])
        new += writer.append(ScrubEventType.SCORED, f"{unit.contract_id}/{unit.category}", event.key(), event)
    return new


def scrub_scores(ctx: StageContext) -> StageResult:
    config = kit.config_of(ctx, ScoresConfig)
    model, run = kit.model_run(ctx)
    whole, stored = _chosen(ctx, config)
    chosen = {i.contract_id for i in stored.items}
    answered = {k: f for k, f in answered_calls(ctx.home, model, run, stored.item_set).items() if k[0] in chosen}
    from lhl_platform.scrub.versions import later_gold, write_later_scores

    later = later_gold(ctx.home, stored.item_set, whole.items)  # reviewed: the calls count in every gold version
    answers = {k: (f.findings, f.request_key) for k, f in answered.items()}
    with ctx.home.events.writer(scores_stream(model, run)) as writer:
        new = write_scores(writer, stored.items, stored.item_set, model, run, answers, "recorded")
        write_later_scores(writer, later, stored.item_set, model, run, answers, "recorded")
    return StageResult(metadata={"item_set": stored.item_set, "scored_calls": len(answered), "new_scores": new,
                                 "missing_calls": len(stored.items) * len(CATEGORY_KEYS) - len(answered)})


# Estimate ---------------------------------------------------------------------------------------------

def plan_calls(home: Home, model: str, run: int, config: Mapping[str, Mapping[str, Any]]) -> list[PlannedCall]:
    """The findings calls a (model, run) audit would make (`lhl audit --suite contractscrub --dry-run`): each
    (contract, category) of the chosen items the partition has not answered, rendered as the stage sends it."""
    settings = FindingsConfig.model_validate(dict(config.get("scrub_findings", {})))
    whole = load_set(home, settings.item_set)
    items = chosen_items(home, whole, settings.contracts, settings.subset)
    done = home.events.keys(findings_stream(model, run))
    spec = get_model(home, model)
    return [PlannedCall(stage="scrub_findings", model=spec,
                        text="".join(m.content for m in scrub_messages(scrub_task(category, item.contract_id,
                                                                                  item.text))))
            for item in items for category in CATEGORY_KEYS
            if kit.unit_key(FINDINGS_KIND, whole.item_set, model, run, item.contract_id, category) not in done]
