"""`lhl report`: the audit's results as one typed object (SPEC 7), rendered as JSON, CSV, Markdown or a table."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from typing import Any

import duckdb
from pydantic import BaseModel

from lhl_platform.home import Home
from lhl_platform.monitoring import drift
from lhl_platform.quality.checks import CheckOutcome, all_checks, drift_outcome
from lhl_platform.stats.bootstrap import DEFAULT_RESAMPLES, rdi_cluster_interval, rdi_interval
from lhl_platform.warehouse.build import read_warehouse

METRIC_COLUMNS = ("runs", "n", "tp", "fp", "fn", "tn", "supported", "contradicted", "n_missing_condition",
                  "n_extra_condition", "far", "frr", "acc", "hal_tp", "hal_gen", "jeq", "rdi")


class MetricRow(BaseModel):
    model: str
    runs: int
    n: int
    tp: int
    fp: int
    fn: int
    tn: int
    supported: int
    contradicted: int
    n_missing_condition: int
    n_extra_condition: int
    far: float | None
    frr: float | None
    acc: float | None
    hal_tp: float | None
    hal_gen: float | None
    jeq: float | None
    rdi: float | None
    rdi_ci_low: float | None
    rdi_ci_high: float | None
    missing_rows: int


class RunRow(MetricRow):
    run: int


class CategoryRow(MetricRow):
    category: str


class GapRow(BaseModel):
    model: str
    gap: float | None
    max_category: str | None
    min_category: str | None


class CompositeRow(BaseModel):
    scheme: str
    model: str
    score: float | None
    rank: int | None


class UsageRow(BaseModel):
    model: str
    run: int
    extraction_calls: int
    judge_calls: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    extraction_cost_usd: float | None
    judge_cost_usd: float | None
    cost_usd: float | None


class Report(BaseModel):
    leaderboard: list[MetricRow]
    per_run: list[RunRow]
    typed_profiles: list[CategoryRow]
    gaps: list[GapRow]
    composite: list[CompositeRow]
    usage: list[UsageRow]


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _nan_to_none(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}


def build_report(home: Home, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0, cluster: bool = False) -> Report:
    with read_warehouse(home) as con:
        return report_from(con, resamples=resamples, seed=seed, cluster=cluster)


def report_from(con: duckdb.DuckDBPyConnection, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                cluster: bool = False) -> Report:
    units = _rows(con, "select * from rdi_units")
    n_contracts = {r["model"]: r["n"] for r in _rows(
        con, "select model, count(distinct contract_id) as n from audit_scope group by model")}

    def clusters(keys: tuple[str, ...]) -> dict[tuple[Any, ...], list[list[int]]]:
        """Per-contract (extra, missing, contradicted) sums for each value of `keys`, pooled over the rest."""
        sums: dict[tuple[Any, ...], dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
        for u in units:
            acc = sums[tuple(u[k] for k in keys)][u["contract_id"]]
            acc[0] += u["n_extra"]
            acc[1] += u["n_missing"]
            acc[2] += u["contradicted"]
        return {group: list(per_contract.values()) for group, per_contract in sums.items()}

    def with_ci(sql: str, keys: tuple[str, ...]) -> list[dict[str, Any]]:
        grouped = clusters(keys) if cluster else {}
        out = []
        for row in _rows(con, sql):
            group = tuple(row[k] for k in keys)
            key = "|".join(map(str, group))
            if cluster:
                values = grouped.get(group, [])
                low, high = rdi_cluster_interval(
                    [v[0] for v in values], [v[1] for v in values], [v[2] for v in values], resamples=resamples,
                    seed=seed, key=key, n_clusters=max(len(values), n_contracts.get(row["model"], 0)))
            else:
                low, high = rdi_interval(row["n_extra_condition"], row["n_missing_condition"], row["contradicted"],
                                         resamples=resamples, seed=seed, key=key)
            out.append(_nan_to_none({**row, "rdi_ci_low": low, "rdi_ci_high": high}))
        return out

    return Report(
        leaderboard=[MetricRow(**r) for r in with_ci("select * from leaderboard", ("model",))],
        per_run=[RunRow(**r) for r in with_ci("select * from per_run_metrics", ("model", "run"))],
        typed_profiles=[CategoryRow(**r) for r in with_ci("select * from typed_profiles", ("model", "category"))],
        gaps=[GapRow(**_nan_to_none(r)) for r in _rows(con, "select * from category_gaps")],
        composite=[CompositeRow(**_nan_to_none(r)) for r in _rows(con, "select * from composite_ranks")],
        usage=[UsageRow(**_nan_to_none(r)) for r in _rows(con, "select * from usage_costs")],
    )


def build_report_with_checks(home: Home, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                             cluster: bool = False) -> tuple[Report, list[CheckOutcome]]:
    """The report and the check results, from one read of the warehouse."""
    with read_warehouse(home) as con:
        report = report_from(con, resamples=resamples, seed=seed, cluster=cluster)
        return report, [*all_checks(con), drift_outcome(drift(con))]


# ---------------------------------------------------------------- rendering

def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def _table(headers: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return "\n".join([fmt.format(*headers), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in rows])


def render_text(report: Report, checks: list[CheckOutcome], markdown: bool = False) -> str:
    def h(title: str) -> str:
        return f"## {title}" if markdown else f"{title}\n{'=' * len(title)}"

    out = [h("Leaderboard (pooled over runs; rates in %)")]
    out.append(_table(
        ["model", "runs", "n", "FAR", "FRR", "Acc", "HalTP", "HalGen", "JEq", "RDI [95% CI]", "missing"],
        [[r.model, str(r.runs), str(r.n), _pct(r.far), _pct(r.frr), _pct(r.acc), _pct(r.hal_tp), _pct(r.hal_gen),
          _pct(r.jeq), f"{_signed(r.rdi)} [{_signed(r.rdi_ci_low)}, {_signed(r.rdi_ci_high)}]", str(r.missing_rows)]
         for r in report.leaderboard], markdown))
    out.append("")
    out.append(h("Typed HalTP by category (%), with Gap (pp)"))
    categories = ["numeric", "obligation", "factual", "temporal"]
    typed = {(r.model, r.category): r for r in report.typed_profiles}
    gaps = {g.model: g for g in report.gaps}
    out.append(_table(["model", *categories, "gap"],
                      [[m.model, *(_pct(typed[(m.model, c)].hal_tp) if (m.model, c) in typed else "-"
                                   for c in categories),
                        _pct(gaps[m.model].gap) if m.model in gaps else "-"] for m in report.leaderboard], markdown))
    out.append("")
    out.append(h("Risk Direction Index (missing vs extra condition, % of contradicted)"))
    out.append(_table(["model", "contradicted", "missing %", "extra %", "RDI", "95% CI"],
                      [[r.model, str(r.contradicted),
                        _pct(r.n_missing_condition / r.contradicted if r.contradicted else None),
                        _pct(r.n_extra_condition / r.contradicted if r.contradicted else None), _signed(r.rdi),
                        f"[{_signed(r.rdi_ci_low)}, {_signed(r.rdi_ci_high)}]"] for r in report.leaderboard], markdown))
    out.append("")
    out.append(h("Composite rank (weighted mean rank; lower is better)"))
    schemes = list(dict.fromkeys(c.scheme for c in report.composite))
    score = {(c.scheme, c.model): c for c in report.composite}
    out.append(_table(["model", *schemes],
                      [[m.model, *(f"{score[(s, m.model)].score:.2f} (#{score[(s, m.model)].rank})"
                                   if score.get((s, m.model)) and score[(s, m.model)].score is not None else "-"
                                   for s in schemes)] for m in report.leaderboard], markdown))
    out.append("")
    out.append(h("Per run"))
    out.append(_table(["model", "run", "n", "FAR", "FRR", "Acc", "HalTP", "JEq", "RDI", "missing"],
                      [[r.model, str(r.run), str(r.n), _pct(r.far), _pct(r.frr), _pct(r.acc), _pct(r.hal_tp),
                        _pct(r.jeq), _signed(r.rdi), str(r.missing_rows)] for r in report.per_run], markdown))
    out.append("")
    out.append(h("Usage and cost (USD at registered prices)"))
    out.append(_table(["model", "run", "extraction calls", "judge calls", "input tok", "cached tok", "output tok",
                       "cost"],
                      [[u.model, str(u.run), str(u.extraction_calls), str(u.judge_calls), f"{u.input_tokens:,}",
                        f"{u.cached_tokens:,}", f"{u.output_tokens:,}", f"${u.cost_usd or 0:.2f}"]
                       for u in report.usage], markdown))
    out.append("")
    out.append(h("Checks"))
    out.extend(f"{'- ' if markdown else ''}[{'PASS' if c.passed else 'FAIL'}] {c.name}: {c.summary}" for c in checks)
    return "\n".join(out) + "\n"


def render_json(report: Report) -> str:
    return json.dumps(report.model_dump(mode="json"), indent=2)


def render_csv(report: Report) -> str:
    """One CSV table: every metric row, with a `table` column saying which section it belongs to."""
    columns = ["table", "model", "run", "category", *METRIC_COLUMNS, "rdi_ci_low", "rdi_ci_high", "missing_rows"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for table, rows in (("leaderboard", report.leaderboard), ("per_run", report.per_run),
                        ("typed_profiles", report.typed_profiles)):
        for row in rows:
            writer.writerow({"table": table, **row.model_dump()})
    return buffer.getvalue()
