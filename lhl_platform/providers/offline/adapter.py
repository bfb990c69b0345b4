"""Adapts a deterministic offline algorithm to the ChatModel protocol."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from lhl_platform.providers.base import ModelRequest, ModelResponse, Task, Usage, approx_tokens

Answer = Callable[[Task], BaseModel]


class OfflineModel:
    """An offline algorithm behind the ChatModel protocol; its version is part of every request key."""

    provider = "offline"
    validates_output = True  # the content is dumped from an instance of the task's output schema

    def __init__(self, model_id: str, version: str, answer: Answer) -> None:
        self.model_id = model_id
        self.version = version
        self._answer = answer

    def request_params(self) -> dict[str, Any]:
        return {"algorithm": self.version}

    async def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.perf_counter()
        output = self._answer(request.task)
        if not isinstance(output, request.task.output):  # keep the promise of `validates_output`
            output = request.task.output.model_validate(output.model_dump())
        content = output.model_dump(mode="json")
        raw = json.dumps(content)
        prompt = "".join(m.content for m in request.messages)
        return ModelResponse(content=content, raw_text=raw, latency_s=time.perf_counter() - started,
                             usage=Usage(input_tokens=approx_tokens(prompt), output_tokens=approx_tokens(raw)))
