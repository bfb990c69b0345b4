"""One async protocol for every model the platform calls: LLM providers and offline algorithms alike.

A `ModelRequest` carries both the rendered chat messages (what an LLM reads) and the structured task
they were rendered from (what an offline algorithm reads). Either way the answer is a `ModelResponse`
whose `content` must validate against the task's Pydantic output schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from json.encoder import encode_basestring as json_string  # json.dumps's escaping with ensure_ascii off
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SerializeAsAny

from lhl_platform.domain.models import Usage as Usage  # providers report usage in the domain's terms
from lhl_platform.events.model import canonical_json, sha256_hex
from lhl_platform.providers.redacted import redact_response


class Message(BaseModel):
    model_config = ConfigDict(frozen=True)
    role: Literal["system", "user", "assistant"]
    content: str
    _json: str | None = PrivateAttr(default=None)

    def json_content(self) -> str:
        """The content as a JSON string literal, exactly as `json.dumps(..., ensure_ascii=False)` spells it.
        A contract is long, so it is escaped once and the text reused by the request key and the body."""
        if self._json is None:
            self._json = json_string(self.content)
        return self._json

    def json_object(self) -> str:
        """`{"role": ..., "content": ...}` as compact JSON, the shape chat APIs take."""
        return f'{{"role":{json_string(self.role)},"content":{self.json_content()}}}'


class Task(BaseModel):
    """What a request asks for, in structured form. Each kind of task names the Pydantic schema its answer
    must validate against; each stage of each suite defines its own kinds without touching the providers."""

    model_config = ConfigDict(frozen=True)
    kind: str
    output: ClassVar[type[BaseModel]]
    # A free-text task is sent without a structured-output schema; its `output` class has one field, `text`,
    # which the reply's text becomes (an empty reply is a failure, never an empty answer).
    free_text: ClassVar[bool] = False

    def subject(self) -> str:
        """What the task is about (a contract, say): part of the request key, so two byte-identical contracts
        are two calls with two records, each paid for and costed."""
        return ""


class ModelRequest(BaseModel):
    model_config = ConfigDict(frozen=True)
    provider: str
    model_id: str
    prompt_version: str
    run: int = Field(ge=0)
    params: dict[str, Any] = Field(default_factory=dict)
    messages: tuple[Message, ...]
    task: SerializeAsAny[Task]
    _key: str | None = PrivateAttr(default=None)

    def key(self) -> str:
        """The request key: provider, model id, parameters, prompt version, messages, run and the task's subject.
        Computed once per request (hashing a long contract is not free) and remembered."""
        if self._key is None:
            # canonical_json of the whole request, spelled out so the messages are escaped only once: "messages"
            # sorts first among the keys, and each message's keys sort as content, role.
            rest = canonical_json({"provider": self.provider, "model_id": self.model_id, "params": self.params,
                                   "prompt_version": self.prompt_version, "run": self.run,
                                   "subject": self.task.subject()})
            messages = ",".join(f'{{"content":{m.json_content()},"role":{json_string(m.role)}}}'
                                for m in self.messages)
            self._key = sha256_hex(f'{{"messages":[{messages}],{rest[1:]}')
        return self._key

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> ModelRequest:
        copy = super().model_copy(update=update, deep=deep)
        copy._key = None  # a copy may differ: its key is computed afresh
        return copy


class FinishReason(StrEnum):
    STOP = "stop"
    LENGTH = "length"
    REFUSAL = "refusal"
    ERROR = "error"


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

    def request_params(self) -> dict[str, Any]:
        """What every request to this model carries and its key covers: an LLM's sampling parameters, an
        offline algorithm's version (so a changed algorithm never replays stale answers)."""
        ...

    async def complete(self, request: ModelRequest) -> ModelResponse: ...


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
        return redact_response(await model.complete(request))  # errors and raw text may echo a key
    except Exception as exc:
        return redact_response(ModelResponse(error=f"{type(exc).__name__}: {exc}"[:2000],
                                             finish_reason=FinishReason.ERROR))
