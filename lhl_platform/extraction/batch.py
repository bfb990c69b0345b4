"""Run one extraction partition through the provider's batch API (`lhl audit --batch`).

The partition's requests are the interactive ones, byte for byte (same request keys, same structured-output
schemas); only the transport differs. What happens:

1. Contracts already complete are skipped, and calls already recorded (from an interactive run or an earlier
   batch) are answered from the log, exactly as in an interactive partition.
2. Requests held by a batch job that was submitted but not yet collected (the run stopped while it was
   pending) are not submitted again: that job is polled instead.
3. The rest are submitted, split into jobs that fit the provider's limits. Each job's id is recorded as a
   `batch.submitted` event and committed the moment the provider returns it.
4. Open jobs are polled, with a growing interval, and each poll reported (`status`), until they end.
5. An ended job's results become the same `model.call` events and instances an interactive call records
   (with the job's id, so they are priced at the batch rates), then a `batch.collected` event.
6. Requests the job did not answer (errored, expired, refused, unparseable, missing) were paid for when
   they used tokens, and are recorded as failed calls; each is then retried interactively, with the repair
   attempt an interactive call has. What still fails is an `extraction.failed` event: missing rows with their
   reason. (If the run stops before the retries, the next run sends them in a follow-up batch.)
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from lhl_platform.domain.models import Contract, ModelSpec
from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.events.payloads import (
    AuditScope,
    BatchCollected,
    BatchSubmitted,
    EventType,
    ExtractionFailed,
    ModelCall,
)
from lhl_platform.extraction.engine import (
    COMMIT_CONTRACTS,
    COMMIT_SECONDS,
    PartitionSummary,
    _check_partition,
    _extract_contract,
    _Partition,
    call_fields,
    contract_done,
    extraction_request,
    extraction_stream,
    record_call,
    record_instances,
    recorded_calls,
    scope_key,
)
from lhl_platform.progress import Progress
from lhl_platform.providers.base import ModelRequest, close_model
from lhl_platform.providers.llm.base import LlmModel
from lhl_platform.providers.llm.batch import WHOLE_BATCH, BatchItem, BatchState
from lhl_platform.providers.llm.schema import output_schema

Status = Callable[[str], None]

# Polling: first after POLL_FIRST_S, then each interval 1.5 times the last, up to POLL_MAX_S. Provider batch
# jobs take minutes to hours; `LHL_BATCH_POLL_SECONDS` sets the first interval (tests use a fraction of one).
POLL_FIRST_S = 10.0
POLL_MAX_S = 120.0


def poll_intervals() -> tuple[float, float]:
    first = float(os.environ.get("LHL_BATCH_POLL_SECONDS") or POLL_FIRST_S)
    return first, max(first, min(POLL_MAX_S, first * 12))


def batches_of(log: EventLog, stream: str) -> tuple[dict[str, BatchSubmitted], set[str]]:
    """The stream's batch jobs: every one submitted (by id, in order) and the ids of those collected."""
    submitted: dict[str, BatchSubmitted] = {}
    collected: set[str] = set()
    for event in log.read(stream):
        if event.type == EventType.BATCH_SUBMITTED:
            job = event.data_as(BatchSubmitted)
            submitted[job.batch_id] = job
        elif event.type == EventType.BATCH_COLLECTED:
            collected.add(event.data_as(BatchCollected).batch_id)
    return submitted, collected


def chunks(keys: Sequence[str], entries: dict[str, Any], model: LlmModel) -> Iterator[list[str]]:
    """The keys split into jobs within the provider's request-count and size limits."""
    limits = model.batch_limits
    chunk: list[str] = []
    size = 0
    for key in keys:
        grown = model.entry_size(entries[key])
        if chunk and (len(chunk) >= limits.max_requests or size + grown > limits.max_bytes):
            yield chunk
            chunk, size = [], 0
        chunk.append(key)
        size += grown
    if chunk:
        yield chunk


async def extract_partition_batch(log: EventLog, spec: ModelSpec, run: int, corpus_id: str,
                                  contracts: Sequence[Contract], model: LlmModel, *, concurrency: int = 4,
                                  progress: Progress | None = None, status: Status | None = None,
                                  poll: tuple[float, float] | None = None) -> PartitionSummary:
    stream = extraction_stream(spec.name, run)
    summary = PartitionSummary(model=spec.name, run=run)
    summary.batch = True
    _check_partition(spec.name, run, corpus_id)
    cached = recorded_calls(log, stream)
    submitted, collected = batches_of(log, stream)
    part = _Partition(spec=spec, run=run, corpus_id=corpus_id, params=model.request_params())
    first_poll, max_poll = poll or poll_intervals()
    say = status or (lambda text: None)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(summary.tick(done, len(contracts)))

    with log.writer(stream, background=True, flush_units=COMMIT_CONTRACTS, flush_seconds=COMMIT_SECONDS) as writer:
        ids = [c.contract_id for c in contracts]
        writer.append(EventType.AUDIT_SCOPE, f"{spec.name}/{run}", scope_key(corpus_id, ids),
                      AuditScope(model=spec.name, run=run, corpus_id=corpus_id, contract_ids=ids))
        wanted: dict[str, tuple[Contract, ModelRequest]] = {}
        for contract in contracts:
            if contract_done(writer, spec.name, run, contract.contract_id):
                summary.skipped_contracts += 1
                tick()
                continue
            request = extraction_request(part, contract)
            key = request.key()
            record = cached.get(key)
            if record is not None:
                summary.reused_calls += 1
                record_instances(writer, part, contract, key, record, summary)
            elif (refused := model.too_long(request)) is not None:
                failed = ModelCall(**call_fields(request, key, refused, contract.contract_id, spec.name))
                record_call(writer, spec, run, contract, key, failed, summary)
            else:
                wanted[key] = (contract, request)
                continue
            writer.end_unit()
            tick()

        try:
            open_jobs = [job for job_id, job in submitted.items() if job_id not in collected]
            held = {key for job in open_jobs for key in job.request_keys}
            if open_jobs:
                say(f"resuming: {len(open_jobs)} batch job(s) already submitted hold "
                    f"{len(held & wanted.keys())} of the {len(wanted)} requests to answer; polling, not resubmitting")
            fresh = [key for key in wanted if key not in held]
            entries = {key: model.batch_entry(wanted[key][1]) for key in fresh}
            for keys in chunks(fresh, entries, model):
                batch_id = await model.submit_batch([entries[k] for k in keys])
                job = BatchSubmitted(model=spec.name, run=run, provider=spec.provider, model_id=spec.model_id,
                                     batch_id=batch_id, request_keys=keys,
                                     contract_ids=[wanted[k][0].contract_id for k in keys])
                writer.append(EventType.BATCH_SUBMITTED, f"{spec.name}/{run}", f"batch:{batch_id}", job)
                writer.flush()  # the job's id is on disk before anything else happens
                open_jobs.append(job)
                say(f"submitted batch {batch_id} ({len(keys)} requests)")

            retry: list[tuple[Contract, str]] = []
            interval = first_poll
            started = time.monotonic()
            while open_jobs:
                states: list[tuple[BatchSubmitted, BatchState]] = []
                for job in list(open_jobs):
                    state = await model.poll_batch(job.batch_id)
                    states.append((job, state))
                    if state.ended:
                        retry += await _collect(writer, part, model, job, state, wanted, summary, tick)
                        open_jobs.remove(job)
                        say(f"batch {job.batch_id} ended ({state.describe()}); results recorded")
                if open_jobs:
                    waiting = "; ".join(f"{job.batch_id}: {state.describe()}" for job, state in states
                                        if not state.ended)
                    say(f"waiting for {len(open_jobs)} batch job(s) ({waiting}); "
                        f"{time.monotonic() - started:.0f}s so far, next poll in {interval:.0f}s")
                    await asyncio.sleep(interval)
                    interval = min(max_poll, interval * 1.5)

            if retry:
                say(f"{len(retry)} request(s) the batch did not answer: retrying them interactively")
                semaphore = asyncio.Semaphore(max(1, concurrency))

                async def again(contract: Contract) -> None:
                    async with semaphore:
                        await _extract_contract(writer, part, contract, model, {}, summary)
                        writer.end_unit()
                    tick()

                await asyncio.gather(*(again(contract) for contract, _ in retry))
        finally:
            await close_model(model)
    summary.contracts = len(contracts)
    return summary


async def _collect(writer: StreamWriter, part: _Partition, model: LlmModel, job: BatchSubmitted, state: BatchState,
                   wanted: dict[str, tuple[Contract, ModelRequest]], summary: PartitionSummary,
                   tick: Callable[[], None]) -> list[tuple[Contract, str]]:
    """Record an ended job's results like interactive calls; returns the requests it did not answer."""
    results = await model.batch_results(job.batch_id)
    whole = results.get(WHOLE_BATCH)
    answered = 0
    unanswered: list[tuple[Contract, str]] = []
    for key in job.request_keys:
        if key not in wanted:  # recorded by an earlier collection of this job, or no longer in scope
            continue
        contract, request = wanted[key]
        item = results.get(key) or whole or BatchItem(error="the batch returned no result for this request")
        if item.reply is not None:
            response, _ = LlmModel.settle(item.reply, output_schema(request))
            summary.count(response.usage)
            record = ModelCall(**call_fields(request, key, response, contract.contract_id, part.spec.name),
                               batch_id=job.batch_id)
            if response.error is None:
                writer.append(EventType.MODEL_CALL, contract.contract_id, f"call:{key}", record)
                record_instances(writer, part, contract, key, record, summary, validated=True)
                writer.end_unit()
                answered += 1
                tick()
                continue
            # An answer that cannot be used was still paid for: recorded as a failed call, then retried.
            writer.append(EventType.MODEL_CALL_FAILED, contract.contract_id,
                          f"call_failed:{key}:{job.batch_id}", record)
            reason = response.error or "unusable answer"
        else:
            reason = item.error
        # Why the batch did not answer, kept with the contract; the interactive retry records its own outcome.
        writer.append(EventType.EXTRACTION_FAILED, contract.contract_id,
                      f"failed:{contract.contract_id}:{job.batch_id}", ExtractionFailed(
                          model=part.spec.name, run=part.run, contract_id=contract.contract_id, stage="batch",
                          reason=f"batch {job.batch_id}: {reason}"[:2000]))
        unanswered.append((contract, reason))
    writer.append(EventType.BATCH_COLLECTED, f"{part.spec.name}/{part.run}", f"batch.collected:{job.batch_id}",
                  BatchCollected(model=part.spec.name, run=part.run, batch_id=job.batch_id,
                                 status=state.status, answered=answered, failed=len(unanswered)))
    writer.flush()
    return unanswered
