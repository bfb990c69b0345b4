"""What the providers' batch APIs have in common, as the platform uses them.

Audits that can wait (recurring monitoring, backfills) can send a partition's requests through the
provider's batch API, which answers within hours at about half the price: the OpenAI Batch API (a JSONL
file of chat-completion requests and a batch over it), Anthropic Message Batches, and Gemini batch mode
(inline requests). Each request is the same body an interactive call sends, structured-output schema
included, and carries its request key as the provider's per-request id, so every result is matched to
its request and recorded exactly as an interactive call would be.

A provider adapter (`LlmModel`) builds entries (`batch_entry`), creates a job from them (`submit_batch`),
reports its state (`poll_batch`) and, once it has ended, each request's outcome (`batch_results`). The
call engine (`lhl_platform.calls.batch`) does the rest for any single-call stage: chunks, events, resuming,
retries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lhl_platform.domain.redaction import redact

if TYPE_CHECKING:
    from lhl_platform.providers.llm.base import Reply


# The key under which `batch_results` reports a job that ended without answering any request (it failed
# validation, or expired or was cancelled before any answer): every request of the job failed for that reason.
WHOLE_BATCH = "*"


class BatchError(RuntimeError):
    """A batch API operation that could not be done (after the model's retries)."""


@dataclass(frozen=True)
class BatchLimits:
    """How much one batch job may hold (the provider's documented limits, with room to spare)."""

    max_requests: int = 50_000
    max_bytes: int = 180 * 2**20


@dataclass(frozen=True)
class BatchState:
    """A batch job as the provider describes it: its own status word, whether it has ended, and the counts
    it reports (None where the provider does not report them)."""

    status: str
    ended: bool
    total: int | None = None
    done: int | None = None
    failed: int | None = None

    def describe(self) -> str:
        counts = f", {self.done}/{self.total} answered" if self.done is not None and self.total else ""
        failed = f", {self.failed} failed" if self.failed else ""
        return f"{self.status}{counts}{failed}"


@dataclass(frozen=True)
class BatchItem:
    """One request's outcome in an ended batch: the provider's reply, or why there is none."""

    reply: Reply | None = None
    error: str = ""

    def __post_init__(self) -> None:
        # The provider's own words about a request (a server may echo the key): redacted where they enter.
        object.__setattr__(self, "error", redact(self.error))
