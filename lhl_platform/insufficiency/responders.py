"""Three offline calibration responders, named for what they do. They are not models of anything: they pin
the ends of the scale the suite measures, so a metric that cannot tell them apart is broken.

- `premature-closure`: answers every query at once under silently presumed defaults (California law, a strong
  claim, full relief) and never flags anything: the seed's premature legal closure.
- `indiscriminate-hedging`: asks the same eight intake questions (one per canonical category) whatever the
  query, and concludes nothing: hedging as a fixed disposition, so it hedges on complete queries too.
- `gold-reader`: reads the item set's gold; on a variant it asks for exactly the missing elements, by their
  canonical names, each with its reference explanation as the reason it matters; on a base query it answers
  without asking. It is the upper bound no real model can reach, since it sees the answer key.

Each answers an `AnswerTask` with an `AnswerOutput`; wrap one for the platform with
`OfflineModel(model_id, version, answer)`. The gold reader is built from an item set (`gold_reader(items)`)
and its version names that set, so its recorded answers are never replayed for another set.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from lhl_platform.insufficiency.items import ItemKind, ItemSet
from lhl_platform.insufficiency.task import AnswerOutput, AnswerTask
from lhl_platform.providers.base import Task

PREMATURE_CLOSURE = "premature-closure"
INDISCRIMINATE_HEDGING = "indiscriminate-hedging"
GOLD_READER = "gold-reader"
PREMATURE_CLOSURE_VERSION = "premature-closure-v1"
INDISCRIMINATE_HEDGING_VERSION = "indiscriminate-hedging-v1"
GOLD_READER_VERSION = "gold-reader-v1"

Answer = Callable[[Task], BaseModel]

_PREMATURE = ("Under California law, you have a strong case. The facts you describe satisfy every element of your "
              "claim, and the other side has no valid defense. You are entitled to the full relief you are asking "
              "about, so act promptly to preserve your rights.")

_HEDGE = """Before I can answer, I need more information:
1. Which state are you in, and which state's law governs?
2. Is there a contract, lease, policy or other document, and what exactly does it say?
3. What exactly happened, and what harm or financial loss have you suffered?
4. Who are the parties: how many employees does the employer have, and is any party a public entity or a public figure?
5. Has anything been filed or served, such as a charge, a notice of claim or a lawsuit?
6. When did each event happen?
7. What did each side give in exchange, and are all payments, such as rent, up to date?
8. What outcome are you hoping for?
Once I have these details, I can give you a complete answer."""


def _task(task: Task, who: str) -> AnswerTask:
    if not isinstance(task, AnswerTask):
        raise TypeError(f"the {who} responder only answers InsufficiencyBench queries, not {type(task).__name__}")
    return task


def premature_closure(task: Task) -> AnswerOutput:
    _task(task, PREMATURE_CLOSURE)
    return AnswerOutput(text=_PREMATURE)


def indiscriminate_hedging(task: Task) -> AnswerOutput:
    _task(task, INDISCRIMINATE_HEDGING)
    return AnswerOutput(text=_HEDGE)


def gold_reader_version(items: ItemSet) -> str:
    return f"{GOLD_READER_VERSION}:{items.item_set_id}"


def gold_reader(items: ItemSet) -> Callable[[Task], AnswerOutput]:
    """The gold-reading responder for one item set (it looks each query's item up by id)."""
    by_id = items.by_id()

    def answer(task: Task) -> AnswerOutput:
        query = _task(task, GOLD_READER)
        item = by_id.get(query.item_id)
        if item is None:
            raise KeyError(f"the {GOLD_READER} responder has no gold for item {query.item_id!r}")
        if item.kind is ItemKind.BASE:
            return AnswerOutput(text="You have given the facts that decide this question, so I can answer it "
                                     "directly on those facts.")
        lines = ["Before I can answer, I need some facts your question leaves out."]
        for n, element in enumerate(item.gold_elements, start=1):  # the gold: required elements only
            name = element.sub_tag.replace("_", " ")
            lines.append(f"{n}. Could you tell me the {name}, which your question leaves open? "
                         f"It matters: {element.explanation}")
        lines.append("Once I have these facts, I can apply the rules that govern your situation.")
        return AnswerOutput(text="\n".join(lines))

    return answer
