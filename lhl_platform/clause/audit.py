"""The audit's units of work, as plain functions the Dagster assets and the CLI both call.

A partition resolves what it needs once (the model's spec, the active corpus, the contracts in scope)
and passes those values down; nothing below reads the registry or the corpus again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from lhl_platform.clause.extraction.engine import PartitionSummary, extract_partition
from lhl_platform.clause.judging import JudgeSummary, judge_partition
from lhl_platform.corpus.cuad import Corpus
from lhl_platform.corpus.store import active_corpus_id, load_corpus
from lhl_platform.corpus.subsets import get_subset
from lhl_platform.domain.models import Contract, ModelSpec
from lhl_platform.factory import build_model
from lhl_platform.home import Home
from lhl_platform.progress import Progress
from lhl_platform.providers.llm.base import LlmModel
from lhl_platform.registry import get_model


@dataclass(frozen=True)
class Resolved:
    """One partition's inputs, read once."""

    spec: ModelSpec
    corpus_id: str
    corpus: Corpus
    contracts: tuple[Contract, ...]


def choose_contracts(corpus: Corpus, home: Home, contracts: int | None = None,
                     subset: str | None = None) -> list[Contract]:
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


def select_contracts(home: Home, contracts: int | None = None, subset: str | None = None) -> list[Contract]:
    return choose_contracts(load_corpus(home), home, contracts, subset)


def resolve(home: Home, model: str, contracts: int | None = None, subset: str | None = None) -> Resolved:
    corpus_id = active_corpus_id(home)
    corpus = load_corpus(home, corpus_id)
    return Resolved(spec=get_model(home, model), corpus_id=corpus_id, corpus=corpus,
                    contracts=tuple(choose_contracts(corpus, home, contracts, subset)))


def run_extraction(home: Home, inputs: Resolved, run: int, progress: Progress | None = None, *,
                   batch: bool = False, status: Callable[[str], None] | None = None) -> PartitionSummary:
    """Extract one partition. With `batch`, an LLM's requests go through its provider's batch API (priced at
    the batch rates, answered within hours); `status` hears what the partition is waiting for."""
    chat = build_model(inputs.spec, run=run, oracle=inputs.corpus.oracle)
    return asyncio.run(extract_partition(home.events, inputs.spec, run, inputs.corpus_id, inputs.contracts, chat,
                                         concurrency=inputs.spec.params.concurrency, progress=progress,
                                         batch=batch and isinstance(chat, LlmModel), status=status))


def run_judging(home: Home, model: str, run: int, judge: ModelSpec, corpus: Corpus,
                progress: Progress | None = None, *, batch: bool = False,
                status: Callable[[str], None] | None = None) -> JudgeSummary:
    """Judge one partition's TPs; with `batch`, an LLM judge's requests go through its provider's batch API."""
    chat = build_model(judge)
    return asyncio.run(judge_partition(home.events, model, run, corpus.oracle, judge, chat,
                                       concurrency=judge.params.concurrency, progress=progress,
                                       batch=batch and isinstance(chat, LlmModel), status=status))


def audit_partition(home: Home, model: str, run: int, judge: str = "rubric", contracts: int | None = None,
                    subset: str | None = None) -> tuple[PartitionSummary, JudgeSummary]:
    """Extract and judge one (model, run) partition in-process, without Dagster (tests, notebooks)."""
    inputs = resolve(home, model, contracts, subset)
    extracted = run_extraction(home, inputs, run)
    return extracted, run_judging(home, model, run, get_model(home, judge), inputs.corpus)
