"""The evaluation judge on the debated outputs, asked exactly as for the baseline.

Every debated instance that is a true positive after the debate (the final decision is present and the
oracle has the clause) gets the verdict of the evaluation judge (the audit's judge, never the debate's
own Judge): the same prompt, the oracle's spans as truth and the final quotes as the extracted text. When
the baseline's verdict by the same judge was asked with the identical request (same clause, truth and
text: the debate kept the extraction as it was), that verdict is taken over and marked `reused` rather
than asked again; for a deterministic judge this changes nothing, for an LLM judge it saves the call and
keeps sampling noise out of the comparison. Verdicts go to the stream `debate-judge.model=<b>.run=<r>`,
keyed by judge and debated instance (configuration included), so a re-run judges only what is missing.
It is a single-call stage of the call engine, like the audit's judging.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lhl_platform.calls.ledger import Answer, Who
from lhl_platform.calls.partition import run_partition
from lhl_platform.clause.debate import events as ev
from lhl_platform.clause.debate.engine import current_streams, read_outcomes
from lhl_platform.clause.debate.events import (
    DebateEventType,
    DebateOutcome,
    DebateVerdict,
    DebateVerdictFailed,
    InstanceRef,
    system_name,
)
from lhl_platform.clause.judging import COMMIT, verdict_stream
from lhl_platform.domain.models import ModelSpec, OracleRow, Verdict, VerdictLabel
from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.events.payloads import ModelCall
from lhl_platform.judging.events import VerdictEvent, VerdictRecorded
from lhl_platform.judging.prompts import judge_request
from lhl_platform.judging.verdict import verdict_of
from lhl_platform.progress import CallTally, Progress
from lhl_platform.providers.base import ChatModel, ModelRequest


def debate_verdict_stream(backbone: str, run: int) -> str:
    return f"debate-judge.model={backbone}.run={run}"


@dataclass
class DebateJudgeSummary(CallTally):
    backbone: str = ""
    run: int = 0
    judge: str = ""
    outcomes: int = 0
    true_positives: int = 0
    judged: int = 0
    reused_verdicts: int = 0
    already_judged: int = 0
    contradicted: int = 0

    def metadata(self) -> dict[str, Any]:
        return {"judge": self.judge, "debated_instances": self.outcomes, "true_positives": self.true_positives,
                "judged_now": self.judged, "reused_baseline_verdicts": self.reused_verdicts,
                "already_judged": self.already_judged, "contradicted_now": self.contradicted, **self.tally()}


def current_outcomes(log: EventLog, backbone: str, run: int) -> list[DebateOutcome]:
    """The outcomes of the current debate of each configuration kind for one backbone and run."""
    return [o for stream in sorted(current_streams(log, backbone, run).values()) for o in read_outcomes(log, stream)]


def baseline_verdicts(log: EventLog, backbone: str, run: int, judge: str) -> dict[str, VerdictRecorded]:
    """The judge's verdicts on the baseline of this backbone and run, by request key."""
    stream = verdict_stream(backbone, run)
    if not (log.root / stream).exists():
        return {}
    found = (e.data_as(VerdictRecorded) for e in log.read(stream) if e.type == VerdictEvent.RECORDED)
    return {v.request_key: v for v in found if v.judge == judge}


def _ref(outcome: DebateOutcome) -> InstanceRef:
    return InstanceRef(backbone=outcome.backbone, run=outcome.run, config_hash=outcome.config_hash,
                       contract_id=outcome.contract_id, clause_type=outcome.clause_type)


@dataclass
class DebateJudgeStage:
    """The evaluation judge on the debated outputs' true positives (`calls.single`)."""

    judge_spec: ModelSpec
    judge: ChatModel
    truth: dict[tuple[str, str], OracleRow]
    reusable: Mapping[str, VerdictRecorded]
    summary: DebateJudgeSummary
    name: str = "judge"
    policy = COMMIT

    def _common(self, outcome: DebateOutcome) -> dict[str, Any]:
        return {**_ref(outcome).model_dump(), "judge": self.judge_spec.name, "judge_model_id": self.judge_spec.model_id}

    def skip(self, writer: StreamWriter, outcome: DebateOutcome) -> bool:
        ref = _ref(outcome)
        key = ev.verdict_key(self.judge_spec.name, ref)
        if writer.has(key):
            self.summary.already_judged += 1
            return True
        request = self.request(outcome)
        earlier = self.reusable.get(request.key())
        if earlier is None:
            return False
        # The debate kept the extraction as it was: the baseline's verdict on the identical request stands.
        writer.append(DebateEventType.VERDICT, ref.subject, key, DebateVerdict(
            **self._common(outcome), config_name=outcome.config_name, verdict=earlier.verdict,
            mismatch_type=earlier.mismatch_type, reason=earlier.reason, prompt_version=earlier.prompt_version,
            request_key=request.key(), reused=True, params=earlier.params))
        self.summary.reused_verdicts += 1
        self.summary.contradicted += earlier.verdict is VerdictLabel.CONTRADICTED
        return True

    def request(self, outcome: DebateOutcome) -> ModelRequest:
        row = self.truth[(outcome.contract_id, outcome.clause_type)]
        return judge_request(self.judge, row.clause_type, row.spans, outcome.final_text)

    def who(self, outcome: DebateOutcome) -> Who:
        return Who(stage="judge", subject=_ref(outcome).subject, system=system_name(outcome.backbone, outcome.config),
                   item=outcome.contract_id, run=outcome.run)

    def parse(self, outcome: DebateOutcome, call: ModelCall, validated: bool) -> Verdict:
        return verdict_of(call.content)

    def record(self, writer: StreamWriter, outcome: DebateOutcome, call: ModelCall, verdict: Verdict) -> None:
        ref = _ref(outcome)
        writer.append(DebateEventType.VERDICT, ref.subject, ev.verdict_key(self.judge_spec.name, ref), DebateVerdict(
            **self._common(outcome), config_name=outcome.config_name, verdict=verdict.verdict,
            mismatch_type=verdict.mismatch_type, reason=verdict.reason, prompt_version=call.prompt_version,
            request_key=call.request_key, usage=call.usage, latency_s=call.latency_s, params=call.params))
        self.summary.judged += 1
        self.summary.contradicted += verdict.verdict is VerdictLabel.CONTRADICTED

    def reject(self, writer: StreamWriter, outcome: DebateOutcome, answer: Answer[Verdict], stage: str) -> None:
        ref = _ref(outcome)
        self.summary.failures.append((ref.subject, answer.reason))
        writer.append(DebateEventType.VERDICT_FAILED, ref.subject, ev.verdict_failed_key(self.judge_spec.name, ref),
                      DebateVerdictFailed(**self._common(outcome), request_key=answer.call.request_key,
                                          reason=answer.reason[:2000], usage=answer.call.usage,
                                          latency_s=answer.call.latency_s))


async def judge_debate_partition(log: EventLog, backbone: str, run: int, outcomes: Iterable[DebateOutcome],
                                 oracle: Iterable[OracleRow], judge_spec: ModelSpec, judge: ChatModel, *,
                                 baseline: Mapping[str, VerdictRecorded] | None = None, concurrency: int = 8,
                                 progress: Progress | None = None) -> DebateJudgeSummary:
    """Label every true positive of the debated `outcomes` with `judge`; see the module docstring."""
    truth = {(r.contract_id, r.clause_type): r for r in oracle}
    summary = DebateJudgeSummary(backbone=backbone, run=run, judge=judge_spec.name)
    listed = list(outcomes)
    summary.outcomes = len(listed)
    positives = [o for o in listed if o.final_present and (row := truth.get((o.contract_id, o.clause_type)))
                 is not None and row.present]
    summary.true_positives = len(positives)
    stage = DebateJudgeStage(judge_spec=judge_spec, judge=judge, truth=truth, reusable=baseline or {},
                             summary=summary)
    await run_partition(log, debate_verdict_stream(backbone, run), stage, judge, positives, model_name=judge_spec.name,
                        run=run, owner=f"{backbone}/{run}", tally=summary, concurrency=concurrency, progress=progress)
    return summary
