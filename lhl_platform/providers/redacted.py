"""A model's answer with credentials redacted from its free text, before anyone records or prints it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lhl_platform.domain.redaction import redact

if TYPE_CHECKING:
    from lhl_platform.providers.base import ModelResponse


def redact_response(response: ModelResponse) -> ModelResponse:
    """The response with its error and raw text redacted (what a server may echo a key into); the same
    object when there was nothing to redact. The parsed content is left to the event writer's own pass, and so is
    the raw text of an answer that parsed: a call record keeps raw text only when there is no content."""
    error = redact(response.error) if response.error else response.error
    raw_text = response.raw_text if response.content is not None else redact(response.raw_text)
    if error == response.error and raw_text == response.raw_text:
        return response
    return response.model_copy(update={"error": error, "raw_text": raw_text})
