"""Post-deployment monitoring: each model's newest audit round against its earlier rounds, and whether the
provider still serves the same model version (the response's model field) as in those rounds."""

from collections.abc import Iterator
from typing import Any

import duckdb
from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetKey,
    MaterializeResult,
    MetadataValue,
    asset,
)

from checks.results import alert, to_check_result
from lhl_platform.monitoring import drift
from lhl_platform.quality.checks import drift_outcome
from lhl_platform.warehouse.build import read_warehouse
from resources import LhlHome

_HEADER = "| model | category | metric | earlier runs | newest run | drifted |\n|---|---|---|---|---|---|\n"

# Per (model, run): the model versions the provider said it served. Null until model.call events record
# the response's model field (`served_model`).
_SERVED = """
select model, run, count(*) as calls, count(served_model) as recorded,
       list(distinct served_model order by served_model) filter (where served_model is not null) as served
from stg_model_calls
group by model, run
order by model, run
"""


def served_model_changes(con: duckdb.DuckDBPyConnection) -> tuple[int, list[dict[str, Any]]]:
    """(calls that recorded a served model, one row per model whose newest run was served a version that none
    of its earlier runs was)."""
    rows = con.execute(_SERVED).fetchall()
    recorded = sum(int(r[3]) for r in rows)
    by_model: dict[str, list[tuple[int, set[str]]]] = {}
    for model, run, _calls, _rec, served in rows:
        by_model.setdefault(model, []).append((int(run), set(served or [])))
    changes = []
    for model, runs in by_model.items():
        runs.sort()
        if len(runs) < 2:
            continue
        newest_run, newest = runs[-1]
        earlier = set().union(*(s for _, s in runs[:-1]))
        if newest and earlier and not newest <= earlier:
            changes.append({"model": model, "newest_run": newest_run, "newest": sorted(newest),
                            "earlier": sorted(earlier)})
    return recorded, changes


@asset(group_name="monitoring", deps=[AssetKey("drift_cells"), AssetKey("per_run_metrics")],
       check_specs=[AssetCheckSpec("no_drift", asset="model_drift",
                                   description="newest run's HalTP and RDI intervals overlap the earlier runs'"),
                    AssetCheckSpec("same_served_model", asset="model_drift",
                                   description="the provider served the newest run the model version(s) it served "
                                               "the earlier runs (the response's model field)")],
       description="HalTP and RDI, overall and per category, of each model's newest run vs its earlier runs, "
                   "with 95% bootstrap intervals; and the model version the provider reported serving.")
def model_drift(lhl: LhlHome) -> Iterator[object]:
    with read_warehouse(lhl.home()) as con:
        rows = drift(con)
        recorded, changes = served_model_changes(con)
    table = _HEADER + "\n".join(
        f"| {r.model} | {r.category or 'all'} | {r.metric} | {_fmt(r.baseline, r.baseline_low, r.baseline_high)} | "
        f"{_fmt(r.newest, r.newest_low, r.newest_high)} (run {r.newest_run}) | {'YES' if r.drifted else ''} |"
        for r in rows)
    yield MaterializeResult(metadata={
        "comparisons": len(rows), "drifted": sum(r.drifted for r in rows), "drift": MetadataValue.md(table),
        "served_model_calls": recorded, "served_model_changes": len(changes)})
    yield to_check_result(drift_outcome(rows), named=True, lhl=lhl, asset="model_drift")
    yield _served_check(lhl, recorded, changes)


def _served_check(lhl: LhlHome, recorded: int, changes: list[dict[str, Any]]) -> AssetCheckResult:
    if not recorded:
        summary = "no model.call event records the served model version yet: nothing to compare"
    elif not changes:
        summary = "every model's newest run was served a model version its earlier runs were served"
    else:
        summary = "; ".join(f"{c['model']} run {c['newest_run']} was served {', '.join(c['newest'])} "
                            f"(earlier: {', '.join(c['earlier'])})" for c in changes)
    figures: dict[str, int | float | str | bool] = {
        "calls_recording_it": recorded, "models_changed": len(changes),
        "changes": "; ".join(f"{c['model']}: {c['earlier']} -> {c['newest']}" for c in changes)}
    if changes:
        alert(lhl, "same_served_model", "model_drift", None, summary, figures)
    return AssetCheckResult(check_name="same_served_model", passed=not changes, severity=AssetCheckSeverity.ERROR,
                            description=summary, metadata=figures)


def _fmt(value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f} [{low:+.3f}, {high:+.3f}]" if low is not None and high is not None else f"{value:+.3f}"
