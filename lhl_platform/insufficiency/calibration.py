"""Run offline responders and an offline judge over an item set in-process, without the event log.

The platform runs the suite through the provider layer (request keys, replay, usage). This is the same chain
of tasks in plain function calls, for the tests, the calibration benchmark and the docs: each item's
`AnswerTask` goes to the responder, each answer's judge tasks to the judge, and the two judge outputs become
an `ItemJudgment` exactly as the platform would record it (`task.to_judgment`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel

from lhl_platform.insufficiency.items import ItemSet
from lhl_platform.insufficiency.records import ItemJudgment, ItemResponse
from lhl_platform.insufficiency.task import (
    AnswerOutput,
    ExplanationSafetyOutput,
    IdentificationOutput,
    answer_task,
    judge_tasks,
    to_judgment,
)
from lhl_platform.providers.base import Task

Answer = Callable[[Task], BaseModel]


def respond(items: ItemSet, responder: Answer, *, model: str, run: int = 1) -> list[ItemResponse]:
    out = []
    for item in items.items:
        answer = AnswerOutput.model_validate(responder(answer_task(item)).model_dump())
        out.append(ItemResponse(model=model, run=run, item_id=item.item_id, response=answer.text))
    return out


def judge_responses(items: ItemSet, responses: Sequence[ItemResponse], judge: Answer, *,
                    judge_name: str) -> list[ItemJudgment]:
    by_id = items.by_id()
    judgments = []
    for response in responses:
        identify, explain = judge_tasks(by_id[response.item_id], response)
        identification = IdentificationOutput.model_validate(judge(identify).model_dump())
        explanation = (ExplanationSafetyOutput.model_validate(judge(explain).model_dump())
                       if explain is not None else None)
        judgments.append(to_judgment(judge_name, identify, identification, explain, explanation))
    return judgments
