"""The audit's partitioned assets: extractions and judge verdicts per (model, run).

Both write events themselves (the DuckDB IO manager cannot store multi-partitions with a dynamic
dimension) and return metadata plus the partition's check results, computed from that partition's
own events.
"""


from collections.abc import Callable, Iterator

from dagster import (
    AssetCheckResult,
    AssetCheckSpec,
    AssetExecutionContext,
    Config,
    MaterializeResult,
    asset,
)
from pydantic import Field

from assets.corpus import contracts, oracle
from assets.partitions import audit_partitions, model_and_run, partition_settings
from checks.results import to_check_result
from lhl_platform.audit import batch_requested, resolve, run_extraction, run_judging
from lhl_platform.corpus.store import CORPUS_STREAM, load_corpus
from lhl_platform.domain.models import ModelSpec
from lhl_platform.events.log import stream_head
from lhl_platform.extraction.engine import extraction_stream
from lhl_platform.home import Home
from lhl_platform.judging.engine import verdict_stream
from lhl_platform.progress import ProgressBar
from lhl_platform.quality.checks import (
    CheckOutcome,
    completeness,
    every_tp_judged,
    labels_in_domain,
    no_duplicate_instances,
)
from lhl_platform.registry import get_model, primary_judge
from lhl_platform.warehouse.build import partition_connection
from resources import LhlHome


class ExtractionConfig(Config):  # type: ignore[misc]
    contracts: int | None = Field(default=None, description="audit only the first N contracts (by id); "
                                                            "default: the model's registered audit settings")
    subset: str | None = Field(default=None, description="audit a stored subset of contracts; default: the "
                                                         "model's registered audit settings (else every contract)")
    batch: bool | None = Field(default=None, description="send an LLM's requests through its provider's batch API "
                                                         "(batch prices, answered within hours; the run polls and "
                                                         "shows what it waits for); default: LHL_AUDIT_BATCH")


class JudgeConfig(Config):  # type: ignore[misc]
    judge: str | None = Field(default=None, description="registered judge model; default: the model's registered "
                                                        "audit judge, else the primary judge (built-in: rubric)")


def _head(home: Home, stream: str) -> dict[str, object]:
    """The partition stream's head (event count, last chain hash) as of this materialization: an anchor kept
    outside the event log, so a later truncation or rollback of the stream contradicts Dagster's record."""
    count, chain = stream_head(home.events, stream)
    return {"stream": stream, "stream_events": count, "stream_head": chain}


def _bar(spec: ModelSpec, label: str) -> ProgressBar:
    """Progress (calls, tokens, spend, ETA) on stderr for every partition that lasts more than a few seconds,
    offline ones included (a lexical pass over CUAD takes a while)."""
    return ProgressBar(label, spec.price)


def _partition_checks(lhl: LhlHome, asset: str, streams: list[str], model: str, run: int,
                      checks: list[Callable[..., CheckOutcome]], judge: str | None = None
                      ) -> Iterator[AssetCheckResult]:
    """Checks computed from this partition's own events (an in-memory warehouse over its streams and the
    corpus stream, which names the corpus the partition was audited on)."""
    con = partition_connection(lhl.home(), [CORPUS_STREAM, *streams], judge=judge)
    partition = f"{model}|{run}"
    try:
        for check in checks:
            yield to_check_result(check(con, model, run), named=True, lhl=lhl, asset=asset, partition=partition)
    finally:
        con.close()


@asset(
    group_name="audit", partitions_def=audit_partitions, deps=[contracts, oracle],
    check_specs=[AssetCheckSpec("rows_complete", asset="extractions",
                                description="all contracts in scope x 41 clause types recorded"),
                 AssetCheckSpec("no_duplicate_instances", asset="extractions")],
    description="One structured extraction call per contract, parsed into 41 instances; failures are events.",
    tags={"lhl/spends": "model-calls"},
)
def extractions(context: AssetExecutionContext, config: ExtractionConfig, lhl: LhlHome) -> Iterator[object]:
    home = lhl.home()
    model, run = model_and_run(context.partition_key)  # type: ignore[arg-type]
    settings = partition_settings(home, model, contracts=config.contracts, subset=config.subset)
    inputs = resolve(home, model, settings.contracts, settings.subset)
    context.log.info(f"extracting {len(inputs.contracts)} contracts with {model}, run {run}")
    bar = _bar(inputs.spec, f"{model} run {run} extraction:")
    batch = batch_requested() if config.batch is None else config.batch

    def waiting(text: str) -> None:  # a batch partition's waiting, in the run's log (UI) and on stderr
        context.log.info(text)
        bar.status(text)

    summary = run_extraction(home, inputs, run, progress=bar, batch=batch, status=waiting)
    for contract_id, reason in summary.failures[:20]:
        context.log.warning(f"{contract_id}: {reason}")
    yield MaterializeResult(metadata={**summary.metadata(), **_head(home, extraction_stream(model, run))})
    yield from _partition_checks(lhl, "extractions", [extraction_stream(model, run)], model, run,
                                 [completeness, no_duplicate_instances])


@asset(
    group_name="audit", partitions_def=audit_partitions, deps=[extractions, oracle],
    check_specs=[AssetCheckSpec("every_tp_judged", asset="judge_verdicts"),
                 AssetCheckSpec("labels_in_domain", asset="judge_verdicts")],
    description="The evaluation judge's verdict (supported/contradicted, mismatch_type) on every TP.",
    tags={"lhl/spends": "model-calls"},
)
def judge_verdicts(context: AssetExecutionContext, config: JudgeConfig, lhl: LhlHome) -> Iterator[object]:
    home = lhl.home()
    model, run = model_and_run(context.partition_key)  # type: ignore[arg-type]
    judge = get_model(home, partition_settings(home, model, judge=config.judge).judge)
    corpus = load_corpus(home)
    # The primary judge labels every TP too (a no-op for TPs it already labelled), so auditing with a second
    # judge never leaves the default report with unjudged TPs, even when new contracts were extracted.
    primary = get_model(home, primary_judge(home))
    extra = {} if primary.name == judge.name else {"primary_judge": primary.name}
    if primary.name != judge.name:
        context.log.info(f"judging {model}, run {run} with the primary judge {primary.name}")
        run_judging(home, model, run, primary, corpus, progress=_bar(primary, f"{model} run {run} ({primary.name}):"))
    context.log.info(f"judging {model}, run {run} with {judge.name}")
    bar = _bar(judge, f"{model} run {run} judging ({judge.name}):")
    summary = run_judging(home, model, run, judge, corpus, progress=bar)
    for subject, reason in summary.failures[:20]:
        context.log.warning(f"{subject}: {reason}")
    yield MaterializeResult(metadata={**summary.metadata(), "judge": judge.name, **extra,
                                      **_head(home, verdict_stream(model, run))})
    yield from _partition_checks(lhl, "judge_verdicts", [extraction_stream(model, run), verdict_stream(model, run)],
                                 model, run, [every_tp_judged, labels_in_domain], judge=judge.name)
