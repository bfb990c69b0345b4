"""Read the clause marts and add what SQL does badly (bootstrap intervals): the clause report as one typed object."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import duckdb

from lhl_platform.clause.checks import all_checks
from lhl_platform.clause.monitor import MONITOR
from lhl_platform.clause.report.rows import (
    CategoryRow,
    ClauseRow,
    CompositeRow,
    DebateCategoryRow,
    DebateEffectRow,
    GapRow,
    JudgeHeldOutFamilyRow,
    JudgeValidationRow,
    LeaderboardRow,
    RdiRow,
    Report,
    RunRow,
    RunSummaryRow,
    ScopeCoverageRow,
    UsageRow,
)
from lhl_platform.clause.report.stats import Statistics, provenance_from
from lhl_platform.home import Home
from lhl_platform.monitoring.report import MonitorReport, monitor_report, newest_round_outcome
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.report.cost import read_cost
from lhl_platform.report.marts import rows_of
from lhl_platform.report.monitor import TrendRow, trend_rows
from lhl_platform.report.system_nature import natures_of
from lhl_platform.stats import nan_free
from lhl_platform.stats.bootstrap import DEFAULT_RESAMPLES, rdi_cluster_interval, rdi_intervals
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ScopeRequest, check_names, resolved_scope


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


class NothingInScope(LookupError):
    pass


def build_report(home: Home, request: ScopeRequest | None = None, *, resamples: int = DEFAULT_RESAMPLES,
                 seed: int = 0, cluster: bool = False) -> Report:
    with read_warehouse(home, request or ScopeRequest()) as con:
        return report_from(con, resamples=resamples, seed=seed, cluster=cluster)


def report_from(con: duckdb.DuckDBPyConnection, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                cluster: bool = False) -> Report:
    check_names(con)
    scope = resolved_scope(con)
    if not scope.models:
        runs = [r for (r,) in con.execute("select run from scope_runs order by run").fetchall()]
        raise NothingInScope(
            f"nothing is audited in scope (corpus {scope.corpus_name or 'none'}"
            + (f", subset {scope.subset}" if scope.subset else "") + f", runs {', '.join(map(str, runs)) or 'none'}"
            + f", judge {scope.judge}); see `lhl models list`, `lhl audit`")
    n_contracts = {r["model"]: r["contracts"] for r in _rows(con, "select model, contracts from leaderboard")}
    units: list[dict[str, Any]] = []  # read when a contract-cluster interval needs them

    def clusters(keys: tuple[str, ...]) -> dict[tuple[Any, ...], list[list[int]]]:
        """Per-contract (extra, missing, contradicted) sums for each value of `keys`, pooled over the rest."""
        if not units:
            units.extend(_rows(con, "select * from rdi_units"))
        sums: dict[tuple[Any, ...], dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
        for u in units:
            acc = sums[tuple(u[k] for k in keys)][u["contract_id"]]
            acc[0] += u["n_extra"]
            acc[1] += u["n_missing"]
            acc[2] += u["contradicted"]
        return {group: list(per_contract.values()) for group, per_contract in sums.items()}

    grouped: dict[tuple[str, ...], dict[tuple[Any, ...], list[list[int]]]] = {}

    def with_ci(sql: str, keys: tuple[str, ...]) -> list[dict[str, Any]]:
        rows = _rows(con, sql)
        labels = []
        for row in rows:
            present = tuple(k for k in keys if row[k] is not None)  # a null category is the model's overall row
            labels.append((present, tuple(row[k] for k in present)))
        if not cluster:  # every row's interval in one pass (the same draws as one at a time)
            lows, highs = rdi_intervals([(row["n_extra_condition"], row["n_missing_condition"], row["contradicted"],
                                          "|".join(map(str, group))) for row, (_, group) in zip(rows, labels,
                                                                                             strict=True)],
                                        resamples=resamples, seed=seed)
        out = []
        for i, (row, (present, group)) in enumerate(zip(rows, labels, strict=True)):
            if cluster:
                values = grouped.setdefault(present, clusters(present)).get(group, [])
                low, high = rdi_cluster_interval(
                    [v[0] for v in values], [v[1] for v in values], [v[2] for v in values], resamples=resamples,
                    seed=seed, key="|".join(map(str, group)),
                    n_clusters=max(len(values), n_contracts.get(row["model"], 0)))
            else:
                low, high = (None if lows[i] != lows[i] else float(lows[i]),
                             None if highs[i] != highs[i] else float(highs[i]))
            out.append(nan_free({**row, "rdi_ci_low": low, "rdi_ci_high": high}))
        return out

    composite = [CompositeRow(**nan_free(r)) for r in _rows(con, "select * from composite_ranks")]
    leaderboard = [LeaderboardRow(**r) for r in with_ci("select * from leaderboard", ("model",))]
    return Report(
        scope=scope,
        leaderboard=leaderboard,
        per_run=[RunRow(**r) for r in with_ci("select * from per_run_metrics", ("model", "run"))],
        typed_profiles=[CategoryRow(**r) for r in with_ci("select * from typed_profiles", ("model", "category"))],
        gaps=[GapRow(**nan_free(r)) for r in _rows(con, "select * from category_gaps")],
        composite=composite,
        usage=[UsageRow(**nan_free(r)) for r in _rows(con, "select * from usage_costs")],
        rdi=[RdiRow(**r) for r in with_ci("select * from rdi", ("model", "category"))],
        run_summary=[RunSummaryRow(**nan_free(r)) for r in _rows(con, "select * from run_summary")],
        clause_profiles=[ClauseRow(**nan_free(r)) for r in _rows(con, "select * from clause_profiles")],
        debate_effects=[DebateEffectRow(**nan_free(r)) for r in _rows(con, "select * from debate_effects")],
        debate_by_category=[DebateCategoryRow(**nan_free(r))
                            for r in _rows(con, "select * from debate_by_category")],
        judge_validation=[JudgeValidationRow(**nan_free(r)) for r in _rows(
            con, "select * from judge_validations where judge = (select judge from scope)")],
        provenance=provenance_from(con),
        statistics=_statistics(con, composite, resamples=resamples, seed=seed, cluster=cluster),
        coverage=rows_of(con, "scope_coverage", ScopeCoverageRow),
        cost=read_cost(con),
        judge_heldout=[JudgeHeldOutFamilyRow(**nan_free(r)) for r in _rows(
            con, "select * from judge_heldout_families where judge = (select judge from scope)")],
        trend=_trend(con),
        systems=natures_of(con, [*scope.models, *(r.model for r in leaderboard)]),
    )


def _monitored(con: duckdb.DuckDBPyConnection) -> MonitorReport:
    return monitor_report(con, "clause", "Clause extraction (CUAD)", MONITOR)


def _trend(con: duckdb.DuckDBPyConnection) -> list[TrendRow]:
    return trend_rows(_monitored(con))


def _statistics(con: duckdb.DuckDBPyConnection, composite: list[CompositeRow], *, resamples: int, seed: int,
                cluster: bool) -> Statistics:
    from lhl_platform.clause.report.resampling import statistics_from  # numpy, only where figures are computed

    return statistics_from(con, composite, resamples=resamples, seed=seed, cluster=cluster)


def monitor_checks(con: duckdb.DuckDBPyConnection) -> list[CheckOutcome]:
    """The clause suite's monitoring check (`no_change_detected`), as its Dagster check computes it."""
    return [newest_round_outcome(_monitored(con), MONITOR)]


def build_report_with_checks(home: Home, request: ScopeRequest | None = None, *,
                             resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                             cluster: bool = False) -> tuple[Report, list[CheckOutcome]]:
    """The report and the check results, from one read of the warehouse (computed once per build, request and
    parameters, then read back: `clause/report/cached.py`)."""
    from lhl_platform.clause.report.cached import report_with_checks

    request = request or ScopeRequest()
    with read_warehouse(home, request) as con:
        def compute() -> tuple[Report, list[CheckOutcome]]:
            report = report_from(con, resamples=resamples, seed=seed, cluster=cluster)
            return report, [*all_checks(con), *monitor_checks(con)]

        return report_with_checks(home, con, request, resamples=resamples, seed=seed, cluster=cluster,
                                  compute=compute)
