"""Build the ChatModel for a registered ModelSpec."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable

from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec, OracleRow
from lhl_platform.providers.base import (
    ChatModel,
    ExtractTask,
    JudgeOutput,
    JudgeTask,
    ModelRequest,
    ModelResponse,
    Usage,
    approx_tokens,
)

OFFLINE_EXTRACTORS = ("lexical", "simulated:inventor", "simulated:omitter", "simulated:balanced")
OFFLINE_JUDGES = ("rubric",)
LLM_PROVIDERS = ("openai", "anthropic", "gemini")


class ProviderError(ValueError):
    pass


def validate_spec(spec: ModelSpec) -> None:
    if spec.provider == "offline":
        allowed = OFFLINE_JUDGES if spec.role == "judge" else OFFLINE_EXTRACTORS
        if spec.model_id not in allowed:
            raise ProviderError(f"offline {spec.role} {spec.model_id!r} does not exist; choose one of: "
                                + ", ".join(allowed))
    elif spec.provider not in LLM_PROVIDERS:
        raise ProviderError(f"unknown provider {spec.provider!r}; choose offline, " + ", ".join(LLM_PROVIDERS))


class OfflineModel:
    """Adapts a deterministic offline algorithm to the ChatModel protocol."""

    provider = "offline"

    def __init__(self, model_id: str, answer: Callable[[ExtractTask | JudgeTask], BaseModel]) -> None:
        self.model_id = model_id
        self._answer = answer

    async def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.perf_counter()
        output = self._answer(request.task)
        content = output.model_dump(mode="json")
        raw = json.dumps(content)
        prompt = "".join(m.content for m in request.messages)
        return ModelResponse(content=content, raw_text=raw, latency_s=time.perf_counter() - started,
                             usage=Usage(input_tokens=approx_tokens(prompt), output_tokens=approx_tokens(raw)))


def _rubric_answer(task: ExtractTask | JudgeTask) -> BaseModel:
    from lhl_platform.judging.rubric import judge

    if not isinstance(task, JudgeTask):
        raise ProviderError("the rubric judge only answers judge tasks")
    verdict = judge(task.clause_type, task.truth, task.extracted)
    return JudgeOutput.model_validate({"verdict": verdict.verdict.value, "mismatch_type": verdict.mismatch_type.value,
                                       "reason": verdict.reason})


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
    if spec.model_id == "rubric":
        return OfflineModel("rubric", _rubric_answer)
    if spec.model_id == "lexical":
        from lhl_platform.providers.offline.lexical import extract_clauses

        def lexical(task: ExtractTask | JudgeTask) -> BaseModel:
            if not isinstance(task, ExtractTask):
                raise ProviderError("the lexical extractor only answers extraction tasks")
            return extract_clauses(task)

        return OfflineModel("lexical", lexical)
    from lhl_platform.providers.offline.simulated import PROFILES, SimulatedExtractor

    simulator = SimulatedExtractor(PROFILES[spec.model_id.split(":", 1)[1]], oracle, run)

    def simulated(task: ExtractTask | JudgeTask) -> BaseModel:
        if not isinstance(task, ExtractTask):
            raise ProviderError("a simulated extractor only answers extraction tasks")
        return simulator.extract(task)

    return OfflineModel(spec.model_id, simulated)
