"""The evaluation judge on the debated outputs, asked exactly as for the baseline.

Every debated instance that is a true positive after the debate (the final decision is present and the
oracle has the clause) gets the verdict of the evaluation judge (the audit's judge, never the debate's
own Judge): the same prompt, the oracle's spans as truth and the final quotes as the extracted text. When
the baseline's verdict by the same judge was asked with the identical request (same clause, truth and
text: the debate kept the extraction as it was), that verdict is taken over and marked `reused` rather
than asked again; for a deterministic judge this changes nothing, for an LLM judge it saves the call and
keeps sampling noise out of the comparison. Verdicts go to the stream `debate-judge.model=<b>.run=<r>`,
keyed by judge and debated instance (configuration included), so a re-run judges only what is missing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lhl_platform.debate import events as ev
from lhl_platform.debate.engine import current_streams, read_outcomes
from lhl_platform.debate.events import DebateOutcome, DebateVerdict, DebateVerdictFailed, InstanceRef
from lhl_platform.domain.models import ModelSpec, OracleRow, VerdictLabel
from lhl_platform.events.log import EventLog
from lhl_platform.events.payloads import EventType, VerdictRecorded
from lhl_platform.judging.engine import parse_verdict, verdict_stream
from lhl_platform.judging.prompts import JUDGE_PROMPT_VERSION, judge_messages
from lhl_platform.progress import CallTally, Progress
from lhl_platform.providers.base import ChatModel, JudgeTask, ModelRequest, close_model, safe_complete


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
    found = (e.data_as(VerdictRecorded) for e in log.read(stream) if e.type == EventType.VERDICT_RECORDED)
    return {v.request_key: v for v in found if v.judge == judge}


async def judge_debate_partition(log: EventLog, backbone: str, run: int, outcomes: Iterable[DebateOutcome],
                                 oracle: Iterable[OracleRow], judge_spec: ModelSpec, judge: ChatModel, *,
                                 baseline: Mapping[str, VerdictRecorded] | None = None, concurrency: int = 8,
                                 progress: Progress | None = None) -> DebateJudgeSummary:
    """Label every true positive of the debated `outcomes` with `judge`; see the module docstring."""
    truth = {(r.contract_id, r.clause_type): r for r in oracle}
    reusable = baseline or {}
    summary = DebateJudgeSummary(backbone=backbone, run=run, judge=judge_spec.name)
    listed = list(outcomes)
    summary.outcomes = len(listed)
    positives = [o for o in listed if o.final_present and (row := truth.get((o.contract_id, o.clause_type)))
                 is not None and row.present]
    summary.true_positives = len(positives)
    semaphore = asyncio.Semaphore(max(1, concurrency))
    done = 0
    flush_seconds = None if judge_spec.provider == "offline" else 1.0
    with log.writer(debate_verdict_stream(backbone, run), flush_every=2000, flush_seconds=flush_seconds) as writer:

        async def one(outcome: DebateOutcome) -> None:
            nonlocal done
            ref = InstanceRef(backbone=outcome.backbone, run=outcome.run, config_hash=outcome.config_hash,
                              contract_id=outcome.contract_id, clause_type=outcome.clause_type)
            key = ev.verdict_key(judge_spec.name, ref)
            if writer.has(key):
                summary.already_judged += 1
            else:
                row = truth[(outcome.contract_id, outcome.clause_type)]
                extracted = outcome.final_text
                request = ModelRequest(provider=judge_spec.provider, model_id=judge_spec.model_id,
                                       prompt_version=JUDGE_PROMPT_VERSION, run=0, params=judge.request_params(),
                                       messages=judge_messages(row.clause_type, row.spans, extracted),
                                       task=JudgeTask(clause_type=row.clause_type, truth=row.spans,
                                                      extracted=extracted))
                request_key = request.key()
                common = {**ref.model_dump(), "judge": judge_spec.name, "judge_model_id": judge_spec.model_id}
                earlier = reusable.get(request_key)
                if earlier is not None:
                    writer.append(EventType.DEBATE_VERDICT, ref.subject, key, DebateVerdict(
                        **common, config_name=outcome.config_name, verdict=earlier.verdict,
                        mismatch_type=earlier.mismatch_type, reason=earlier.reason,
                        prompt_version=earlier.prompt_version, request_key=request_key, reused=True,
                        params=earlier.params))
                    summary.reused_verdicts += 1
                    summary.contradicted += earlier.verdict is VerdictLabel.CONTRADICTED
                else:
                    async with semaphore:
                        response = await safe_complete(judge, request)
                    summary.count(response.usage)
                    verdict, problem = parse_verdict(response)
                    if verdict is None:
                        summary.failures.append((ref.subject, problem))
                        writer.append(EventType.DEBATE_VERDICT_FAILED, ref.subject,
                                      ev.verdict_failed_key(judge_spec.name, ref),
                                      DebateVerdictFailed(**common, request_key=request_key, reason=problem[:2000],
                                                          usage=response.usage,
                                                          latency_s=round(response.latency_s, 6)))
                    else:
                        writer.append(EventType.DEBATE_VERDICT, ref.subject, key, DebateVerdict(
                            **common, config_name=outcome.config_name, verdict=verdict.verdict,
                            mismatch_type=verdict.mismatch_type, reason=verdict.reason,
                            prompt_version=JUDGE_PROMPT_VERSION, request_key=request_key, usage=response.usage,
                            latency_s=round(response.latency_s, 6), params=request.params))
                        summary.judged += 1
                        summary.contradicted += verdict.verdict is VerdictLabel.CONTRADICTED
            done += 1
            if progress is not None:
                progress(summary.tick(done, len(positives)))

        try:
            await asyncio.gather(*(one(o) for o in positives))
        finally:
            await close_model(judge)
    return summary
