"""The clause suite's offline models, registered with the model factory: the lexical extractor, the simulated
extractors (calibration tools that read the answer key), and the rubric, aligned and overlap judges."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from lhl_platform.clause.extraction import lexical, simulated
from lhl_platform.clause.extraction.task import ExtractTask
from lhl_platform.domain.models import Verdict, VerdictLabel
from lhl_platform.factory import BuildContext, OfflineBuilder, OfflineEntry, ProviderError
from lhl_platform.judging import aligned, overlap, rubric
from lhl_platform.judging.task import JudgeOutput, JudgeTask, ScoreOutput, ScoreTask
from lhl_platform.providers.base import Task
from lhl_platform.providers.offline.adapter import OfflineModel


def _expect(task: Task, kind: type[Task], what: str) -> None:
    if not isinstance(task, kind):
        raise ProviderError(f"{what} only answers {kind.__name__} tasks")


def _lexical(model_id: str, ctx: BuildContext) -> OfflineModel:
    def answer(task: Task) -> BaseModel:
        _expect(task, ExtractTask, "the lexical extractor")
        assert isinstance(task, ExtractTask)
        return lexical.extract_clauses(task)

    return OfflineModel(model_id, lexical.VERSION, answer)


def _simulated(model_id: str, ctx: BuildContext) -> OfflineModel:
    simulator = simulated.SimulatedExtractor(simulated.PROFILES[model_id.split(":", 1)[1]], ctx.oracle, ctx.run)

    def answer(task: Task) -> BaseModel:
        _expect(task, ExtractTask, "a simulated extractor")
        assert isinstance(task, ExtractTask)
        return simulator.extract(task)

    return OfflineModel(model_id, f"{simulated.VERSION}:{model_id}", answer)


Similarity = Callable[[tuple[str, ...], str], float]
# A binary judge's graded answer: its verdict as 10 or 0, and an abstention halfway (it leans neither way).
_RATING = {VerdictLabel.SUPPORTED: 10.0, VerdictLabel.CONTRADICTED: 0.0, VerdictLabel.UNDETERMINED: 5.0}


def _offline_judge(judge: Callable[[str, tuple[str, ...], str], Verdict], version: str,
                   similarity: Similarity | None = None) -> OfflineBuilder:
    """An offline judge: its verdict on a JudgeTask; on a ScoreTask its similarity scaled to 0-10 when it is a
    metric, else its verdict as 10 (supported) or 0."""

    def build(model_id: str, ctx: BuildContext) -> OfflineModel:
        def answer(task: Task) -> BaseModel:
            if isinstance(task, ScoreTask):
                if similarity is not None:
                    return ScoreOutput(rating=10 * similarity(task.truth, task.text))
                verdict = judge(task.clause_type, task.truth, task.text)
                return ScoreOutput(rating=_RATING[verdict.verdict])
            _expect(task, JudgeTask, f"the {model_id} judge")
            assert isinstance(task, JudgeTask)
            return JudgeOutput.model_validate(judge(task.clause_type, task.truth, task.extracted), from_attributes=True)

        return OfflineModel(model_id, version, answer)

    return build


OFFLINE_MODELS: dict[str, OfflineEntry] = {
    "lexical": OfflineEntry("extractor", _lexical, "weighted cue patterns per clause type (a weak baseline)"),
    **{f"simulated:{name}": OfflineEntry("extractor", _simulated, "calibration tool: reads the answer key and "
                                                                    "applies seeded, typed perturbations", "simulated")
       for name in simulated.PROFILES},
    "rubric": OfflineEntry("judge", _offline_judge(rubric.judge, rubric.VERSION),
                           "compares canonical forms of truth and extraction under the five criteria"),
    "aligned": OfflineEntry("judge", _offline_judge(aligned.judge, aligned.VERSION),
                            "the rubric's reading where the extraction is a local edit of the source; undetermined "
                            "on a rewrite the rubric finds changed"),
    "overlap": OfflineEntry("judge", _offline_judge(overlap.judge, overlap.VERSION, overlap.similarity),
                            "negative control: content-token Jaccard against a threshold"),
}
