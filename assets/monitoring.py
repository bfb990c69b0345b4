"""Post-deployment monitoring: each model's newest audit round against its earlier rounds."""

from collections.abc import Iterator

from dagster import AssetCheckSpec, AssetKey, MaterializeResult, MetadataValue, asset

from checks.results import to_check_result
from lhl_platform.monitoring import drift
from lhl_platform.quality.checks import drift_outcome
from lhl_platform.warehouse.build import read_warehouse
from resources import LhlHome

_HEADER = "| model | category | metric | earlier runs | newest run | drifted |\n|---|---|---|---|---|---|\n"


@asset(group_name="monitoring", deps=[AssetKey("metric_cube"), AssetKey("per_run_metrics")],
       check_specs=[AssetCheckSpec("no_drift", asset="model_drift",
                                   description="newest run's HalTP and RDI intervals overlap the earlier runs'")],
       description="HalTP and RDI, overall and per category, of each model's newest run vs its earlier runs, "
                   "with 95% bootstrap intervals.")
def model_drift(lhl: LhlHome) -> Iterator[object]:
    with read_warehouse(lhl.home()) as con:
        rows = drift(con)
    table = _HEADER + "\n".join(
        f"| {r.model} | {r.category or 'all'} | {r.metric} | {_fmt(r.baseline, r.baseline_low, r.baseline_high)} | "
        f"{_fmt(r.newest, r.newest_low, r.newest_high)} (run {r.newest_run}) | {'YES' if r.drifted else ''} |"
        for r in rows)
    yield MaterializeResult(metadata={"comparisons": len(rows), "drifted": sum(r.drifted for r in rows),
                                      "drift": MetadataValue.md(table)})
    yield to_check_result(drift_outcome(rows), named=True)


def _fmt(value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f} [{low:+.3f}, {high:+.3f}]" if low is not None and high is not None else f"{value:+.3f}"
