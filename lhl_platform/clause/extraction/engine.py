"""Run one extraction partition (model x run): one structured call per contract, 41 instances each.

Extraction is a single-call stage of the call engine (`lhl_platform.calls`): a contract whose 41 instances are
already recorded is skipped, and a call whose request key is already recorded is answered from the log, so
re-running or resuming a partition repeats no completed work. Every call, parsed instance and failure is an
event in the partition's own stream; a failing contract becomes an `extraction.failed` event and missing rows,
never a failed partition. With `lhl audit --batch` the same stage goes through the provider's batch API.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from lhl_platform.calls.ledger import Answer, Unusable, Who
from lhl_platform.calls.partition import run_partition
from lhl_platform.calls.policy import COMMIT_SECONDS, CommitPolicy
from lhl_platform.clause.extraction.events import (
    ExtractionEvent,
    ExtractionFailed,
    ExtractionIncomplete,
    ExtractionRecorded,
)
from lhl_platform.clause.extraction.prompts import EXTRACT_PROMPT_VERSION, extraction_messages
from lhl_platform.clause.extraction.task import ExtractionOutput, ExtractTask
from lhl_platform.domain.models import Contract, ModelSpec
from lhl_platform.domain.taxonomy import CLAUSE_TYPES, canonical_clause_type
from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.events.payloads import AuditScope, EventType, ModelCall
from lhl_platform.progress import CallTally, Progress
from lhl_platform.providers.base import ChatModel, Message, ModelRequest

__all__ = ["COMMIT_CONTRACTS", "COMMIT_SECONDS", "MAX_UNCOMMITTED", "ExtractionStage", "PartitionSummary",
           "extract_partition", "extraction_stream", "instance_key", "scope_key"]

STAGE = "extraction"
# A paid model's extraction partition commits every COMMIT_CONTRACTS contracts or COMMIT_SECONDS, and starts no
# new call while MAX_UNCOMMITTED finished contracts await their commit (`calls/policy.py`).
COMMIT = CommitPolicy(units=32)
COMMIT_CONTRACTS = COMMIT.units
MAX_UNCOMMITTED = COMMIT.window


def extraction_stream(model: str, run: int) -> str:
    return f"extract.model={model}.run={run}"


def instance_key(model: str, run: int, contract_id: str, clause_type: str) -> str:
    return f"extraction:{model}:{run}:{contract_id}:{clause_type}"


@dataclass
class PartitionSummary(CallTally):
    model: str = ""
    run: int = 0
    contracts: int = 0
    skipped_contracts: int = 0
    instances: int = 0
    reused_calls: int = 0
    cache_errors: list[str] = field(default_factory=list)

    def metadata(self) -> dict[str, Any]:
        cache = {"cache_errors": "; ".join(self.cache_errors)} if self.cache_errors else {}
        return {"contracts": self.contracts, "skipped_contracts": self.skipped_contracts,
                "instances_recorded": self.instances, "reused_calls": self.reused_calls, **self.tally(), **cache}


def scope_key(corpus_id: str, contract_ids: Sequence[str]) -> str:
    digest = hashlib.sha256("\n".join(sorted(contract_ids)).encode()).hexdigest()[:16]
    return f"scope:{corpus_id}:{digest}"


_CANONICAL = frozenset(CLAUSE_TYPES)
Parsed = tuple[list[ExtractionRecorded], list[str]]


@dataclass
class ExtractionStage:
    """One partition's extraction: what each contract asks and what its answer means (`calls.single`)."""

    spec: ModelSpec
    run: int
    corpus_id: str
    params: dict[str, Any]
    summary: PartitionSummary
    name: str = STAGE
    policy: CommitPolicy = COMMIT
    _instructions: list[Message] = field(default_factory=list)  # shared by every request of the partition

    def __post_init__(self) -> None:
        # What every instance of the partition shares, validated once here, so each instance can be built from
        # values that are valid by construction (`_parse`).
        ExtractionRecorded(model=self.spec.name, run=self.run, contract_id="-", clause_type=CLAUSE_TYPES[0],
                           present=False, corpus_id=self.corpus_id, request_key="-")

    def skip(self, writer: StreamWriter, contract: Contract) -> bool:
        if all(writer.has(instance_key(self.spec.name, self.run, contract.contract_id, c)) for c in CLAUSE_TYPES):
            self.summary.skipped_contracts += 1
            return True
        return False

    def request(self, contract: Contract) -> ModelRequest:
        messages = extraction_messages(contract.text, CLAUSE_TYPES)
        # The instructions are the same for every contract: one Message object, so its JSON text (which the
        # request key and the body reuse) is escaped once per partition.
        first = self._instructions
        if first and first[0] == messages[0]:
            messages = (first[0], *messages[1:])
        elif not first:
            first.append(messages[0])
        return ModelRequest(
            provider=self.spec.provider, model_id=self.spec.model_id, prompt_version=EXTRACT_PROMPT_VERSION,
            run=self.run, params=self.params, messages=messages,
            task=ExtractTask(contract_id=contract.contract_id, contract_text=contract.text, clause_types=CLAUSE_TYPES))

    def who(self, contract: Contract) -> Who:
        return Who(stage=STAGE, subject=contract.contract_id, item=contract.contract_id)

    def parse(self, contract: Contract, call: ModelCall, validated: bool) -> Parsed:
        try:
            return self._parse(call.content, contract.contract_id, call.request_key, validated)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise Unusable(f"unparseable output at {where or 'top'}: {first['msg']}") from None

    def _parse(self, content: dict[str, Any] | None, contract_id: str, key: str, validated: bool) -> Parsed:
        """The instances (as recorded) and a list of problems. Content the provider has not just validated
        against the same schema is validated first."""
        if content is None:
            return [], ["no structured content in the response"]
        if not validated:
            content = ExtractionOutput.model_validate(content).model_dump(mode="json")
        problems: list[str] = []
        instances: dict[str, ExtractionRecorded] = {}
        model, run, corpus_id = self.spec.name, self.run, self.corpus_id
        for answer in content["clauses"]:
            clause = answer["clause_type"]
            if clause not in _CANONICAL:
                try:
                    clause = canonical_clause_type(clause)
                except ValueError as exc:
                    problems.append(str(exc))
                    continue
            if clause in instances:
                problems.append(f"clause type {clause!r} answered twice; first answer kept")
                continue
            present = answer["present"]
            quotes = tuple(q for q in answer["quotes"] if q.strip()) if present else ()
            if present and not quotes:
                problems.append(f"{clause!r} said present without a quote; counted as not present")
            # Valid by construction: the clause type is canonical, quotes exist exactly when present, and what
            # the partition shares was validated once (__post_init__). On the audit's hot path (41 per contract).
            instances[clause] = ExtractionRecorded.model_construct(
                clause_type=clause, model=model, run=run, contract_id=contract_id, present=bool(quotes),
                quotes=quotes, corpus_id=corpus_id, request_key=key)
        missing = [c for c in CLAUSE_TYPES if c not in instances]
        if missing:
            problems.append(f"{len(missing)} clause types not answered: {', '.join(missing[:5])}")
        return list(instances.values()), problems

    def record(self, writer: StreamWriter, contract: Contract, call: ModelCall, parsed: Parsed) -> None:
        instances, problems = parsed
        cid, append = contract.contract_id, writer.append
        key_prefix = instance_key(self.spec.name, self.run, cid, "")  # the instance key is this and the clause type
        for inst in instances:
            clause = inst.clause_type
            self.summary.instances += append(ExtractionEvent.RECORDED, f"{cid}/{clause}", key_prefix + clause, inst)
        if problems:
            append(ExtractionEvent.INCOMPLETE, cid, f"incomplete:{call.request_key}", ExtractionIncomplete(
                model=self.spec.name, run=self.run, contract_id=cid, problems=problems))

    def reject(self, writer: StreamWriter, contract: Contract, answer: Answer[Parsed], stage: str) -> None:
        cid = contract.contract_id
        self.summary.failures.append((cid, answer.reason))
        suffix = answer.call.batch_id if stage == "batch" and answer.call.batch_id else uuid.uuid4().hex
        writer.append(ExtractionEvent.FAILED, cid, f"failed:{cid}:{suffix}", ExtractionFailed(
            model=self.spec.name, run=self.run, contract_id=cid, stage=stage, reason=answer.reason[:2000]))


async def extract_partition(log: EventLog, spec: ModelSpec, run: int, corpus_id: str,
                            contracts: Sequence[Contract], model: ChatModel, *, concurrency: int = 4,
                            progress: Progress | None = None, batch: bool = False,
                            status: Callable[[str], None] | None = None,
                            poll: tuple[float, float] | None = None) -> PartitionSummary:
    """Extract every contract of the partition (through the provider's batch API with `batch`; `status` hears
    what a batch partition waits for)."""
    stream = extraction_stream(spec.name, run)
    summary = PartitionSummary(model=spec.name, run=run, batch=batch)
    stage = ExtractionStage(spec=spec, run=run, corpus_id=corpus_id, params=model.request_params(), summary=summary)
    ids = [c.contract_id for c in contracts]

    def opening(writer: StreamWriter) -> None:
        writer.append(EventType.AUDIT_SCOPE, f"{spec.name}/{run}", scope_key(corpus_id, ids),
                      AuditScope(model=spec.name, run=run, corpus_id=corpus_id, contract_ids=ids))

    ledger = await run_partition(log, stream, stage, model, contracts, model_name=spec.name, run=run,
                                 owner=f"{spec.name}/{run}", tally=summary, concurrency=concurrency, batch=batch,
                                 progress=progress, status=status, poll=poll, opening=opening)
    summary.reused_calls = ledger.reused.calls
    summary.contracts = len(contracts)
    # A provider cache that could not be created is not a failure (calls carry the instructions) but costs more.
    summary.cache_errors = list(getattr(model, "cache_errors", []))
    return summary
