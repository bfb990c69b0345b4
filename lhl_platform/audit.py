"""The audit's units of work, as plain functions the Dagster assets and the CLI both call."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from lhl_platform.corpus.store import active_corpus_id, load_corpus
from lhl_platform.corpus.subsets import get_subset
from lhl_platform.domain.models import Contract
from lhl_platform.extraction.engine import PartitionSummary, extract_partition
from lhl_platform.home import Home
from lhl_platform.judging.engine import JudgeSummary, judge_partition
from lhl_platform.progress import Progress
from lhl_platform.providers.factory import build_model
from lhl_platform.registry import get_model


def select_contracts(home: Home, contracts: int | None = None, subset: str | None = None) -> list[Contract]:
    corpus = load_corpus(home)
    ordered = sorted(corpus.contracts, key=lambda c: c.contract_id)
    if subset:
        wanted = set(get_subset(home, subset).contract_ids)
        chosen = [c for c in ordered if c.contract_id in wanted]
        if len(chosen) != len(wanted):
            raise LookupError(f"subset {subset!r} names contracts that are not in the active corpus")
        return chosen
    if contracts is not None:
        if contracts < 1:
            raise ValueError("--contracts must be at least 1")
        return ordered[:contracts]
    return ordered


def run_extraction(home: Home, model: str, run: int, contracts: Sequence[Contract] | None = None,
                   progress: Progress | None = None) -> PartitionSummary:
    spec = get_model(home, model)
    corpus = load_corpus(home)
    chosen = list(contracts) if contracts is not None else select_contracts(home)
    chat = build_model(spec, run=run, oracle=corpus.oracle)
    concurrency = int(spec.params.get("concurrency", 4))
    return asyncio.run(extract_partition(home.events, spec, run, active_corpus_id(home), chosen, chat,
                                         concurrency=concurrency, progress=progress))


def run_judging(home: Home, model: str, run: int, judge: str = "rubric",
                progress: Progress | None = None) -> JudgeSummary:
    judge_spec = get_model(home, judge)
    corpus = load_corpus(home)
    chat = build_model(judge_spec)
    concurrency = int(judge_spec.params.get("concurrency", 8))
    return asyncio.run(judge_partition(home.events, model, run, corpus.oracle, judge_spec, chat,
                                       concurrency=concurrency, progress=progress))
