"""A single-call stage through the provider's batch API (`lhl audit --batch`): extraction, judging, any stage.

The requests are the interactive ones, byte for byte (same request keys, same structured-output schemas); only
the transport differs. What happens:

1. Units the stage says are finished are skipped, and requests already recorded as calls (by an interactive
   run or an earlier batch) are answered from the record, exactly as interactively.
2. Requests held by a batch job that was submitted but not yet collected (the run stopped while it was
   pending) are not submitted again: that job is polled instead.
3. The rest are submitted, split into jobs that fit the provider's limits. Each job's id is recorded as a
   `batch.submitted` event and committed the moment the provider returns it.
4. Open jobs are polled, with a growing interval, and each poll reported (`status`), until they end.
5. An ended job's results become the same `model.call` events and stage records an interactive call makes
   (with the job's id, so they are priced at the batch rates), then a `batch.collected` event.
6. Requests the job did not answer (errored, expired, refused, unparseable, missing) were paid for when they
   used tokens, and are recorded as failed calls; each is then retried interactively, with the repair attempt an
   interactive call has. What still fails is recorded by the stage with its reason. (If the run stops before the
   retries, the next run sends them in a follow-up batch.)
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from lhl_platform.calls.budget import SpendLimitReached, active_limit
from lhl_platform.calls.ledger import Answer, worst_cost
from lhl_platform.calls.loop import run_units
from lhl_platform.calls.single import StageRun
from lhl_platform.events.log import EventLog
from lhl_platform.events.payloads import BatchCollected, BatchSubmitted, EventType
from lhl_platform.providers.base import FinishReason, ModelRequest, ModelResponse
from lhl_platform.providers.llm.base import LlmModel
from lhl_platform.providers.llm.batch import WHOLE_BATCH, BatchItem, BatchState
from lhl_platform.providers.llm.schema import output_schema

U = TypeVar("U")
P = TypeVar("P")
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
    if not (log.root / stream).exists():
        return submitted, collected
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


@dataclass
class BatchRun(Generic[U, P]):
    """One partition of a single-call stage sent through the batch API of `run.model` (an LLM adapter)."""

    run: StageRun[U, P]
    log: EventLog
    stream: str
    owner: str  # the model and run the jobs belong to, `<model>/<run>`
    model_name: str
    run_no: int
    status: Status = field(default=lambda text: None)
    poll: tuple[float, float] | None = None
    tick: Callable[[], None] = field(default=lambda: None)
    _worst: dict[str, float] = field(default_factory=dict)  # each request's worst case, under a spending limit

    @property
    def llm(self) -> LlmModel:
        assert isinstance(self.run.model, LlmModel)
        return self.run.model

    async def execute(self, units: Sequence[U], *, concurrency: int) -> None:
        run, stage, writer, llm = self.run, self.run.stage, self.run.writer, self.llm
        run.ledger.price_model(llm)
        limit = active_limit()
        submitted, collected = batches_of(self.log, self.stream)
        wanted: dict[str, tuple[U, ModelRequest]] = {}
        for unit in units:
            if stage.skip(writer, unit):
                self.tick()
                continue
            request = stage.request(unit)
            key = request.key()
            if key in run.ledger.recorded:
                await run.answer(unit)
            elif (refused := llm.too_long(request)) is not None:
                run.settled(unit, run.ledger.settle(request, refused, stage.who(unit), self._never, validated=True))
            else:
                wanted[key] = (unit, request)
                continue
            writer.end_unit()
            self.tick()

        open_jobs = [job for job_id, job in submitted.items() if job_id not in collected]
        held = {key for job in open_jobs for key in job.request_keys}
        if open_jobs:
            self.status(f"resuming: {len(open_jobs)} batch job(s) already submitted hold "
                        f"{len(held & wanted.keys())} of the {len(wanted)} requests to answer; "
                        "polling, not resubmitting")
        fresh = [key for key in wanted if key not in held]
        if limit is not None:  # a batch reserves its whole worst case before it is submitted
            self._worst = {key: worst_cost(llm, run.ledger.pricing, wanted[key][1], batch=True) for key in wanted}
            for key in held & wanted.keys():  # already submitted: it will cost what it costs
                limit.hold(self._worst[key])
            fitting = [key for key in fresh if limit.try_reserve(self._worst[key])]
            if len(fitting) < len(fresh):
                limit.stop(len(fresh) - len(fitting))
                self.status(f"spending limit: {len(fitting)} of {len(fresh)} requests fit its worst case and are "
                            "submitted; the rest are left for a later run")
            fresh = fitting
        entries = {key: llm.batch_entry(wanted[key][1]) for key in fresh}
        for keys in chunks(fresh, entries, llm):
            batch_id = await llm.submit_batch([entries[k] for k in keys])
            job = BatchSubmitted(model=self.model_name, run=self.run_no, provider=llm.provider, model_id=llm.model_id,
                                 batch_id=batch_id, request_keys=keys,
                                 contract_ids=[stage.who(wanted[k][0]).item or stage.who(wanted[k][0]).subject
                                               for k in keys])
            writer.append(EventType.BATCH_SUBMITTED, self.owner, f"batch:{batch_id}", job)
            writer.flush()  # the job's id is on disk before anything else happens
            open_jobs.append(job)
            self.status(f"submitted batch {batch_id} ({len(keys)} requests)")

        retry: list[U] = []
        first, most = self.poll or poll_intervals()
        interval, started = first, time.monotonic()
        while open_jobs:
            states: list[tuple[BatchSubmitted, BatchState]] = []
            for job in list(open_jobs):
                state = await llm.poll_batch(job.batch_id)
                states.append((job, state))
                if state.ended:
                    retry += await self._collect(job, state, wanted)
                    open_jobs.remove(job)
                    self.status(f"batch {job.batch_id} ended ({state.describe()}); results recorded")
            if open_jobs:
                waiting = "; ".join(f"{job.batch_id}: {state.describe()}" for job, state in states if not state.ended)
                self.status(f"waiting for {len(open_jobs)} batch job(s) ({waiting}); "
                            f"{time.monotonic() - started:.0f}s so far, next poll in {interval:.0f}s")
                await asyncio.sleep(interval)
                interval = min(most, interval * 1.5)

        if retry:
            self.status(f"{len(retry)} request(s) the batch did not answer: retrying them interactively")
            semaphore = asyncio.Semaphore(max(1, concurrency))

            async def again(unit: U) -> None:
                async with semaphore:
                    await run.answer(unit)
                    writer.end_unit()
                self.tick()

            await run_units(writer, retry, run.answer, concurrency=concurrency, progress=lambda *_: self.tick())
        if limit is not None and limit.stopped:
            raise SpendLimitReached(limit.line())

    @staticmethod
    def _never(call: Any, validated: bool) -> Any:
        raise AssertionError("a refused request has no answer to parse")

    async def _collect(self, job: BatchSubmitted, state: BatchState,
                       wanted: dict[str, tuple[U, ModelRequest]]) -> list[U]:
        """Record an ended job's results like interactive calls; returns the units it did not answer."""
        run, stage, writer = self.run, self.run.stage, self.run.writer
        results = await self.llm.batch_results(job.batch_id)
        whole = results.get(WHOLE_BATCH)
        answered = 0
        unanswered: list[U] = []
        for key in job.request_keys:
            if key not in wanted:  # recorded by an earlier collection of this job, or no longer in scope
                continue
            unit, request = wanted[key]
            item = results.get(key) or whole or BatchItem(error="the batch returned no result for this request")
            who = stage.who(unit)
            limit, worst = active_limit(), self._worst.get(key, 0.0)
            if item.reply is not None:
                response, _ = LlmModel.settle(item.reply, output_schema(request), free_text=request.task.free_text)
                answer: Answer[P] = run.ledger.settle(request, response, who, functools.partial(stage.parse, unit),
                                                      validated=True, batch_id=job.batch_id)
                if limit is not None:
                    limit.settle(worst, answer.call.cost_usd or 0.0)
                if answer.failed is None:
                    run.settled(unit, answer)
                    writer.end_unit()
                    answered += 1
                    self.tick()
                    continue
                reason = answer.reason or "unusable answer"
                call = answer.call
            else:  # no answer at all: nothing was billed, so no call is recorded
                if limit is not None:
                    limit.release(worst)
                reason = item.error
                call = run.ledger.call_record(request, ModelResponse(error=reason, finish_reason=FinishReason.ERROR),
                                              who, job.batch_id)
            # Why the batch did not answer, kept with the unit; the interactive retry records its own outcome.
            stage.reject(writer, unit, Answer(call, None, reused=False, failed="parse",
                                              reason=f"batch {job.batch_id}: {reason}"), "batch")
            unanswered.append(unit)
        writer.append(EventType.BATCH_COLLECTED, self.owner, f"batch.collected:{job.batch_id}",
                      BatchCollected(model=self.model_name, run=self.run_no, batch_id=job.batch_id,
                                     status=state.status, answered=answered, failed=len(unanswered)))
        writer.flush()
        return unanswered
