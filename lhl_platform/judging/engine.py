"""Judge every TP of one (model, run) partition with the evaluation judge; one event per verdict."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from lhl_platform.domain.models import MismatchType, ModelSpec, OracleRow, Verdict, VerdictLabel
from lhl_platform.events.log import EventLog
from lhl_platform.events.payloads import EventType, ExtractionRecorded, VerdictFailed, VerdictRecorded
from lhl_platform.extraction.engine import call_fields, extraction_stream
from lhl_platform.judging.prompts import JUDGE_PROMPT_VERSION, judge_messages
from lhl_platform.progress import CallTally, Progress
from lhl_platform.providers.base import (
    ChatModel,
    JudgeOutput,
    JudgeTask,
    ModelRequest,
    ModelResponse,
    close_model,
    safe_complete,
)

COMMIT_VERDICTS = 64
COMMIT_SECONDS = 0.25
MAX_UNCOMMITTED = 2 * COMMIT_VERDICTS
OFFLINE_COMMIT_EVENTS = 5000
OFFLINE_COMMIT_SECONDS = 10.0


def verdict_stream(model: str, run: int) -> str:
    return f"judge.model={model}.run={run}"


def verdict_key(judge: str, model: str, run: int, contract_id: str, clause_type: str) -> str:
    return f"verdict:{judge}:{model}:{run}:{contract_id}:{clause_type}"


@dataclass
class JudgeSummary(CallTally):
    model: str = ""
    run: int = 0
    judge: str = ""
    true_positives: int = 0
    judged: int = 0
    already_judged: int = 0
    contradicted: int = 0

    def metadata(self) -> dict[str, Any]:
        return {"judge": self.judge, "true_positives": self.true_positives, "judged_now": self.judged,
                "already_judged": self.already_judged, "contradicted_now": self.contradicted, **self.tally()}


def recorded_extractions(log: EventLog, model: str, run: int) -> list[ExtractionRecorded]:
    return [e.data_as(ExtractionRecorded) for e in log.read(extraction_stream(model, run))
            if e.type == EventType.EXTRACTION_RECORDED]


async def judge_partition(log: EventLog, model: str, run: int, oracle: Iterable[OracleRow], judge_spec: ModelSpec,
                          judge: ChatModel, *, concurrency: int = 8, progress: Progress | None = None) -> JudgeSummary:
    truth = {(r.contract_id, r.clause_type): r for r in oracle}
    summary = JudgeSummary(model=model, run=run, judge=judge_spec.name)
    positives = [x for x in recorded_extractions(log, model, run)
                 if x.present and (row := truth.get((x.contract_id, x.clause_type))) is not None
                 and row.present]
    summary.true_positives = len(positives)
    semaphore = asyncio.Semaphore(max(1, concurrency))
    done = 0
    # Group commit on the writer's own thread. An LLM judge's verdicts are committed every COMMIT_VERDICTS
    # verdicts or COMMIT_SECONDS, and no new call starts while MAX_UNCOMMITTED await their commit, so a
    # crash repeats at most that many completed calls; an offline judge commits in large segments.
    durable = judge_spec.provider != "offline"
    writing = (log.writer(verdict_stream(model, run), background=True, flush_units=COMMIT_VERDICTS,
                          flush_seconds=COMMIT_SECONDS) if durable else
               log.writer(verdict_stream(model, run), background=True, flush_every=OFFLINE_COMMIT_EVENTS,
                          flush_seconds=OFFLINE_COMMIT_SECONDS))
    with writing as writer:

        async def one(x: ExtractionRecorded) -> None:
            nonlocal done
            key = verdict_key(judge_spec.name, model, run, x.contract_id, x.clause_type)
            if writer.has(key):
                summary.already_judged += 1
            else:
                row = truth[(x.contract_id, x.clause_type)]
                extracted = x.text
                request = ModelRequest(provider=judge_spec.provider, model_id=judge_spec.model_id,
                                       prompt_version=JUDGE_PROMPT_VERSION, run=0,
                                       params=judge.request_params(),
                                       messages=judge_messages(row.clause_type, row.spans, extracted),
                                       task=JudgeTask(clause_type=row.clause_type, truth=row.spans,
                                                      extracted=extracted))
                async with semaphore:
                    if durable:  # no new call while too many completed ones await their commit
                        await writer.room(MAX_UNCOMMITTED)
                    response = await safe_complete(judge, request)
                summary.count(response.usage)
                subject = f"{x.contract_id}/{x.clause_type}"
                request_key = request.key()
                verdict, problem = parse_verdict(response)
                if verdict is None:
                    summary.failures.append((subject, problem))
                    writer.append(EventType.VERDICT_FAILED, subject, f"verdict_failed:{key}:{uuid.uuid4().hex}",
                                  VerdictFailed(**call_fields(request, request_key, response, subject, model),
                                                judge=judge_spec.name, contract_id=x.contract_id,
                                                clause_type=x.clause_type, reason=problem))
                else:
                    writer.append(EventType.VERDICT_RECORDED, subject, key, VerdictRecorded(
                        model=model, run=run, contract_id=x.contract_id, clause_type=x.clause_type,
                        verdict=verdict.verdict.value, mismatch_type=verdict.mismatch_type.value,
                        reason=verdict.reason, judge=judge_spec.name, judge_model_id=judge_spec.model_id,
                        prompt_version=JUDGE_PROMPT_VERSION, request_key=request_key, usage=response.usage,
                        latency_s=round(response.latency_s, 6), params=request.params))
                    summary.judged += 1
                    summary.contradicted += verdict.verdict is VerdictLabel.CONTRADICTED
                writer.end_unit()
            done += 1
            if progress:
                progress(summary.tick(done, len(positives)))

        try:
            await asyncio.gather(*(one(x) for x in positives))
        finally:
            await close_model(judge)
    return summary


def parse_verdict(response: ModelResponse) -> tuple[Verdict | None, str]:
    if response.error:
        return None, response.error
    try:
        out = JudgeOutput.model_validate(response.content or {})
        return Verdict(verdict=VerdictLabel(out.verdict), mismatch_type=MismatchType(out.mismatch_type),
                       reason=out.reason), ""
    except ValidationError as exc:
        return None, f"unparseable verdict: {exc.errors()[0]['msg']}"
