"""The suite's stages, as plain functions of a `StageContext`, and the judge runs they share with the commands.

- `insufficiency_items` (items): the active item set, or the one a path names, recorded in the home;
- `insufficiency_responses` (solve, per model x run): the model under test answers every item of the set
  (the seed's fixed system prompt, the query as the one user message, free text, max output 32,768 tokens,
  temperature and reasoning effort as registered); a refusal, a truncation or an error is a recorded failure;
- `insufficiency_judgments` (score, per model x run): two judge calls per response (identification; explanation
  and safety, for variants only), strictly validated; the judge is validated on the hand-labelled set first
  (its validation is recorded, so reports can show it and flag a judge that failed or was never validated).

Every call goes through the call engine (`CallLedger`): a `model.call` event with `stage`, `system` (the model
under test) and `item`, replayed instead of repeated on a re-run.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from lhl_platform.calls.ledger import Answer, CallLedger, Unusable, Who, recorded_calls
from lhl_platform.calls.loop import run_units
from lhl_platform.calls.partition import run_partition
from lhl_platform.calls.policy import CommitPolicy, stage_writer
from lhl_platform.domain.models import ModelSpec, Usage
from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.events.payloads import ModelCall
from lhl_platform.factory import build_model
from lhl_platform.home import Home
from lhl_platform.insufficiency.events import (
    InsufficiencyEventType,
    JudgeValidated,
    JudgeValidationCase,
    JudgmentFailed,
    JudgmentRecorded,
    ResponseFailed,
    ResponseImported,
    ResponseRecorded,
    ScopeRecorded,
    ValidationCriterion,
)
from lhl_platform.insufficiency.items import Item, ItemSet, load_items
from lhl_platform.insufficiency.models import CUE_JUDGE, CUE_JUDGE_SPEC
from lhl_platform.insufficiency.prompts import ANSWER_MAX_OUTPUT_TOKENS, EXPLAIN_PROMPT_VERSION, IDENTIFY_PROMPT_VERSION
from lhl_platform.insufficiency.records import ItemResponse
from lhl_platform.insufficiency.store import ensure_item_set, ingest_item_set
from lhl_platform.insufficiency.task import (
    AnswerOutput,
    ExplanationSafetyOutput,
    ExplanationSafetyTask,
    IdentificationOutput,
    IdentificationTask,
    JudgeOutputError,
    answer_task,
    element_verdicts,
    judge_tasks,
    messages_for,
    prompt_version,
    to_judgment,
)
from lhl_platform.insufficiency.validation import (
    VALIDATION_VERSION,
    GatedValidation,
    JudgeValidation,
    Outputs,
    ValidationCase,
    held_out,
    heldout_cases,
    score_validation,
    validation_cases,
    validation_digest,
    validation_tasks,
)
from lhl_platform.progress import CallTally
from lhl_platform.providers.base import ChatModel, ModelRequest, Task, close_model
from lhl_platform.providers.llm.base import LlmModel
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.registry import add_model, get_model
from lhl_platform.suites import kit  # the suite kit: config bases, call stages, checks
from lhl_platform.suites.contract import Markdown, PlannedCall, StageContext, StageResult

RESPONSES_STAGE = "insufficiency-responses"  # the `stage` of the calls, as int_calls reports them
RESPONSE_KIND = "insufficiency.response"  # the prefix of a response's idempotency key (`kit.unit_key`)
IDENTIFY_STAGE = "insufficiency-identify"
EXPLAIN_STAGE = "insufficiency-explain"
VALIDATION_STAGE = "insufficiency-judge-validation"
IMPORTS_STREAM = "insufficiency.imports"
CONCURRENCY = 8
T = TypeVar("T", bound=BaseModel)


def responses_stream(model: str, run: int) -> str:
    return f"insufficiency.responses.model={model}.run={run}"


def judgments_stream(model: str, run: int) -> str:
    return f"insufficiency.judgments.model={model}.run={run}"


def validation_stream(judge: str) -> str:
    return f"insufficiency.validation.judge={judge}"


class ItemsConfig(kit.StageConfig):
    path: str | None = Field(default=None, description="an item file in the published format to ingest; default: "
                                                       "keep the active item set, or the shipped self-built set")


class ResponsesConfig(kit.ItemSetConfig, kit.BatchConfig):
    pass


class JudgmentsConfig(kit.ItemSetConfig):
    judge: str | None = Field(default=None, description=f"a registered judge; default: the offline {CUE_JUDGE}")


def _durable(chat: ChatModel) -> bool:
    return chat.provider != "offline"  # an offline answer costs nothing to repeat


def _request(chat: ChatModel, task: Task, run: int, params: dict[str, Any] | None = None) -> ModelRequest:
    return ModelRequest(provider=chat.provider, model_id=chat.model_id, prompt_version=prompt_version(task),
                        run=run, params=params if params is not None else chat.request_params(),
                        messages=messages_for(task), task=task)


def _validated(cls: type[T], call: ModelCall) -> T:
    try:
        return cls.model_validate(call.content or {})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise Unusable(f"{cls.__name__} at {'.'.join(map(str, first['loc'])) or 'top'}: {first['msg']}") from None


# Items ------------------------------------------------------------------------------------------------

def items_summary(items: ItemSet) -> dict[str, Any]:
    variants = items.variants()
    categories: dict[str, int] = {}
    for v in variants:
        for e in v.gold_elements:
            categories[str(e.category)] = categories.get(str(e.category), 0) + 1
    table = "| category | gold (required) missing elements |\n|---|---|\n" + "\n".join(
        f"| {c} | {n} |" for c, n in sorted(categories.items()))
    return {"item_set_id": items.item_set_id, "name": items.name, "provenance": str(items.provenance),
            "base_items": len(items.bases()), "variants": len(variants),
            "non_required_elements": sum(len(v.non_required) for v in variants),
            "domains": len({i.domain for i in items.items}),
            "jurisdictions": len({i.jurisdiction for i in items.items}),
            "categories": Markdown(table)}


def insufficiency_items(ctx: StageContext) -> StageResult:
    config = kit.config_of(ctx, ItemsConfig)
    if config.path is not None:
        from pathlib import Path

        items = ingest_item_set(ctx.home, load_items(Path(config.path))).item_set
    else:
        items = ensure_item_set(ctx.home)
    return StageResult(metadata=items_summary(items))


# Responses --------------------------------------------------------------------------------------------

_FAILED_AS: dict[str, Literal["refusal", "length"]] = {"refusal": "refusal", "length": "length"}


def judgment_key(judge: str, item_set_id: str, response: ItemResponse) -> str:
    digest = hashlib.sha256(response.response.encode()).hexdigest()[:16]
    return f"insufficiency.judgment:{judge}:{item_set_id}:{response.model}:{response.run}:{response.item_id}:{digest}"


@dataclass
class AnswerStage(kit.ItemSetCalls[Item]):
    """One free-text answer per item of the set (a `SingleCallStage`)."""

    kind = RESPONSE_KIND
    name: str = RESPONSES_STAGE
    policy: CommitPolicy = CommitPolicy(units=8)

    def ids(self, item: Item) -> tuple[str, ...]:
        return (item.item_id,)

    def params(self) -> dict[str, Any]:
        params = self.chat.request_params()
        # The seed's output cap for every model; an offline responder has no token limit to set.
        return params if self.chat.provider == "offline" else {**params, "max_output_tokens": ANSWER_MAX_OUTPUT_TOKENS}

    def request(self, item: Item) -> ModelRequest:
        return _request(self.chat, answer_task(item), self.run, self.params())

    def who(self, item: Item) -> Who:
        return Who(stage=RESPONSES_STAGE, subject=item.item_id, system=self.model, item=item.item_id)

    def parse(self, item: Item, call: ModelCall, validated: bool) -> AnswerOutput:
        answer = _validated(AnswerOutput, call)
        if not answer.text.strip():
            raise Unusable("empty answer")
        return answer

    def record(self, writer: StreamWriter, item: Item, call: ModelCall, parsed: AnswerOutput) -> None:
        writer.append(InsufficiencyEventType.RESPONSE, item.item_id, self.key(item), ResponseRecorded(
            item_set_id=self.item_set, model=self.model, run=self.run, item_id=item.item_id, response=parsed.text,
            request_key=call.request_key, prompt_version=call.prompt_version, params=call.params,
            finish_reason=call.finish_reason, usage=call.usage, latency_s=call.latency_s))

    def reject(self, writer: StreamWriter, item: Item, answer: Answer[AnswerOutput], stage: str) -> None:
        finish = _FAILED_AS.get(answer.call.finish_reason, "error")
        writer.append(InsufficiencyEventType.RESPONSE_FAILED, item.item_id,
                      f"insufficiency.response_failed:{answer.call.request_key}:{uuid.uuid4().hex}", ResponseFailed(
                          item_set_id=self.item_set, model=self.model, run=self.run, item_id=item.item_id,
                          request_key=answer.call.request_key, finish_reason=finish,
                          reason=answer.reason[:2000], usage=answer.call.usage))


class ResponsesSummary(BaseModel):
    item_set_id: str
    items: int
    answered: int
    failed: int
    calls: int
    reused_calls: int
    failures: list[tuple[str, str]]


def run_responses(home: Home, model: str, run: int, items: ItemSet, *, batch: bool = False,
                  status: Callable[[str], None] | None = None) -> ResponsesSummary:
    """Every item answered once by the model (through the provider's batch API with `batch`)."""
    spec = get_model(home, model)
    chat = build_model(spec, run=run, home=home)
    stream = responses_stream(model, run)
    stage = AnswerStage(model, run, chat, items.item_set_id)
    tally = CallTally()

    def opening(writer: StreamWriter) -> None:  # the cells this partition is expected to answer
        writer.append(InsufficiencyEventType.SCOPE, f"{model}/{run}",
                      f"insufficiency.scope:{items.item_set_id}:{model}:{run}", ScopeRecorded(
                          item_set_id=items.item_set_id, model=model, run=run,
                          items=[i.item_id for i in items.items], source="stage"))

    async def go() -> int:
        ledger = await run_partition(home.events, stream, stage, chat, list(items.items), model_name=model, run=run,
                                     owner=f"{model}/{run}", tally=tally, concurrency=spec.params.concurrency,
                                     batch=batch and isinstance(chat, LlmModel), status=status, opening=opening)
        return ledger.reused.calls

    reused = asyncio.run(go())
    answered, failed = _response_outcomes(home, stream, items.item_set_id)
    return ResponsesSummary(item_set_id=items.item_set_id, items=len(items.items), answered=len(answered),
                            failed=len(failed - set(answered)), calls=tally.calls, reused_calls=reused,
                            failures=sorted(f for f in _failure_reasons(home, stream) if f[0] not in answered))


def _response_outcomes(home: Home, stream: str, item_set_id: str) -> tuple[dict[str, str], set[str]]:
    answered: dict[str, str] = {}
    failed: set[str] = set()
    for event in home.events.read(stream):
        if event.type == InsufficiencyEventType.RESPONSE:
            r = event.data_as(ResponseRecorded)
            if r.item_set_id == item_set_id:
                answered[r.item_id] = r.response
        elif event.type == InsufficiencyEventType.RESPONSE_FAILED:
            f = event.data_as(ResponseFailed)
            if f.item_set_id == item_set_id:
                failed.add(f.item_id)
    return answered, failed


def _failure_reasons(home: Home, stream: str) -> set[tuple[str, str]]:
    failed = (e.data_as(ResponseFailed) for e in home.events.read(stream)
              if e.type == InsufficiencyEventType.RESPONSE_FAILED)
    return {(f.item_id, f"{f.finish_reason}: {f.reason}"[:300]) for f in failed}


def insufficiency_responses(ctx: StageContext) -> StageResult:
    config = kit.config_of(ctx, ResponsesConfig)
    model, run = kit.model_run(ctx)
    items = ensure_item_set(ctx.home, config.item_set)
    ctx.log(f"{model} run {run}: answering {len(items.items)} InsufficiencyBench items ({items.name}, "
            f"{items.provenance})")
    summary = run_responses(ctx.home, model, run, items, batch=config.batched(), status=ctx.log)
    check = kit.every_unit_answered(
        "every_item_answered", "every item of the set has a response (a refusal, truncation or error is a recorded "
        "failure)", summary.items, summary.answered, units="items", missing_as="without a response",
        failures=summary.failures,
        metadata={"items": summary.items, "answered": summary.answered, "failed": summary.failed})
    return StageResult(metadata={k: v for k, v in summary.model_dump().items() if k != "failures"},
                       checks=[check], failures=summary.failures[:20])


# Judgments --------------------------------------------------------------------------------------------

def default_judge(home: Home) -> ModelSpec:
    """The suite's default judge, the offline cue judge, registered in the home on first use."""
    add_model(home, CUE_JUDGE_SPEC)
    return get_model(home, CUE_JUDGE)


def resolve_judge(home: Home, name: str | None) -> ModelSpec:
    if name is None or name == CUE_JUDGE:
        return default_judge(home)
    spec = get_model(home, name)
    if spec.role != "judge":
        raise ValueError(f"{name!r} is registered as an {spec.role}, not a judge")
    return spec


def judge_version(chat: ChatModel) -> str:
    """What identifies the judge's behaviour: an offline algorithm's version, or an LLM's id, prompts and params."""
    params = chat.request_params()
    if "algorithm" in params:
        return str(params["algorithm"])
    return (f"{chat.model_id}|{IDENTIFY_PROMPT_VERSION}|{EXPLAIN_PROMPT_VERSION}|"
            f"{json.dumps(params, sort_keys=True, default=str)}")


def parse_identification(call: ModelCall, validated: bool) -> IdentificationOutput:
    return _validated(IdentificationOutput, call)


def explanation_parser(task: ExplanationSafetyTask) -> Callable[[ModelCall, bool], ExplanationSafetyOutput]:
    """The explanation output validated, and checked to judge every gold element once (else Unusable)."""

    def parse(call: ModelCall, validated: bool) -> ExplanationSafetyOutput:
        output = _validated(ExplanationSafetyOutput, call)
        try:
            element_verdicts(task, output)
        except JudgeOutputError as exc:
            raise Unusable(str(exc)) from None
        return output

    return parse


@dataclass
class JudgeCalls:
    """The two judge calls of one response (or one validation case), through one ledger."""

    judge: ModelSpec
    chat: ChatModel
    ledger: CallLedger

    async def identify(self, task: IdentificationTask, who: Who) -> Answer[IdentificationOutput]:
        return await self.ledger.ask(self.chat, _request(self.chat, task, 0), who, parse_identification)

    async def explain(self, task: ExplanationSafetyTask, who: Who) -> Answer[ExplanationSafetyOutput]:
        return await self.ledger.ask(self.chat, _request(self.chat, task, 0), who, explanation_parser(task))


def _usage(*calls: ModelCall | None) -> Usage:
    used = [c.usage for c in calls if c is not None]
    return Usage(input_tokens=sum(u.input_tokens for u in used), output_tokens=sum(u.output_tokens for u in used),
                 cached_tokens=sum(u.cached_tokens for u in used),
                 cache_write_tokens=sum(u.cache_write_tokens for u in used))


def responses_to_judge(home: Home, model: str, run: int, item_set_id: str) -> list[ItemResponse]:
    """The responses of a (model, run) on a set: answered here or imported (the later one where both exist)."""
    found: dict[str, tuple[str, str]] = {}
    streams = [s for s in (responses_stream(model, run), IMPORTS_STREAM) if (home.events.root / s).exists()]
    for stream in streams:
        for event in home.events.read(stream):
            if event.type not in (InsufficiencyEventType.RESPONSE, InsufficiencyEventType.RESPONSE_IMPORTED):
                continue
            r = event.data()
            assert isinstance(r, ResponseRecorded | ResponseImported)
            mine = r.model == model and r.run == run and r.item_set_id == item_set_id
            if mine and (r.item_id not in found or found[r.item_id][0] <= event.time):
                found[r.item_id] = (event.time, r.response)
    return [ItemResponse(model=model, run=run, item_id=i, response=text) for i, (_, text) in sorted(found.items())]


class JudgmentsSummary(BaseModel):
    judge: str
    item_set_id: str
    responses: int
    judged: int
    failed: int
    dropped_identified: int
    calls: int
    reused_calls: int
    validated: bool
    failures: list[tuple[str, str]]


def run_judgments(home: Home, model: str, run: int, items: ItemSet, judge: ModelSpec) -> JudgmentsSummary:
    chat = build_model(judge, run=run, home=home)
    stream = judgments_stream(model, run)
    by_id = items.by_id()
    responses = [r for r in responses_to_judge(home, model, run, items.item_set_id) if r.item_id in by_id]
    version = judge_version(chat)
    tally = CallTally()
    failures: list[tuple[str, str]] = []
    dropped = 0

    def key(response: ItemResponse) -> str:
        return judgment_key(judge.name, items.item_set_id, response)

    async def go() -> int:
        nonlocal dropped
        policy = CommitPolicy(units=8)
        try:
            with stage_writer(home.events, stream, policy, _durable(chat)) as writer:
                calls = JudgeCalls(judge, chat, CallLedger(judge.name, recorded_calls(home.events, stream),
                                                           writer.append, fresh=tally))

                def failed(response: ItemResponse, stage: Literal["identify", "explain"], answer: Answer[Any]) -> None:
                    failures.append((response.item_id, f"{stage}: {answer.reason}"[:300]))
                    writer.append(InsufficiencyEventType.JUDGMENT_FAILED, response.item_id,
                                  f"insufficiency.judgment_failed:{answer.call.request_key}:{uuid.uuid4().hex}",
                                  JudgmentFailed(item_set_id=items.item_set_id, model=model, run=run, judge=judge.name,
                                                 item_id=response.item_id, stage=stage,
                                                 request_key=answer.call.request_key, reason=answer.reason[:2000],
                                                 usage=answer.call.usage))

                async def judge_one(response: ItemResponse) -> None:
                    nonlocal dropped
                    item = by_id[response.item_id]
                    identify, explain = judge_tasks(item, response)
                    who = Who(stage=IDENTIFY_STAGE, subject=identify.subject(), system=model, item=item.item_id,
                              run=run)
                    first = await calls.identify(identify, who)
                    if first.failed is not None or first.output is None:
                        failed(response, "identify", first)
                        return
                    second: Answer[ExplanationSafetyOutput] | None = None
                    if explain is not None:
                        second = await calls.explain(explain, Who(stage=EXPLAIN_STAGE, subject=explain.subject(),
                                                                  system=model, item=item.item_id, run=run))
                        if second.failed is not None or second.output is None:
                            failed(response, "explain", second)
                            return
                    judgment = to_judgment(judge.name, identify, first.output, explain,
                                           second.output if second is not None else None)
                    known = set(item.gold) | set(item.non_required)
                    extra = sum(1 for t in judgment.identified_elements if t not in known)
                    dropped += extra
                    writer.append(InsufficiencyEventType.JUDGMENT, item.item_id, key(response), JudgmentRecorded(
                        **judgment.model_dump(), item_set_id=items.item_set_id, judge_model_id=judge.model_id,
                        judge_version=version, identify_request_key=first.call.request_key,
                        explain_request_key=second.call.request_key if second is not None else None,
                        identify_prompt_version=IDENTIFY_PROMPT_VERSION,
                        explain_prompt_version=EXPLAIN_PROMPT_VERSION if explain is not None else None,
                        dropped_identified=extra, usage=_usage(first.call, second.call if second else None)))

                await run_units(writer, responses, judge_one, skip=lambda r: writer.has(key(r)),
                                concurrency=judge.params.concurrency,
                                window=policy.window if _durable(chat) else None)
                return calls.ledger.reused.calls
        finally:
            await close_model(chat)

    reused = asyncio.run(go())
    judged = {e.data_as(JudgmentRecorded).item_id for e in home.events.read(stream)
              if e.type == InsufficiencyEventType.JUDGMENT and e.data_as(JudgmentRecorded).judge == judge.name
              and e.data_as(JudgmentRecorded).item_set_id == items.item_set_id}
    return JudgmentsSummary(judge=judge.name, item_set_id=items.item_set_id, responses=len(responses),
                            judged=len(judged & {r.item_id for r in responses}), failed=len(failures),
                            dropped_identified=dropped, calls=tally.calls, reused_calls=reused, validated=False,
                            failures=failures)


def insufficiency_judgments(ctx: StageContext) -> StageResult:
    config = kit.config_of(ctx, JudgmentsConfig)
    model, run = kit.model_run(ctx)
    items = ensure_item_set(ctx.home, config.item_set)
    judge = resolve_judge(ctx.home, config.judge)
    validation = validate_insufficiency_judge(ctx.home, judge)
    ctx.log(f"judge {judge.name}: held-out validation {'passed' if validation.passed else 'FAILED'} "
            f"({validation.held_out.result.cases} held-out cases; in-sample {validation.in_sample.cases} cases "
            f"{'passed' if validation.in_sample.passed else 'failed'}, never validating)")
    ctx.log(f"judging {model} run {run} with {judge.name}")
    summary = run_judgments(ctx.home, model, run, items, judge).model_copy(update={"validated": validation.passed})
    checks = [
        kit.every_unit_answered("every_response_judged", "every response has a judgment by the judge",
                            summary.responses, summary.judged, units="responses", answered_as=f"judged by {judge.name}",
                            missing_as="unjudged", failures=summary.failures,
                            metadata={"judge": judge.name, "responses": summary.responses, "judged": summary.judged}),
        validation_outcome(judge.name, validation)]
    return StageResult(metadata={k: v for k, v in summary.model_dump().items() if k != "failures"},
                       checks=checks, failures=summary.failures[:20])


# Judge validation -----------------------------------------------------------------------------------------

def validation_outcome(judge: str, validation: GatedValidation | None) -> CheckOutcome:
    if validation is None:
        return CheckOutcome(name="judge_validated", passed=False, description="the judge passes its held-out set",
                            summary=f"judge {judge} is not validated on the InsufficiencyBench held-out set",
                            metadata={"judge": judge})
    held = validation.held_out.result
    failed = [f"{c.name} {c.agreed} of {c.total}" for c in held.criteria if not c.passed]
    in_sample = (" (it passes the shipped set, which its rules were written from; that does not validate it)"
                 if validation.in_sample.passed and not validation.passed else "")
    return CheckOutcome(
        name="judge_validated", passed=validation.passed, description="the judge passes its held-out set",
        summary=(f"judge {judge} passes the held-out set {validation.held_out.set} ({held.cases} cases)"
                 if validation.passed else
                 f"judge {judge} fails the held-out set {validation.held_out.set}: "
                 f"{', '.join(failed) or 'F2 difference too large'}{in_sample}"),
        metadata={"judge": judge, "gate": validation.gate, "cases": held.cases, "unanswered": held.unanswered,
                  "in_sample_passed": validation.in_sample.passed})


CaseAnswers = tuple[Answer[IdentificationOutput] | None, Answer[ExplanationSafetyOutput] | None]


async def ask_validation_cases(judge: ModelSpec, chat: ChatModel, log: EventLog, stream: str, writer: StreamWriter,
                               tasks: Sequence[tuple[IdentificationTask, ExplanationSafetyTask | None]],
                               policy: CommitPolicy) -> list[CaseAnswers]:
    """The judge's two calls (one for a base query) on every validation case, through one ledger on `stream`
    (recorded calls are replayed): the shipped set and the held-out set are asked alike."""
    calls = JudgeCalls(judge, chat, CallLedger(judge.name, recorded_calls(log, stream), writer.append))
    answers: list[CaseAnswers] = [(None, None)] * len(tasks)

    async def one(index: int) -> None:
        identify, explain = tasks[index]
        first = await calls.identify(identify, Who(stage=VALIDATION_STAGE, subject=identify.subject(),
                                                   system="validation", item=identify.item_id))
        second = None
        if explain is not None:
            second = await calls.explain(explain, Who(stage=VALIDATION_STAGE, subject=explain.subject(),
                                                      system="validation", item=explain.item_id))
        answers[index] = (first, second)

    await run_units(writer, list(range(len(tasks))), one, concurrency=judge.params.concurrency,
                    window=policy.window if _durable(chat) else None)
    return answers


def validation_outputs(answers: Sequence[CaseAnswers]) -> list[Outputs]:
    return [(first.output if first else None, second.output if second else None) for first, second in answers]


def case_error(answers: CaseAnswers) -> str | None:
    """What failed in a case's calls (None when both were answered)."""
    return "; ".join(a.reason for a in answers if a is not None and a.failed) or None


def validate_insufficiency_judge(home: Home, judge: ModelSpec) -> GatedValidation:
    """The judge on the hand-labelled validation set and, apart, on the held-out set, through the call engine
    (recorded calls are replayed, so a judge is asked each case once); each case and the result are recorded (once
    per judge version and pair of sets). The held-out set decides (`GatedValidation.passed`); the shipped set's
    result, which the cue judge's rules were written from, is reported beside it and never validates."""
    cases = validation_cases()
    held = heldout_cases()
    digest = validation_digest(cases)
    chat = build_model(judge, home=home)
    stream = validation_stream(judge.name)
    version = judge_version(chat)
    tag = hashlib.sha256(version.encode()).hexdigest()[:16]

    async def go() -> GatedValidation:
        policy = CommitPolicy(units=8)
        try:
            with stage_writer(home.events, stream, policy, _durable(chat)) as writer:
                def score(chosen: Sequence[ValidationCase], answers: Sequence[CaseAnswers], set_digest: str,
                          suite_version: str) -> JudgeValidation:
                    result = score_validation(chosen, validation_outputs(answers), judge=judge.name,
                                              suite_version=suite_version).model_copy(
                        update={"suite_digest": set_digest})
                    for case, outcome, (first, second) in zip(chosen, result.outcomes, answers, strict=True):
                        writer.append(InsufficiencyEventType.JUDGE_VALIDATION_ITEM, case.case_id,
                                      f"insufficiency.judge_validation_item:{judge.name}:{set_digest}:{tag}:"
                                      f"{case.case_id}", JudgeValidationCase(
                                          judge=judge.name, suite_digest=set_digest, case_id=case.case_id,
                                          identification=first.output.model_dump(mode="json")
                                          if first is not None and first.output is not None else None,
                                          explanation=second.output.model_dump(mode="json")
                                          if second is not None and second.output is not None else None,
                                          as_labelled=outcome.as_labelled, problems=list(outcome.problems),
                                          error=case_error((first, second)),
                                          usage=_usage(first.call if first else None,
                                                       second.call if second else None)))
                    return result

                asked = await ask_validation_cases(judge, chat, home.events, stream, writer,
                                                   validation_tasks((*cases, *held.cases)), policy)
                result = score(cases, asked[:len(cases)], digest, VALIDATION_VERSION)
                held_result = score(held.cases, asked[len(cases):], held.digest, held.header.set)
                gated = GatedValidation(in_sample=result, held_out=held_out(held_result, held))
                writer.append(InsufficiencyEventType.JUDGE_VALIDATED, judge.name,
                              f"insufficiency.judge_validated:{judge.name}:{digest}:{held.digest}:{tag}",
                              JudgeValidated(
                                  judge=judge.name, judge_model_id=judge.model_id, judge_version=version,
                                  suite_version=result.suite_version, suite_digest=digest, cases=result.cases,
                                  unanswered=result.unanswered, passed=gated.passed,
                                  criteria=[ValidationCriterion(**c.model_dump()) for c in result.criteria],
                                  required_failed=list(result.required_failed),
                                  f2_mean_abs_diff=result.f2_mean_abs_diff, gate=gated.gate,
                                  in_sample_passed=result.passed, held_out_set=held.header.set,
                                  held_out_digest=held.digest, held_out_cases=held_result.cases,
                                  held_out_unanswered=held_result.unanswered,
                                  held_out_criteria=[ValidationCriterion(**c.model_dump())
                                                     for c in held_result.criteria],
                                  held_out_f2_mean_abs_diff=held_result.f2_mean_abs_diff))
                return gated
        finally:
            await close_model(chat)

    return asyncio.run(go())


# Estimate ---------------------------------------------------------------------------------------------

def plan_calls(home: Home, model: str, run: int, config: Mapping[str, Mapping[str, Any]]) -> list[PlannedCall]:
    """The calls a (model, run) audit would make (`lhl audit --suite insufficiency --dry-run`), rendered as the
    stages send them: an answer per item not answered yet; the judge's validation set if this judge has not passed
    through it; two judge calls per response (one for a base query) not judged yet, on the recorded response, or on
    a stand-in of the model's `expected_output_tokens` for a response still to come (`assumed`)."""
    from lhl_platform.insufficiency.selfbuilt import self_built_items
    from lhl_platform.insufficiency.store import ingested_sets, load_item_set

    answering = ResponsesConfig.model_validate(dict(config.get("insufficiency_responses", {})))
    judging = JudgmentsConfig.model_validate(dict(config.get("insufficiency_judgments", {})))
    # What the stages would read, without ingesting the shipped set as they do on first use.
    items = (self_built_items() if answering.item_set is None and not ingested_sets(home)
             else load_item_set(home, answering.item_set))
    spec = get_model(home, model)
    # The cue judge as its stage would register it on first use (a dry run writes nothing).
    judge = CUE_JUDGE_SPEC if judging.judge in (None, CUE_JUDGE) else resolve_judge(home, judging.judge)

    def text(task: Task) -> str:
        return "".join(m.content for m in messages_for(task))

    def judged(response: ItemResponse, assumed: bool) -> list[PlannedCall]:
        identify, explain = judge_tasks(by_id[response.item_id], response)
        return [PlannedCall("insufficiency_judgments", judge, text(t), assumed=assumed)
                for t in (identify, explain) if t is not None]

    by_id = items.by_id()
    cap = None if spec.provider == "offline" else ANSWER_MAX_OUTPUT_TOKENS
    answered = home.events.keys(responses_stream(model, run))
    todo = [i for i in items.items if kit.unit_key(RESPONSE_KIND, items.item_set_id, model, run, i.item_id)
            not in answered]
    calls = [PlannedCall("insufficiency_responses", spec, text(answer_task(i)), max_output_tokens=cap) for i in todo]
    calls += plan_validation_calls(home, judge)
    done = home.events.keys(judgments_stream(model, run))
    for response in responses_to_judge(home, model, run, items.item_set_id):
        if response.item_id in by_id and judgment_key(judge.name, items.item_set_id, response) not in done:
            calls += judged(response, assumed=False)
    stand_in = "x" * (4 * min(spec.params.expected_output_tokens, cap or spec.params.max_output_tokens))
    for item in todo:
        calls += judged(ItemResponse(model=model, run=run, item_id=item.item_id, response=stand_in), assumed=True)
    return calls


def plan_validation_calls(home: Home, judge: ModelSpec, stage: str = "insufficiency_judgments") -> list[PlannedCall]:
    """The judge calls of its validation (the shipped set and the held-out set), unless this judge has a recorded
    result on both (then they are replayed): what `lhl judge validate --dry-run` and an audit's estimate count."""
    if _validated_once(home, judge):
        return []
    return [PlannedCall(stage, judge, "".join(m.content for m in messages_for(t)))
            for pair in validation_tasks((*validation_cases(), *heldout_cases().cases)) for t in pair if t is not None]


def _validated_once(home: Home, judge: ModelSpec) -> bool:
    """Whether this judge (its model id) has a recorded result on the current validation set and held-out set:
    their calls are then replayed, not made again."""
    stream = validation_stream(judge.name)
    if stream not in set(home.events.streams()):
        return False
    digest, held = validation_digest(validation_cases()), heldout_cases().digest
    results = (e.data_as(JudgeValidated) for e in home.events.read(stream)
               if e.type == InsufficiencyEventType.JUDGE_VALIDATED)
    return any(r.suite_digest == digest and r.held_out_digest == held and r.judge_model_id == judge.model_id
               for r in results)
