"""Judge every TP of one (model, run) partition with the evaluation judge; one event per verdict.

Judging is a single-call stage of the call engine (`lhl_platform.calls`): a TP this judge already labelled is
skipped, a request already recorded as a call is answered from the log, and every judge call is a `model.call`
event (billed to the judge, attributed to the audited model's instance). With `lhl audit --batch` an LLM judge's
requests go through its provider's batch API like extraction's.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from lhl_platform.calls.ledger import Answer, Who
from lhl_platform.calls.partition import run_partition
from lhl_platform.calls.policy import CommitPolicy
from lhl_platform.clause.extraction.engine import extraction_stream
from lhl_platform.clause.extraction.events import ExtractionEvent, ExtractionRecorded
from lhl_platform.domain.models import ModelSpec, OracleRow, Verdict, VerdictLabel
from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.events.payloads import ModelCall
from lhl_platform.judging.events import JudgePass, VerdictEvent, VerdictFailed, VerdictRecorded
from lhl_platform.judging.prompts import judge_request
from lhl_platform.judging.verdict import verdict_of
from lhl_platform.progress import CallTally, Progress
from lhl_platform.providers.base import ChatModel, ModelRequest

STAGE = "judge"
COMMIT = CommitPolicy(units=64)


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
            if e.type == ExtractionEvent.RECORDED]


@dataclass
class JudgeStage:
    """The evaluation judge on one partition's true positives (`calls.single`)."""

    model: str
    run: int
    judge_spec: ModelSpec
    judge: ChatModel
    truth: dict[tuple[str, str], OracleRow]
    summary: JudgeSummary
    name: str = STAGE
    policy: CommitPolicy = COMMIT

    def key(self, x: ExtractionRecorded) -> str:
        return verdict_key(self.judge_spec.name, self.model, self.run, x.contract_id, x.clause_type)

    def skip(self, writer: StreamWriter, x: ExtractionRecorded) -> bool:
        if writer.has(self.key(x)):
            self.summary.already_judged += 1
            return True
        return False

    def request(self, x: ExtractionRecorded) -> ModelRequest:
        row = self.truth[(x.contract_id, x.clause_type)]
        return judge_request(self.judge, row.clause_type, row.spans, x.text)

    def who(self, x: ExtractionRecorded) -> Who:
        return Who(stage=STAGE, subject=f"{x.contract_id}/{x.clause_type}", system=self.model, item=x.contract_id,
                   run=self.run)

    def parse(self, x: ExtractionRecorded, call: ModelCall, validated: bool) -> Verdict:
        return verdict_of(call.content)

    def record(self, writer: StreamWriter, x: ExtractionRecorded, call: ModelCall, verdict: Verdict) -> None:
        writer.append(VerdictEvent.RECORDED, f"{x.contract_id}/{x.clause_type}", self.key(x), VerdictRecorded(
            model=self.model, run=self.run, contract_id=x.contract_id, clause_type=x.clause_type,
            verdict=verdict.verdict, mismatch_type=verdict.mismatch_type, reason=verdict.reason,
            judge=self.judge_spec.name, judge_model_id=self.judge_spec.model_id, prompt_version=call.prompt_version,
            request_key=call.request_key, usage=call.usage, latency_s=call.latency_s, params=call.params))
        self.summary.judged += 1
        self.summary.contradicted += verdict.verdict is VerdictLabel.CONTRADICTED

    def reject(self, writer: StreamWriter, x: ExtractionRecorded, answer: Answer[Verdict], stage: str) -> None:
        subject = f"{x.contract_id}/{x.clause_type}"
        self.summary.failures.append((subject, answer.reason))
        writer.append(VerdictEvent.FAILED, subject, f"verdict_failed:{self.key(x)}:{uuid.uuid4().hex}", VerdictFailed(
            **{**answer.call.model_dump(), "model": self.model}, judge=self.judge_spec.name,
            contract_id=x.contract_id, clause_type=x.clause_type, reason=answer.reason[:2000]))


async def judge_partition(log: EventLog, model: str, run: int, oracle: Iterable[OracleRow], judge_spec: ModelSpec,
                          judge: ChatModel, *, concurrency: int = 8, progress: Progress | None = None,
                          batch: bool = False, status: Callable[[str], None] | None = None,
                          poll: tuple[float, float] | None = None) -> JudgeSummary:
    truth = {(r.contract_id, r.clause_type): r for r in oracle}
    summary = JudgeSummary(model=model, run=run, judge=judge_spec.name, batch=batch)
    positives = [x for x in recorded_extractions(log, model, run)
                 if x.present and (row := truth.get((x.contract_id, x.clause_type))) is not None and row.present]
    summary.true_positives = len(positives)
    stage = JudgeStage(model=model, run=run, judge_spec=judge_spec, judge=judge, truth=truth, summary=summary)
    await run_partition(log, verdict_stream(model, run), stage, judge, positives, model_name=judge_spec.name, run=run,
                        owner=f"{model}/{run}", tally=summary, concurrency=concurrency, batch=batch,
                        progress=progress, status=status, poll=poll)
    record_pass(log, model, run, judge_spec.name, truth)
    return summary


def record_pass(log: EventLog, model: str, run: int, judge: str, truth: dict[tuple[str, str], OracleRow]) -> JudgePass:
    """Record which cells of the partition the judge has labelled now: each contract with a recorded extraction
    all of whose true positives carry its verdict. The same pass twice is one event."""
    stream = verdict_stream(model, run)
    done = log.keys(stream)
    tps: dict[str, list[str]] = {}
    for x in recorded_extractions(log, model, run):
        row = truth.get((x.contract_id, x.clause_type))
        tps.setdefault(x.contract_id, [])
        if x.present and row is not None and row.present:
            tps[x.contract_id].append(verdict_key(judge, model, run, x.contract_id, x.clause_type))
    cells = sorted(c for c, keys in tps.items() if all(k in done for k in keys))
    passed = JudgePass(judge=judge, model=model, run=run, contract_ids=cells,
                       true_positives=sum(len(k) for k in tps.values()),
                       labelled=sum(k in done for keys in tps.values() for k in keys))
    digest = hashlib.sha256("\n".join(cells).encode()).hexdigest()[:16]
    log.append(stream, VerdictEvent.PASS, f"{judge}:{model}:{run}", f"judge_pass:{judge}:{model}:{run}:{digest}",
               passed)
    return passed
