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

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec, Usage
from lhl_platform.home import Home
from lhl_platform.providers.base import approx_tokens
from lhl_platform.suites.contract import PlannedCall, Suite


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
    if suite.plan is None:
        raise LookupError(f"suite {suite.name} declares no estimate of its calls")
    return [row for name in models for run in runs for row in estimate_calls(
        name, run, suite.plan(home, name, run, config),
        batched=lambda stage: "batch" in suite.stage(stage).config.model_fields)]


def estimate_calls(model: str, run: int, planned: Iterable[PlannedCall],
                   batched: Callable[[str], bool] = lambda stage: False) -> list[SuiteEstimate]:
    """Planned calls counted and priced per (stage, caller): input at four characters per token, output the
    caller's expected_output_tokens capped at the request's max; `batched(stage)`: the stage takes --batch."""
    from lhl_platform.providers.prices import pricing_for

    groups: dict[tuple[str, str], list[tuple[int, int, bool]]] = {}
    callers: dict[str, ModelSpec] = {}
    for call in planned:
        caller = callers.setdefault(call.model.name, call.model)
        cap = call.max_output_tokens or caller.params.max_output_tokens
        groups.setdefault((call.stage, caller.name), []).append(
            (approx_tokens(call.text), min(caller.params.expected_output_tokens, cap), call.assumed))
    out: list[SuiteEstimate] = []
    for (stage, caller_name), calls in groups.items():
        pricing = pricing_for(callers[caller_name])
        usage = Usage(input_tokens=sum(c[0] for c in calls), output_tokens=sum(c[1] for c in calls))
        on_batch = batched(stage)
        out.append(SuiteEstimate(
            model=model, run=run, stage=stage, caller=caller_name, calls=len(calls),
            input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
            assumed_calls=sum(c[2] for c in calls), batched=on_batch, cost_usd=pricing.cost(usage),
            batch_cost_usd=pricing.cost(usage, batch=on_batch), known_cost=pricing.known))
    return out


def estimate_lines(home: Home, suite: Suite, models: Sequence[str], runs: Sequence[int],
                   config: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """`lhl audit --suite S --dry-run` of a suite with no estimate of its own: its `plan`'s calls per (model, run,
    stage, caller), their tokens and cost, interactive and with --batch, and the assumptions they rest on."""
    rows = estimate_suite(home, suite, models, runs, config)
    return priced_lines(rows, f"Dry run of {suite.name}: {len(models)} model(s) x {len(runs)} run(s); nothing is "
                              "called. Input tokens are estimates (about 4 characters per token) of the prompts the "
                              "suite's stages render from its items; work already in the event log is not counted.")


def priced_lines(rows: Sequence[SuiteEstimate], title: str, batch: bool = True) -> list[str]:
    """Estimated calls as a dry run prints them: `title`, the assumptions, a row per (model, run, stage, caller),
    the total and its notes; `batch`: the command takes --batch, so its cost through the batch API is shown too."""
    out = [f"{title} Output tokens are an assumption: each answering model's expected_output_tokens (default 1,500; "
           "`--params`), capped at the request's max output tokens. Cost at each model's rates, interactive with no "
           f"prompt-cache hits assumed{', and with --batch' if batch else ''}.",
           f"{'model':<20} {'run':>3} {'stage':<26} {'called model':<24} {'calls':>7} {'input tok':>12} "
           f"{'output tok':>11} {'interactive':>12}" + (f" {'--batch':>10}" if batch else "")]

    def usd(value: float | None) -> str:
        return "unknown" if value is None else f"${value:,.2f}"

    def cost(values: Sequence[SuiteEstimate]) -> str:
        interactive = usd(sum(r.cost_usd or 0.0 for r in values))
        return (f"{interactive} interactive or {usd(sum(r.batch_cost_usd or 0.0 for r in values))} with --batch"
                if batch else interactive)

    for r in rows:
        out.append(f"{r.model:<20} {r.run:>3} {r.stage:<26} {r.caller:<24} {r.calls:>7,} {r.input_tokens:>12,} "
                   f"{r.output_tokens:>11,} {usd(r.cost_usd):>12}" + (f" {usd(r.batch_cost_usd):>10}" if batch else ""))
    unknown = sorted({r.caller for r in rows if not r.known_cost})
    known = [r for r in rows if r.known_cost]
    out.append(f"total: {sum(r.calls for r in rows):,} calls, {sum(r.input_tokens for r in rows):,} input and "
               f"{sum(r.output_tokens for r in rows):,} output tokens, "
               + (f"about {cost(rows)}" if not unknown else
                  f"cost unknown: {', '.join(unknown)} {'has' if len(unknown) == 1 else 'have'} no rates "
                  f"(`lhl models prices NAME`); the rest about {cost(known)}"))
    unbatched = sorted({r.stage for r in rows if not r.batched})
    if unbatched and batch:
        out.append(f"note: {', '.join(unbatched)} {'sends' if len(unbatched) == 1 else 'send'} its calls "
                   "interactively under --batch too (costed at the interactive rates in that column)")
    assumed = sum(r.assumed_calls for r in rows)
    if assumed:
        out.append(f"note: {assumed:,} judge call(s) read answers not made yet; their prompts hold a stand-in of the "
                   "answering model's expected_output_tokens")
    return out
