"""Derived profiles partitioned like their inputs: `model_profiles[model|run]`.

One partition's outcomes, typed profile, RDI units and missing rows, computed by the same SQL models as the
cross-model marts but over that partition's own events only (an in-memory DuckDB over its extraction and
verdict streams and the corpus stream), and written as Parquet under `<home>/profiles/`. So lineage reads
extractions[m|r] -> judge_verdicts[m|r] -> model_profiles[m|r] -> the cross-model marts, and auditing a new
model computes its own profile partitions plus the cross-model marts, never another model's partitions.

The asset is cheap SQL, so it carries `AutomationCondition.eager()`: whenever a partition's verdicts land
without their profile (for example a UI backfill that selected only the audit assets), the automation
sensor brings that one partition's profile up to date.
"""

from collections.abc import Iterator
from pathlib import Path

from dagster import (
    AssetExecutionContext,
    AutomationCondition,
    Config,
    MaterializeResult,
    MetadataValue,
    asset,
)
from pydantic import Field

from assets.audit import extractions, judge_verdicts
from assets.partitions import audit_partitions, model_and_run, partition_settings
from lhl_platform.corpus.store import CORPUS_STREAM
from lhl_platform.extraction.engine import extraction_stream
from lhl_platform.home import Home
from lhl_platform.judging.engine import verdict_stream
from lhl_platform.warehouse.build import partition_connection
from resources import LhlHome

PROFILE_TABLES = ("instance_outcomes", "typed_profiles", "rdi_units", "missing_rows", "per_run_metrics")
_FIGURES = ("n", "tp", "fp", "fn", "tn", "supported", "contradicted", "n_missing_condition",
            "n_extra_condition", "far", "frr", "acc", "hal_tp", "hal_gen", "jeq", "rdi", "missing_rows")


class ProfileConfig(Config):  # type: ignore[misc]
    judge: str | None = Field(default=None, description="the judge whose verdicts count; default: the model's "
                                                        "registered audit judge, else the primary judge")


def profile_dir(home: Home, model: str, run: int) -> Path:
    return home.root / "profiles" / f"model={model}" / f"run={run}"


def _figure(value: object) -> float | int | str:
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    return value if isinstance(value, int | float) else str(value)


def _pct(value: object) -> str:
    return "-" if value is None or (isinstance(value, float) and value != value) else f"{100 * float(value):.1f}"  # type: ignore[arg-type]


@asset(
    group_name="profiles", partitions_def=audit_partitions, deps=[extractions, judge_verdicts],
    automation_condition=AutomationCondition.eager(), kinds={"duckdb", "sql"},
    description="One (model, run) partition's outcomes, typed profile, RDI units and missing rows, computed in "
                "SQL from that partition's own events (Parquet under <home>/profiles/).",
)
def model_profiles(context: AssetExecutionContext, config: ProfileConfig, lhl: LhlHome) -> Iterator[object]:
    home = lhl.home()
    model, run = model_and_run(context.partition_key)  # type: ignore[arg-type]
    judge = partition_settings(home, model, judge=config.judge).judge
    streams = [CORPUS_STREAM, extraction_stream(model, run), verdict_stream(model, run)]
    folder = profile_dir(home, model, run)
    folder.mkdir(parents=True, exist_ok=True)
    con = partition_connection(home, streams, judge=judge)
    try:
        counts = {}
        for table in PROFILE_TABLES:
            target = folder / f"{table}.parquet"
            con.execute(f"copy (select * from {table}) to '{target}' (format parquet)")
            counts[table] = int(con.execute(f"select count(*) from {table}").fetchone()[0])  # type: ignore[index]
        cursor = con.execute("select * from per_run_metrics where model = ? and run = ?", [model, run])
        names = [d[0] for d in cursor.description]
        row = cursor.fetchone()
        categories = con.execute("select category, n, tp, hal_tp, rdi, far, frr from typed_profiles "
                                 "where model = ? order by category", [model]).fetchall()
    finally:
        con.close()
    figures = {k: v for k, v in zip(names, row, strict=True) if k in _FIGURES} if row else {}
    table = "| category | n | TP | HalTP % | RDI | FAR % | FRR % |\n|---|---|---|---|---|---|---|\n" + "\n".join(
        f"| {c} | {n} | {tp} | {_pct(h)} | {'-' if r is None else f'{r:+.3f}'} | {_pct(fa)} | {_pct(fr)} |"
        for c, n, tp, h, r, fa, fr in categories)
    context.log.info(f"profile of {model}, run {run} (judge {judge}): {counts['instance_outcomes']} instances, "
                     f"{counts['missing_rows']} missing rows")
    yield MaterializeResult(metadata={
        "judge": judge, **{k: _figure(v) for k, v in figures.items()},
        **{f"rows_{t}": n for t, n in counts.items()},
        "typed_profile": MetadataValue.md(table), "path": MetadataValue.path(str(folder))})
