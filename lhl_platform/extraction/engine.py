"""Run one extraction partition (model x run): one structured call per contract, 41 instances each.

Every call, parsed instance and failure is an event in the partition's own stream. A contract whose
41 instances are already recorded is skipped, and a call whose request key is already recorded is
answered from the log, so re-running or resuming a partition repeats no completed work. A failing
contract becomes an `extraction.failed` event and missing rows; it never fails the partition.

The event loop only makes calls: events are built and committed on the writer's own thread, in groups
(see COMMIT_CONTRACTS below for the durability window this gives). Each request is built once and its key
computed once. With `lhl audit --batch`, `extraction/batch.py` sends the same requests through the
provider's batch API and records the answers the same way.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from lhl_platform.domain.models import Contract, ModelSpec
from lhl_platform.domain.taxonomy import CLAUSE_TYPES, canonical_clause_type
from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.events.payloads import (
    AuditScope,
    EventType,
    ExtractionFailed,
    ExtractionIncomplete,
    ExtractionRecorded,
    ModelCall,
)
from lhl_platform.extraction.prompts import EXTRACT_PROMPT_VERSION, extraction_messages
from lhl_platform.progress import CallTally, Progress
from lhl_platform.providers.base import (
    ChatModel,
    ExtractionOutput,
    ExtractTask,
    Message,
    ModelRequest,
    ModelResponse,
    close_model,
    safe_complete,
)


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


def recorded_calls(log: EventLog, stream: str) -> dict[str, ModelCall]:
    """Successful calls already in the stream, by request key."""
    calls = (e.data_as(ModelCall) for e in log.read(stream) if e.type == EventType.MODEL_CALL)
    return {call.request_key: call for call in calls if call.error is None}


def call_fields(request: ModelRequest, key: str, response: ModelResponse, subject: str, model: str) -> dict[str, Any]:
    """A model call as recorded: enough to answer the same request again without calling, never a secret."""
    return {"request_key": key, "subject": subject, "model": model, "provider": request.provider,
            "model_id": request.model_id, "prompt_version": request.prompt_version, "run": request.run,
            "params": request.params, "finish_reason": response.finish_reason.value, "error": response.error,
            "latency_s": round(response.latency_s, 6), "usage": response.usage,
            "content": response.content, "raw_text": response.raw_text if response.content is None else ""}


_CANONICAL = frozenset(CLAUSE_TYPES)

# Group commit for models that cost money: a partition's events are committed every COMMIT_CONTRACTS
# contracts or COMMIT_SECONDS, whichever comes first, on the writer's own thread; and no new call starts
# while MAX_UNCOMMITTED contracts await their commit. So a kill -9 costs at most the calls completed in the
# last commit interval, never more than MAX_UNCOMMITTED of them (plus the calls in flight, which had not
# completed). Offline models cost nothing to repeat: they commit in large segments.
COMMIT_CONTRACTS = 32
COMMIT_SECONDS = 0.25
MAX_UNCOMMITTED = 2 * COMMIT_CONTRACTS
OFFLINE_COMMIT_EVENTS = 5000
OFFLINE_COMMIT_SECONDS = 10.0


def _parse(content: dict[str, Any] | None, model: str, run: int, contract_id: str, corpus_id: str, key: str,
           validated: bool = False) -> tuple[list[ExtractionRecorded], list[str]]:
    """Validate the structured output (unless the provider just did, against the same schema); returns the
    instances (as recorded) and a list of problems."""
    if content is None:
        return [], ["no structured content in the response"]
    if not validated:
        content = ExtractionOutput.model_validate(content).model_dump(mode="json")
    problems: list[str] = []
    instances: dict[str, ExtractionRecorded] = {}
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
        # Built without re-validation: the clause type is canonical, quotes exist exactly when present, and
        # the model name and run were validated once for the partition (`_check_partition`).
        instances[clause] = _recorded({"clause_type": clause, "model": model, "run": run, "contract_id": contract_id,
                                       "present": bool(quotes), "quotes": quotes, "corpus_id": corpus_id,
                                       "request_key": key})
    missing = [c for c in CLAUSE_TYPES if c not in instances]
    if missing:
        problems.append(f"{len(missing)} clause types not answered: {', '.join(missing[:5])}")
    return list(instances.values()), problems


_FIELDS = frozenset(ExtractionRecorded.model_fields)
_setattr = object.__setattr__


def _recorded(values: dict[str, Any]) -> ExtractionRecorded:
    """An instance from values that are valid by construction, without pydantic's per-field work (what
    `model_construct` does, minus its generality): 41 of these per contract are on the audit's hot path."""
    instance = ExtractionRecorded.__new__(ExtractionRecorded)
    _setattr(instance, "__dict__", values)
    _setattr(instance, "__pydantic_fields_set__", set(_FIELDS))
    _setattr(instance, "__pydantic_extra__", None)
    _setattr(instance, "__pydantic_private__", None)
    return instance


def _check_partition(model: str, run: int, corpus_id: str) -> None:
    """What every instance of the partition shares, validated once (the instances are built unvalidated)."""
    ExtractionRecorded(model=model, run=run, contract_id="-", clause_type=CLAUSE_TYPES[0], present=False,
                       corpus_id=corpus_id, request_key="-")


@dataclass(frozen=True)
class _Partition:
    """What every contract of a partition shares, resolved once."""

    spec: ModelSpec
    run: int
    corpus_id: str
    params: dict[str, Any]
    first_message: list[Message] = field(default_factory=list)  # the instructions, shared by every request


def extraction_request(part: _Partition, contract: Contract) -> ModelRequest:
    messages = extraction_messages(contract.text, CLAUSE_TYPES)
    # The instructions are the same for every contract: one Message object, so its JSON text (which the
    # request key and the body reuse) is escaped once per partition.
    first = part.first_message
    if first and first[0] == messages[0]:
        messages = (first[0], *messages[1:])
    elif not first:
        first.append(messages[0])
    return ModelRequest(
        provider=part.spec.provider, model_id=part.spec.model_id, prompt_version=EXTRACT_PROMPT_VERSION,
        run=part.run, params=part.params, messages=messages,
        task=ExtractTask(contract_id=contract.contract_id, contract_text=contract.text, clause_types=CLAUSE_TYPES))


def contract_done(writer: StreamWriter, model: str, run: int, contract_id: str) -> bool:
    return all(writer.has(instance_key(model, run, contract_id, c)) for c in CLAUSE_TYPES)


async def extract_partition(log: EventLog, spec: ModelSpec, run: int, corpus_id: str,
                            contracts: Sequence[Contract], model: ChatModel, *, concurrency: int = 4,
                            progress: Progress | None = None) -> PartitionSummary:
    stream = extraction_stream(spec.name, run)
    summary = PartitionSummary(model=spec.name, run=run)
    _check_partition(spec.name, run, corpus_id)
    cached = recorded_calls(log, stream)
    part = _Partition(spec=spec, run=run, corpus_id=corpus_id, params=model.request_params())
    done = 0
    durable = spec.provider != "offline"
    writing = (log.writer(stream, background=True, flush_units=COMMIT_CONTRACTS, flush_seconds=COMMIT_SECONDS)
               if durable else
               log.writer(stream, background=True, flush_every=OFFLINE_COMMIT_EVENTS,
                          flush_seconds=OFFLINE_COMMIT_SECONDS))
    with writing as writer:
        ids = [c.contract_id for c in contracts]
        writer.append(EventType.AUDIT_SCOPE, f"{spec.name}/{run}", scope_key(corpus_id, ids),
                      AuditScope(model=spec.name, run=run, corpus_id=corpus_id, contract_ids=ids))
        semaphore = asyncio.Semaphore(max(1, concurrency))

        async def one(contract: Contract) -> None:
            nonlocal done
            async with semaphore:
                if durable:  # no new call while too many completed ones await their commit
                    await writer.room(MAX_UNCOMMITTED)
                await _extract_contract(writer, part, contract, model, cached, summary)
                writer.end_unit()
            done += 1
            if progress:
                progress(summary.tick(done, len(contracts)))

        try:
            await asyncio.gather(*(one(c) for c in contracts))
        finally:
            await close_model(model)
    summary.contracts = len(contracts)
    # A provider cache that could not be created is not a failure (calls carry the instructions) but costs more.
    summary.cache_errors = list(getattr(model, "cache_errors", []))
    return summary


async def _extract_contract(writer: StreamWriter, part: _Partition, contract: Contract, model: ChatModel,
                            cached: dict[str, ModelCall], summary: PartitionSummary) -> None:
    spec, run = part.spec, part.run
    if contract_done(writer, spec.name, run, contract.contract_id):
        summary.skipped_contracts += 1
        return
    request = extraction_request(part, contract)
    key = request.key()
    record = cached.get(key)
    if record is None:
        response = await safe_complete(model, request)
        summary.count(response.usage)
        record = ModelCall(**call_fields(request, key, response, contract.contract_id, spec.name))
        if not record_call(writer, spec, run, contract, key, record, summary):
            return
        # A model that says so has validated its answer against the task's schema (an LLM adapter parses
        # strictly, an offline model builds it from the schema); anything else, and a recorded answer, is
        # validated here.
        record_instances(writer, part, contract, key, record, summary,
                         validated=getattr(model, "validates_output", False) is True)
        return
    summary.reused_calls += 1
    record_instances(writer, part, contract, key, record, summary)


def record_call(writer: StreamWriter, spec: ModelSpec, run: int, contract: Contract, key: str, record: ModelCall,
                summary: PartitionSummary) -> bool:
    """Record a call's outcome; True when it succeeded (its content is to be parsed)."""
    if record.error is None and record.finish_reason == "stop":
        writer.append(EventType.MODEL_CALL, contract.contract_id, f"call:{key}", record)
        return True
    writer.append(EventType.MODEL_CALL_FAILED, contract.contract_id, f"call_failed:{key}:{uuid.uuid4().hex}", record)
    _fail(writer, spec, run, contract, "call", record.error or f"finish reason {record.finish_reason}", summary)
    return False


def record_instances(writer: StreamWriter, part: _Partition, contract: Contract, key: str, record: ModelCall,
                     summary: PartitionSummary, validated: bool = False) -> None:
    """Parse a call's content into instance events; `validated` when the provider has just validated it."""
    spec, run = part.spec, part.run
    try:
        instances, problems = _parse(record.content, spec.name, run, contract.contract_id, part.corpus_id, key,
                                     validated)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        _fail(writer, spec, run, contract, "parse", f"unparseable output at {where or 'top'}: {first['msg']}", summary)
        return
    cid, append = contract.contract_id, writer.append
    key_prefix = instance_key(spec.name, run, cid, "")  # the instance key is this prefix and the clause type
    for inst in instances:
        clause = inst.clause_type
        summary.instances += append(EventType.EXTRACTION_RECORDED, f"{cid}/{clause}", key_prefix + clause, inst)
    if problems:
        writer.append(EventType.EXTRACTION_INCOMPLETE, contract.contract_id, f"incomplete:{key}", ExtractionIncomplete(
            model=spec.name, run=run, contract_id=contract.contract_id, problems=problems))


def _fail(writer: StreamWriter, spec: ModelSpec, run: int, contract: Contract, stage: str, reason: str,
          summary: PartitionSummary) -> None:
    summary.failures.append((contract.contract_id, reason))
    key = f"failed:{contract.contract_id}:{uuid.uuid4().hex}"
    writer.append(EventType.EXTRACTION_FAILED, contract.contract_id, key, ExtractionFailed(
        model=spec.name, run=run, contract_id=contract.contract_id, stage=stage, reason=reason[:2000]))
