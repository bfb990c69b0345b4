"""`lhl audit --suite S --dry-run`: the calls a suite's audit would make, counted and priced before any is made
(for a suite that declares no estimate of its own, `AuditHooks.estimate`: the clause suite's is `clause/estimate.py`).

A suite declares the calls an audit of a partition would make (`Suite.plan`: its stages' prompts rendered from
its own items, work already recorded left out); `estimate_suite` counts their input at four characters per
token (as the clause estimate does), and assumes each call's output: the answering model's
`expected_output_tokens`, capped at the request's max output tokens. Costed at the model's rates in force (the
price table's or its registration's), interactive with no cache hits assumed and through the batch API for the
stages that take `--batch`; a model of unknown cost has a null cost, never 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec, Usage
from lhl_platform.home import Home
from lhl_platform.providers.base import approx_tokens
from lhl_platform.suites.contract import Suite


class SuiteEstimate(BaseModel):
    """What a suite's audit of one (model, run) would call at one of its stages, through one registered model (the
    model under test, or the judge)."""

    model: str  # the partition's model (the one audited)
    run: int
    stage: str
    caller: str  # the registered model that answers these calls
    calls: int
    input_tokens: int  # the rendered prompts, at about four characters per token
    output_tokens: int  # assumed: per call, the caller's expected_output_tokens capped at the request's max
    assumed_calls: int  # calls whose prompt holds a stand-in for an answer not made yet
    batched: bool  # the stage sends its calls through the batch API under --batch
    cost_usd: float | None  # interactive, no cache hits assumed; None: the caller's cost is unknown
    batch_cost_usd: float | None  # with --batch (batch rates where `batched`); None: unknown
    known_cost: bool


def estimate_suite(home: Home, suite: Suite, models: Sequence[str], runs: Sequence[int],
                   config: Mapping[str, Mapping[str, Any]]) -> list[SuiteEstimate]:
    """Per (model, run, stage, caller): the calls `suite.plan` says the audit would make with this run config."""
    from lhl_platform.providers.prices import pricing_for

    if suite.plan is None:
        raise LookupError(f"suite {suite.name} declares no estimate of its calls")
    out: list[SuiteEstimate] = []
    for name in models:
        for run in runs:
            groups: dict[tuple[str, str], list[tuple[int, int, bool]]] = {}
            callers: dict[str, ModelSpec] = {}
            for call in suite.plan(home, name, run, config):
                caller = callers.setdefault(call.model.name, call.model)
                cap = call.max_output_tokens or caller.params.max_output_tokens
                groups.setdefault((call.stage, caller.name), []).append(
                    (approx_tokens(call.text), min(caller.params.expected_output_tokens, cap), call.assumed))
            for (stage, caller_name), calls in groups.items():
                pricing = pricing_for(callers[caller_name])
                usage = Usage(input_tokens=sum(c[0] for c in calls), output_tokens=sum(c[1] for c in calls))
                batched = "batch" in suite.stage(stage).config.model_fields
                out.append(SuiteEstimate(
                    model=name, run=run, stage=stage, caller=caller_name, calls=len(calls),
                    input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                    assumed_calls=sum(c[2] for c in calls), batched=batched, cost_usd=pricing.cost(usage),
                    batch_cost_usd=pricing.cost(usage, batch=batched), known_cost=pricing.known))
    return out


def estimate_lines(home: Home, suite: Suite, models: Sequence[str], runs: Sequence[int],
                   config: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """`lhl audit --suite S --dry-run` of a suite with no estimate of its own: its `plan`'s calls per (model, run,
    stage, caller), their tokens and cost, interactive and with --batch, and the assumptions they rest on."""
    rows = estimate_suite(home, suite, models, runs, config)
    out = [f"Dry run of {suite.name}: {len(models)} model(s) x {len(runs)} run(s); nothing is called. Input tokens "
           "are estimates (about 4 characters per token) of the prompts the suite's stages render from its items; "
           "work already in the event log is not counted. Output tokens are an assumption: each answering model's "
           "expected_output_tokens (default 1,500; `--params`), capped at the request's max output tokens. Cost at "
           "each model's rates, interactive with no prompt-cache hits assumed, and with --batch.",
           f"{'model':<20} {'run':>3} {'stage':<26} {'called model':<24} {'calls':>7} {'input tok':>12} "
           f"{'output tok':>11} {'interactive':>12} {'--batch':>10}"]

    def usd(value: float | None) -> str:
        return "unknown" if value is None else f"${value:,.2f}"

    for r in rows:
        out.append(f"{r.model:<20} {r.run:>3} {r.stage:<26} {r.caller:<24} {r.calls:>7,} {r.input_tokens:>12,} "
                   f"{r.output_tokens:>11,} {usd(r.cost_usd):>12} {usd(r.batch_cost_usd):>10}")
    unknown = sorted({r.caller for r in rows if not r.known_cost})
    known = [r for r in rows if r.known_cost]
    out.append(f"total: {sum(r.calls for r in rows):,} calls, {sum(r.input_tokens for r in rows):,} input and "
               f"{sum(r.output_tokens for r in rows):,} output tokens, "
               + (f"about {usd(sum(r.cost_usd or 0.0 for r in rows))} interactive or "
                  f"{usd(sum(r.batch_cost_usd or 0.0 for r in rows))} with --batch" if not unknown else
                  f"cost unknown: {', '.join(unknown)} {'has' if len(unknown) == 1 else 'have'} no rates "
                  f"(`lhl models prices NAME`); the rest about {usd(sum(r.cost_usd or 0.0 for r in known))} "
                  f"interactive or {usd(sum(r.batch_cost_usd or 0.0 for r in known))} with --batch"))
    unbatched = sorted({r.stage for r in rows if not r.batched})
    if unbatched:
        out.append(f"note: {', '.join(unbatched)} {'sends' if len(unbatched) == 1 else 'send'} its calls "
                   "interactively under --batch too (costed at the interactive rates in that column)")
    assumed = sum(r.assumed_calls for r in rows)
    if assumed:
        out.append(f"note: {assumed:,} judge call(s) read answers not made yet; their prompts hold a stand-in of the "
                   "answering model's expected_output_tokens")
    return out
