"""One async protocol for every model the platform calls: LLM providers and offline algorithms alike.

A `ModelRequest` carries both the rendered chat messages (what an LLM reads) and the structured task
they were rendered from (what an offline algorithm reads). Either way the answer is a `ModelResponse`
whose `content` must validate against the task's Pydantic output schema.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.events.model import canonical_json, sha256_hex


class Message(BaseModel):
    model_config = ConfigDict(frozen=True)
    role: Literal["system", "user", "assistant"]
    content: str


class ExtractTask(BaseModel):
    """Extract all clause types from one contract."""

    model_config = ConfigDict(frozen=True)
    kind: Literal["extract"] = "extract"
    contract_id: str
    contract_text: str
    clause_types: tuple[str, ...]


class JudgeTask(BaseModel):
    """Compare one extracted clause with the ground-truth spans under the five-criterion rubric."""

    model_config = ConfigDict(frozen=True)
    kind: Literal["judge"] = "judge"
    clause_type: str
    truth: tuple[str, ...]
    extracted: str


class ModelRequest(BaseModel):
    model_config = ConfigDict(frozen=True)
    provider: str
    model_id: str
    prompt_version: str
    run: int = Field(ge=0)
    params: dict[str, Any] = Field(default_factory=dict)
    messages: tuple[Message, ...]
    task: ExtractTask | JudgeTask = Field(discriminator="kind")

    def key(self) -> str:
        """The request key: provider, model id, parameters, prompt version, messages and run."""
        return sha256_hex(canonical_json({
            "provider": self.provider, "model_id": self.model_id, "params": self.params,
            "prompt_version": self.prompt_version, "run": self.run,
            "messages": [m.model_dump() for m in self.messages]}))


# Sampling defaults for LLM calls (temperature 0); part of every LLM request's params, so recorded and keyed.
DEFAULT_SAMPLING: dict[str, Any] = {"temperature": 0.0, "max_output_tokens": 8192}


def request_params(provider: str, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters a request carries: for an LLM, its sampling defaults overridden by the registered ones."""
    return dict(params) if provider == "offline" else {**DEFAULT_SAMPLING, **params}


class FinishReason(StrEnum):
    STOP = "stop"
    LENGTH = "length"
    REFUSAL = "refusal"
    ERROR = "error"


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0


class ModelResponse(BaseModel):
    content: dict[str, Any] | None = None
    raw_text: str = ""
    finish_reason: FinishReason = FinishReason.STOP
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    error: str | None = None


@runtime_checkable
class ChatModel(Protocol):
    """Anything that answers a ModelRequest. Implementations must be safe to call concurrently."""

    provider: str
    model_id: str

    async def complete(self, request: ModelRequest) -> ModelResponse: ...


class ClauseAnswer(BaseModel):
    """Structured output of extraction, per clause type."""

    model_config = ConfigDict(extra="forbid")
    clause_type: str
    present: bool
    quotes: list[str] = Field(default_factory=list)


class ExtractionOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clauses: list[ClauseAnswer]


class JudgeOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    verdict: Literal["supported", "contradicted"]
    mismatch_type: Literal["none", "numeric", "temporal", "obligation", "scope", "missing_condition",
                           "extra_condition", "other"]
    reason: str = ""


def approx_tokens(text: str) -> int:
    """A provider-neutral token estimate (about four characters per token) for offline models."""
    return max(1, len(text) // 4)


async def close_model(model: ChatModel) -> None:
    """Release a model's connections (LLM SDK clients) before its event loop ends."""
    close = getattr(model, "aclose", None)
    if close is not None:
        await close()


async def safe_complete(model: ChatModel, request: ModelRequest) -> ModelResponse:
    """Call a model; an exception becomes an error response, since provider errors are data to record."""
    try:
        return await model.complete(request)
    except Exception as exc:
        return ModelResponse(error=f"{type(exc).__name__}: {exc}"[:2000], finish_reason=FinishReason.ERROR)
