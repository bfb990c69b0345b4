"""`lhl audit --dry-run`: calls, tokens and cost an audit would spend, before spending anything.

Tokens are estimated at four characters per token; output per extraction call from the model's
`expected_output_tokens` param (default 1,500). The judge labels true positives only, so a contract with recorded
extractions counts the true positives of those extractions that this judge has not labelled yet (the calls it
would really make); a contract not extracted yet can only count its present clauses, as if every one were found
(an upper bound), and the estimate says which basis each count has. Work already recorded in the event log is
not counted: a re-run would not redo it.

The other suites' estimates are in `lhl_platform.suites.estimate`.

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
