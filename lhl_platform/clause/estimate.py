"""`lhl audit --dry-run`: calls, tokens and cost an audit would spend, before spending anything.

Tokens are estimated at four characters per token; output per extraction call from the model's
`expected_output_tokens` param (default 1,500). The judge labels true positives only, so a contract with recorded
extractions counts the true positives of those extractions that this judge has not labelled yet (the calls it
would really make); a contract not extracted yet can only count its present clauses, as if every one were found
(an upper bound), and the estimate says which basis each count has. Work already recorded in the event log is
not counted: a re-run would not redo it.

The clause suite declares it as its own dry-run estimate (`clause/audit_hooks.py`); the other suites' estimates are
in `lhl_platform.suites.estimate`.

Extraction is costed two ways, side by side. Interactive: every call after a partition's first reads the
instructions (they come first in every request) from the provider's prompt cache, at the cached rate; for
Anthropic the first call writes them to the cache, at the cache-write rate. Batch (`lhl audit --batch`):
every token at the batch rates, with no cache hits assumed (providers cache batch requests only as they can).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from lhl_platform.clause.extraction.engine import extraction_stream, instance_key
from lhl_platform.clause.extraction.events import ExtractionEvent, ExtractionRecorded
from lhl_platform.clause.extraction.prompts import extraction_messages
from lhl_platform.clause.judging import verdict_key, verdict_stream
from lhl_platform.corpus.store import load_corpus
from lhl_platform.domain.models import Contract
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.judging.prompts import judge_messages
from lhl_platform.progress import cost_usd
from lhl_platform.providers.base import approx_tokens
from lhl_platform.registry import get_model

JUDGE_OUTPUT_TOKENS = 80
# Providers that serve a repeated prompt prefix from a cache (OpenAI and Gemini on their own, Anthropic where
# the request marks it), and the shortest prefix they cache.
CACHING_PROVIDERS = ("openai", "anthropic", "gemini")
MIN_CACHED_PREFIX = 1024


class Estimate(BaseModel):
    model: str
    run: int
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float  # interactive, with the instructions read from the prompt cache after the first call
    batch_cost_usd: float  # through the provider's batch API
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    judge_calls: int  # judge_calls_recorded + judge_calls_assumed
    judge_calls_recorded: int = 0  # true positives of recorded extractions this judge has not labelled yet
    judge_calls_assumed: int = 0  # present clauses of contracts not extracted yet: an upper bound
    judge_input_tokens: int
    judge_output_tokens: int
    judge_cost_usd: float
    rejudge: bool = False  # only the judge is called: the partition's recorded extractions are re-judged
    not_extracted: int = 0  # selected contracts a re-judged partition leaves unextracted
    extract_missing_cost_usd: float = 0.0  # what --extract-missing would spend on them (interactive)


def recorded_extractions(home: Home, model: str, run: int) -> list[ExtractionRecorded]:
    """Every extraction the (model, run) partition has recorded."""
    stream = extraction_stream(model, run)
    if stream not in set(home.events.streams()):
        return []
    return [e.data_as(ExtractionRecorded) for e in home.events.read(stream) if e.type == ExtractionEvent.RECORDED]


def recorded_contracts(home: Home, model: str, run: int) -> set[str]:
    """The contracts the (model, run) partition has recorded any extraction of."""
    return {x.contract_id for x in recorded_extractions(home, model, run)}


def estimate_audit(home: Home, models: Sequence[str], runs: Sequence[int], contracts: Sequence[Contract],
                   judge: str = "rubric", *, rejudge: bool = False) -> list[Estimate]:
    """Per (model, run): what the audit would call. With `rejudge`, a partition with recorded extractions makes no
    extraction call and judges its recorded contracts only; what it leaves unextracted is counted and priced."""
    corpus = load_corpus(home)
    spans = {(r.contract_id, r.clause_type): r.spans for r in corpus.oracle if r.present}
    judge_spec = get_model(home, judge)
    prompt_tokens = {c.contract_id: approx_tokens("".join(m.content for m in extraction_messages(c.text, CLAUSE_TYPES)))
                     for c in contracts}
    instructions = approx_tokens(extraction_messages("", CLAUSE_TYPES)[0].content)
    out: list[Estimate] = []
    for name in models:
        spec = get_model(home, name)
        expected_output = spec.params.expected_output_tokens
        for run in runs:
            done = home.events.keys(extraction_stream(name, run))
            judged = home.events.keys(verdict_stream(name, run))
            todo = [c for c in contracts
                    if not all(instance_key(name, run, c.contract_id, t) in done for t in CLAUSE_TYPES)]
            extracted = recorded_extractions(home, name, run)
            answers: dict[tuple[str, str], str | None] = {}  # (contract, clause) -> its recorded text, None: absent
            for x in extracted:
                answers.setdefault((x.contract_id, x.clause_type), x.text if x.present else None)
            extracted_contracts = {x.contract_id for x in extracted}
            recorded = extracted_contracts if rejudge else set()
            skipped: list[Contract] = []
            judged_contracts = list(contracts)
            if recorded:  # re-judging: nothing is extracted; the judge sees the recorded contracts only
                skipped = [c for c in todo if c.contract_id not in recorded]
                todo, judged_contracts = [], [c for c in contracts if c.contract_id in recorded]
            input_tokens = sum(prompt_tokens[c.contract_id] for c in todo)
            output_tokens = expected_output * len(todo)
            caches = spec.provider in CACHING_PROVIDERS and instructions >= MIN_CACHED_PREFIX and todo
            cached = instructions * (len(todo) - 1) if caches else 0
            written = instructions if caches and spec.provider == "anthropic" else 0
            from_records = assumed = judge_in = 0
            for c in judged_contracts:
                for clause in CLAUSE_TYPES:
                    truth = spans.get((c.contract_id, clause))
                    if not truth or verdict_key(judge, name, run, c.contract_id, clause) in judged:
                        continue
                    key = (c.contract_id, clause)
                    if key in answers:  # recorded: a call only for a true positive (found and present)
                        text = answers[key]
                        if text is None:
                            continue
                        from_records += 1
                    else:  # not extracted yet: its answer is unknown, so every present clause is counted
                        text = " ".join(truth)
                        assumed += 1
                    judge_in += approx_tokens("".join(m.content for m in judge_messages(clause, truth, text)))
            judge_calls = from_records + assumed
            judge_out = judge_calls * JUDGE_OUTPUT_TOKENS
            out.append(Estimate(
                model=name, run=run, calls=len(todo), input_tokens=input_tokens, output_tokens=output_tokens,
                cost_usd=cost_usd(spec.price, input_tokens, output_tokens, cached, written),
                batch_cost_usd=cost_usd(spec.price, input_tokens, output_tokens, batch=True),
                cached_tokens=cached, cache_write_tokens=written,
                judge_calls=judge_calls, judge_calls_recorded=from_records, judge_calls_assumed=assumed,
                judge_input_tokens=judge_in, judge_output_tokens=judge_out,
                judge_cost_usd=cost_usd(judge_spec.price, judge_in, judge_out), rejudge=bool(recorded),
                not_extracted=len(skipped),
                extract_missing_cost_usd=cost_usd(spec.price, sum(prompt_tokens[c.contract_id] for c in skipped),
                                                  expected_output * len(skipped))))
    return out


def rejudge_lines(home: Home, models: Sequence[str], runs: Sequence[int], contracts: Sequence[Contract]) -> list[str]:
    """What re-judging does per partition: which are only judged, and what they leave unextracted."""
    from lhl_platform.clause.stages import has_extractions

    lines = []
    for model in models:
        for run in runs:
            if not has_extractions(home, model, run):
                lines.append(f"{model} run {run}: nothing recorded yet, so it is extracted and judged in full")
                continue
            recorded = recorded_contracts(home, model, run)
            judged = sum(c.contract_id in recorded for c in contracts)  # of the selection (its other corpora aside)
            lacking = len(contracts) - judged
            lines.append(f"{model} run {run}: re-judging its {judged} recorded contracts, no extraction call"
                         + (f"; {lacking} selected contracts are not extracted (--extract-missing extracts them)"
                            if lacking else ""))
    return lines


def estimate_lines(home: Home, models: Sequence[str], runs: Sequence[int], contracts: Sequence[Contract], judge: str,
                   rejudge: bool = False) -> list[str]:
    """`lhl audit --dry-run` of the clause suite: per (model, run) its extraction and judge calls, tokens and cost,
    interactive and with --batch, and the basis of the judge calls counted."""
    from lhl_platform.providers.prices import pricing_for

    rows = estimate_audit(home, models, runs, contracts, judge, rejudge=rejudge)
    out = [f"Dry run: {len(contracts)} contracts x {len(runs)} run(s); nothing is called. Tokens are estimates "
           "(about 4 characters per token); work already in the event log is not counted. Extraction cost "
           "interactive (instructions read from the prompt cache after the first call) and with --batch (batch "
           "prices, no cache hits assumed)."]
    for r in rows:
        if r.rejudge:
            out.append(f"{r.model} run {r.run}: re-judging its recorded extractions, no extraction call"
                       + (f"; {r.not_extracted} selected contracts are not extracted: --extract-missing would extract "
                          f"them ({r.not_extracted:,} calls, about ${r.extract_missing_cost_usd:,.2f} interactive)"
                          if r.not_extracted else ""))
    out.append(f"{'model':<20} {'run':>3} {'calls':>7} {'input tok':>12} {'output tok':>11} {'interactive':>12} "
               f"{'--batch':>10}  {'judge calls':>11} {'judge cost':>10}")
    unknown = {n for n in [*models, judge] if not pricing_for(get_model(home, n)).known}  # named, never costed as 0

    def usd(value: float, model: str) -> str:
        return "unknown" if model in unknown else f"${value:,.2f}"

    for r in rows:
        out.append(f"{r.model:<20} {r.run:>3} {r.calls:>7,} {r.input_tokens:>12,} {r.output_tokens:>11,} "
                   f"{usd(r.cost_usd, r.model):>12} {usd(r.batch_cost_usd, r.model):>10}  {r.judge_calls:>11,} "
                   f"{usd(r.judge_cost_usd, judge):>10}")
    judge_cost = sum(r.judge_cost_usd for r in rows)
    interactive = sum(r.cost_usd for r in rows) + judge_cost
    batch = sum(r.batch_cost_usd for r in rows) + judge_cost
    out.append(f"total: {sum(r.calls for r in rows):,} extraction calls, {sum(r.judge_calls for r in rows):,} judge "
               f"calls, about ${interactive:,.2f} interactive or ${batch:,.2f} with --batch, at registered prices"
               + (f", without the unknown cost of {', '.join(sorted(unknown))} (`lhl models prices NAME`)" if unknown
                  else ""))
    known, assumed = sum(r.judge_calls_recorded for r in rows), sum(r.judge_calls_assumed for r in rows)
    basis = ([f"{known:,} for the true positives of recorded extractions that {judge} has not labelled"]
             if known or not assumed else [])
    basis += ([f"{assumed:,} for the present clauses of contracts not extracted yet (as if every one were found: "
               "an upper bound, since only true positives are judged)"] if assumed else [])
    out.append(f"judge calls: {'; '.join(basis)}")
    undiscounted = [m for m in models if (p := get_model(home, m).price).input_per_mtok
                    and p.batch_input_per_mtok >= p.input_per_mtok and p.batch_output_per_mtok >= p.output_per_mtok]
    if undiscounted:
        out.append(f"note: {', '.join(undiscounted)} {'has' if len(undiscounted) == 1 else 'have'} no batch prices "
                   "registered, so the --batch column uses the interactive rates without cache hits (register "
                   "--batch-input-price and --batch-output-price to compare)")
    return out
