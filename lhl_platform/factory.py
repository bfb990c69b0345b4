"""Build the ChatModel behind a registered ModelSpec.

This sits above the providers and the judges: offline algorithms of every kind (extractors, judges)
register a builder here, so neither package needs to know the other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec, OracleRow, Verdict
from lhl_platform.judging import overlap, rubric
from lhl_platform.providers.base import ChatModel, ExtractTask, JudgeOutput, JudgeTask, Task
from lhl_platform.providers.offline import lexical, simulated
from lhl_platform.providers.offline.adapter import OfflineModel

LLM_PROVIDERS = ("openai", "anthropic", "gemini")


class ProviderError(ValueError):
    pass


@dataclass(frozen=True)
class BuildContext:
    """What an offline builder may need beyond the spec: the audit round and (for calibration tools) the oracle."""

    run: int = 1
    oracle: Iterable[OracleRow] = ()


OfflineBuilder = Callable[[str, BuildContext], OfflineModel]


def _expect(task: Task, kind: type[Task], what: str) -> None:
    if not isinstance(task, kind):
        raise ProviderError(f"{what} only answers {kind.__name__} tasks")


def _lexical(model_id: str, ctx: BuildContext) -> OfflineModel:
    def answer(task: Task) -> BaseModel:
        _expect(task, ExtractTask, "the lexical extractor")
        return lexical.extract_clauses(task)  # type: ignore[arg-type]

    return OfflineModel(model_id, lexical.VERSION, answer)


def _simulated(model_id: str, ctx: BuildContext) -> OfflineModel:
    simulator = simulated.SimulatedExtractor(simulated.PROFILES[model_id.split(":", 1)[1]], ctx.oracle, ctx.run)

    def answer(task: Task) -> BaseModel:
        _expect(task, ExtractTask, "a simulated extractor")
        return simulator.extract(task)  # type: ignore[arg-type]

    return OfflineModel(model_id, f"{simulated.VERSION}:{model_id}", answer)


def _offline_judge(judge: Callable[[str, tuple[str, ...], str], Verdict], version: str) -> OfflineBuilder:
    def build(model_id: str, ctx: BuildContext) -> OfflineModel:
        def answer(task: Task) -> BaseModel:
            _expect(task, JudgeTask, f"the {model_id} judge")
            assert isinstance(task, JudgeTask)
            return JudgeOutput.model_validate(judge(task.clause_type, task.truth, task.extracted), from_attributes=True)

        return OfflineModel(model_id, version, answer)

    return build


OFFLINE_EXTRACTORS: dict[str, OfflineBuilder] = {
    "lexical": _lexical, **{f"simulated:{name}": _simulated for name in simulated.PROFILES}}
OFFLINE_JUDGES: dict[str, OfflineBuilder] = {
    "rubric": _offline_judge(rubric.judge, rubric.VERSION), "overlap": _offline_judge(overlap.judge, overlap.VERSION)}


def validate_spec(spec: ModelSpec) -> None:
    if spec.provider == "offline":
        allowed = OFFLINE_JUDGES if spec.role == "judge" else OFFLINE_EXTRACTORS
        if spec.model_id not in allowed:
            raise ProviderError(f"offline {spec.role} {spec.model_id!r} does not exist; choose one of: "
                                + ", ".join(allowed))
    elif spec.provider not in LLM_PROVIDERS:
        raise ProviderError(f"unknown provider {spec.provider!r}; choose offline, " + ", ".join(LLM_PROVIDERS))


def build_model(spec: ModelSpec, *, run: int = 1, oracle: Iterable[OracleRow] = ()) -> ChatModel:
    """The ChatModel behind a spec. Simulated extractors need the corpus oracle (they are calibration tools).
    For an LLM provider this fails at once, before any work, when its API key is not in the environment."""
    validate_spec(spec)
    if spec.provider == "openai":
        from lhl_platform.providers.llm.openai_chat import OpenAIChatModel

        return OpenAIChatModel(spec)
    if spec.provider == "anthropic":
        from lhl_platform.providers.llm.anthropic_messages import AnthropicModel

        return AnthropicModel(spec)
    if spec.provider == "gemini":
        from lhl_platform.providers.llm.gemini import GeminiModel

        return GeminiModel(spec)
    builders = OFFLINE_JUDGES if spec.role == "judge" else OFFLINE_EXTRACTORS
    return builders[spec.model_id](spec.model_id, BuildContext(run=run, oracle=oracle))
