"""A registered model's parameters: one typed record with one set of defaults.

Sampling parameters travel with every request (and so are part of its key); the rest shape how the
platform calls the model (limits, retries, circuit breaker, context window, caching). An unknown key or
an out-of-range value is rejected where the model is registered, naming the key.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# What every request carries and its key covers. A field left at None is not sent and not in the key, so
# adding one here (reasoning_effort) leaves the key of every request that does not set it byte-identical.
SAMPLING_FIELDS = ("temperature", "top_p", "seed", "max_output_tokens", "reasoning_effort")

# How hard a reasoning model thinks before it answers: OpenAI's `reasoning_effort` levels, which the other
# adapters translate into their own terms ("none" switches thinking off where the model allows it).
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high"]

# Thinking budgets in tokens for providers that take a budget rather than a level (Anthropic's extended
# thinking, Gemini 2.5): Anthropic's minimum budget is 1,024 tokens; Gemini 2.5 Flash allows up to 24,576.
THINKING_BUDGET_TOKENS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 24576}


class AuditSettings(BaseModel):
    """How this model is audited when nobody says otherwise: by `lhl audit` without flags, by the recurring
    post-deployment audit and by a backfill launched in the UI. None of it is part of a request key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge: str | None = Field(default=None, description="registered judge; None: the primary judge")
    subset: str | None = Field(default=None, description="stored subset of contracts; None: all contracts")
    contracts: int | None = Field(default=None, ge=1, description="only the first N contracts (by id)")
    cadence_hours: float = Field(default=168.0, gt=0, le=24 * 366,
                                 description="recurring audits: hours between two rounds (monitored models)")
    max_cost_usd: float | None = Field(default=None, gt=0, description="spending limit of one audit round of this "
                                                                        "model (USD; its judge calls included); "
                                                                        "None: no limit unless --max-cost says")


class ModelParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # Sampling: temperature 0 unless the model's registration says otherwise.
    temperature: float = Field(default=0.0, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    seed: int | None = None
    max_output_tokens: int = Field(default=8192, ge=1, le=1_000_000)
    reasoning_effort: ReasoningEffort | None = Field(
        default=None, description="reasoning models: none, minimal, low, medium, high; None: the model's default")

    # Throughput: concurrent calls, requests and tokens per minute, per-call timeout.
    concurrency: int = Field(default=8, ge=1, le=1024)
    rpm: float | None = Field(default=None, gt=0, description="requests per minute")
    tpm: float | None = Field(default=None, gt=0, description="tokens per minute (input + expected output)")
    timeout_s: float = Field(default=120.0, gt=0)

    # Retries (exponential backoff with full jitter, never shorter than Retry-After) and circuit breaker.
    max_retries: int = Field(default=6, ge=0, le=20)
    backoff_base_s: float = Field(default=1.0, gt=0)
    backoff_max_s: float = Field(default=60.0, gt=0)
    breaker_threshold: int = Field(default=5, ge=1, description="consecutive server errors that open the breaker")
    breaker_cooldown_s: float = Field(default=30.0, ge=0)

    # Context and caching.
    context_window: int | None = Field(default=None, ge=1024, description="tokens; None: the provider's default")
    context_cache_ttl_s: float | None = Field(default=None, gt=0, description="Gemini explicit context cache")
    expected_output_tokens: int = Field(default=1500, ge=1, description="for dry-run estimates")

    # Credentials are never parameters: this names the environment variable that holds the key.
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")

    # Recurring post-deployment audits include this model, with these settings (which every launch uses).
    monitor: bool = False
    audit: AuditSettings = Field(default_factory=AuditSettings)

    def sampling(self) -> dict[str, Any]:
        """The sampling parameters an LLM request carries (and its key covers)."""
        return {k: getattr(self, k) for k in SAMPLING_FIELDS if getattr(self, k) is not None}

    def explicit(self) -> dict[str, Any]:
        """Only the values set away from their defaults: what a registration records and prints."""
        return self.model_dump(mode="json", exclude_defaults=True)
