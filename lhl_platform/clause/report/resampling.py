"""The statistics the clause report adds to its marts, computed with numpy in a few array operations.

- **Rate intervals.** A 95% percentile interval for every rate (FAR, FRR, Acc, HalTP, HalGen, JEq and the
  shares of contradictions labelled scope, missing and extra) per model pooled over runs, per (model, category)
  and per (model, run). With instance resampling (the default) a rate k/n is a binomial draw; with contract
  resampling the model's contracts are drawn with replacement once per resample and every group's rate is a
  ratio of sums over the drawn contracts, so all of a model's intervals come from the same draws.
- **Rank stability.** The composite ranks are recomputed on contract-cluster resamples of the matched cells
  (every model on the same drawn contracts); a model's stability under a scheme is the share of resamples in
  which it keeps its rank.
- **Paired differences** (`lhl compare`): both models' rates on the same drawn contracts, their difference per
  resample, and its percentile interval.

Random streams are derived from the seed and a name (as in `lhl_platform.stats.bootstrap`), so an interval
does not move when another model joins the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np

from lhl_platform.clause.report.marts import (
    ClauseTypeMeanRow,
    CompositeRow,
    MissingByContractRow,
    MissingSummaryRow,
    RankStabilityRow,
    RateIntervalRow,
    RunSpreadRow,
)
from lhl_platform.clause.report.stats import (
    COMPARED_METRICS,
    COMPOSITE_METRICS,
    CONTENT_COUNTS,
    COUNTS,
    INTERVAL_METRICS,
    RATE_PARTS,
    SCHEMES,
    BootstrapSettings,
    Statistics,
)
from lhl_platform.report.bootstrap import Paired, cluster_weights, percentile_intervals
from lhl_platform.report.marts import rows_of
from lhl_platform.stats import nan_to_null
from lhl_platform.stats.bootstrap import proportion_intervals

_C = {name: i for i, name in enumerate(COUNTS)}


def _combine(parts: tuple[str, ...]) -> np.ndarray:
    vector = np.zeros(len(COUNTS))
    vector[[_C[p] for p in parts]] = 1.0
    return vector


_NUM = np.stack([_combine(RATE_PARTS[m][0]) for m in INTERVAL_METRICS], axis=1)  # (counts, metrics)
_DEN = np.stack([_combine(RATE_PARTS[m][1]) for m in INTERVAL_METRICS], axis=1)


def rates(sums: np.ndarray, metrics: Sequence[str] = INTERVAL_METRICS) -> np.ndarray:
    """Rates from count sums (last axis COUNTS): NaN where the denominator is zero. `rdi` is allowed too."""
    out = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for metric in metrics:
            if metric == "rdi":
                num = sums[..., _C["n_extra_condition"]] - sums[..., _C["n_missing_condition"]]
                den = sums[..., _C["contradicted"]]
            else:
                num, den = sums @ _combine(RATE_PARTS[metric][0]), sums @ _combine(RATE_PARTS[metric][1])
            defined = den > 0
            out.append(np.where(defined, num / np.where(den > 0, den, 1), np.nan))
    return np.stack(out, axis=-1)


def _none(value: float) -> float | None:
    found = nan_to_null(float(value))
    return None if found is None else float(found)


@dataclass
class CountCube:
    """`contract_counts` as a dense array counts[model, run, category, contract, COUNTS], with the audited cells
    cells[model, run, contract] (a cell may hold no returned instance at all), the cells the scope's judge labelled
    labelled[model, run, contract] (`judge_cells`) and the matched cells."""

    models: list[str]
    runs: list[int]
    categories: list[str]
    contracts: list[str]
    counts: np.ndarray
    cells: np.ndarray
    matched: np.ndarray
    labelled: np.ndarray

    @classmethod
    def read(cls, con: duckdb.DuckDBPyConnection) -> CountCube:
        # Positions in the sorted labels are computed in SQL: fetching millions of label strings into Python
        # would cost more than all the arithmetic.
        con.execute("create or replace temp table _lhl_counts as select * from contract_counts")
        sources = {"model": ("_lhl_counts", "audit_scope"), "run": ("_lhl_counts", "audit_scope"),
                   "category": ("_lhl_counts",), "contract_id": ("_lhl_counts", "audit_scope")}
        union = {c: " union ".join(f"select {c} from {t}" for t in tables) for c, tables in sources.items()}
        labels = {c: [r[0] for r in con.execute(f"select distinct {c} from ({u}) order by 1").fetchall()]
                  for c, u in union.items()}

        def positions(table: str, columns: tuple[str, ...], extra: str = "") -> dict[str, np.ndarray]:
            ranked = ", ".join(f"_lhl_{c} as (select {c}, (row_number() over (order by {c}) - 1)::integer as i "
                               f"from (select distinct {c} from ({union[c]})))" for c in columns)
            joins = " ".join(f"join _lhl_{c} using ({c})" for c in columns)
            picks = ", ".join(f"_lhl_{c}.i as {c}" for c in columns)
            result: dict[str, np.ndarray] = con.execute(
                f"with {ranked} select {picks}{extra} from {table} {joins}").fetchnumpy()
            return result

        rows = positions("_lhl_counts t", ("model", "run", "category", "contract_id"),
                         "".join(f", t.{c}::double as {c}" for c in COUNTS))
        scope = positions("audit_scope", ("model", "run", "contract_id"))
        judged = positions("(select model, run, contract_id from judge_cells where labelled) j",
                           ("model", "run", "contract_id"))
        matched = positions("matched_cells", ("run", "contract_id"))
        con.execute("drop table temp.main._lhl_counts")
        models, runs = [str(m) for m in labels["model"]], [int(r) for r in labels["run"]]
        categories, contracts = [str(g) for g in labels["category"]], [str(c) for c in labels["contract_id"]]
        counts = np.zeros((len(models), len(runs), len(categories), len(contracts), len(COUNTS)))
        if len(rows["model"]):
            counts[rows["model"], rows["run"], rows["category"], rows["contract_id"]] = np.stack(
                [np.asarray(rows[c], dtype=float) for c in COUNTS], axis=1)
        cells = np.zeros((len(models), len(runs), len(contracts)), dtype=bool)
        if len(scope["model"]):
            cells[scope["model"], scope["run"], scope["contract_id"]] = True
        matched_cells = np.zeros((len(runs), len(contracts)), dtype=bool)
        if len(matched["run"]):
            matched_cells[matched["run"], matched["contract_id"]] = True
        labelled = np.zeros_like(cells)
        if len(judged["model"]):
            labelled[judged["model"], judged["run"], judged["contract_id"]] = True
        return cls(models, runs, categories, contracts, counts, cells, matched_cells, labelled)


# --- rate intervals ------------------------------------------------------------------------------------------


def rate_intervals(cube: CountCube, *, resamples: int, seed: int, cluster: bool) -> list[RateIntervalRow]:
    out: list[RateIntervalRow] = []
    for m, model in enumerate(cube.models):
        population = np.flatnonzero(cube.cells[m].any(axis=0))
        per_contract = cube.counts[m][:, :, population]  # (runs, categories, contracts, COUNTS)
        # groups pooled over runs: all categories, then each category; they share the model's contract draws
        pooled = np.concatenate([per_contract.sum(axis=(0, 1))[None], per_contract.sum(axis=0)])
        labels: list[tuple[int | None, str | None]] = [(None, None), *((None, g) for g in cube.categories)]
        out += _group_intervals(model, labels, pooled, resamples, seed, cluster, f"rates|{model}")
        for r, run in enumerate(cube.runs):
            in_run = np.flatnonzero(cube.cells[m, r])
            if in_run.size == 0:
                continue
            run_counts = cube.counts[m, r][:, in_run].sum(axis=0)[None]  # (1, contracts, COUNTS)
            out += _group_intervals(model, [(run, None)], run_counts, resamples, seed, cluster,
                                    f"rates|{model}|{run}")
    return out


def _group_intervals(model: str, labels: list[tuple[int | None, str | None]], per_contract: np.ndarray,
                     resamples: int, seed: int, cluster: bool, key: str) -> list[RateIntervalRow]:
    """Intervals of every rate for groups sharing one population of contracts: per_contract (groups, k, COUNTS)."""
    totals = per_contract.sum(axis=1)  # (groups, COUNTS)
    numerators, denominators = totals @ _NUM, totals @ _DEN
    values = rates(totals)
    if cluster and per_contract.shape[1] > 0:
        weights = cluster_weights(per_contract.shape[1], resamples, seed, key)
        sums = np.tensordot(weights, per_contract, axes=([1], [1]))  # (resamples, groups, COUNTS), by BLAS
        low, high = percentile_intervals(rates(sums))
    else:
        # an undefined rate (nothing measured) gets no interval either: asked with no instances, it gets none
        low, high = (a.reshape(values.shape) for a in proportion_intervals(
            [(int(numerators[g, j]), 0 if np.isnan(values[g, j]) else int(denominators[g, j]),
              f"{model}|{run}|{category}|{metric}")
             for g, (run, category) in enumerate(labels) for j, metric in enumerate(INTERVAL_METRICS)],
            resamples=resamples, seed=seed))
    return [RateIntervalRow(model=model, run=run, category=category, metric=metric, value=_none(values[g, j]),
                            numerator=int(numerators[g, j]), denominator=int(denominators[g, j]),
                            ci_low=_none(low[g, j]), ci_high=_none(high[g, j]))
            for g, (run, category) in enumerate(labels) for j, metric in enumerate(INTERVAL_METRICS)]


# --- composite ranks and their stability ---------------------------------------------------------------------


def composite_ranks(sums: np.ndarray) -> np.ndarray:
    """Composite ranks from count sums (..., models, COUNTS) -> (..., schemes, models), NaN where a scheme has no
    weight left. Same rules as `sql/marts/composite_ranks.sql`: average ranks for ties per metric, metrics
    undefined for any model dropped, weighted mean rank per scheme, equal scores sharing the better rank."""
    values = rates(sums, COMPOSITE_METRICS)  # (..., M, 5)
    cost = np.where(np.isin(np.array(COMPOSITE_METRICS), ["acc", "jeq"]), -values, values)
    usable = np.asarray(~np.isnan(cost).any(axis=-2))  # (..., 5)
    mine, other = cost[..., :, None, :], cost[..., None, :, :]  # (..., M, 1, 5) against (..., 1, M, 5)
    metric_rank = 1 + (other < mine).sum(axis=-2) + ((other == mine).sum(axis=-2) - 1) / 2  # (..., M, 5)
    weights = np.array(list(SCHEMES.values()), dtype=float)  # (S, 5)
    effective = weights * usable[..., None, :]  # (..., S, 5)
    totals = effective.sum(axis=-1)  # (..., S)
    # (..., S, 5) @ (..., 5, M): sums of halves and small integers, exact in any order
    numerators = effective @ np.swapaxes(np.where(np.isnan(metric_rank), 0, metric_rank), -1, -2)
    # equal scores <=> equal weighted sums (the divisor is shared within a scheme), compared exactly
    ranks = 1 + (numerators[..., None, :] < numerators[..., :, None]).sum(axis=-1)
    out: np.ndarray = np.where(totals[..., None] > 0, ranks, np.nan)
    return out


def rank_stability(cube: CountCube, composite: list[CompositeRow], *, resamples: int, seed: int
                   ) -> list[RankStabilityRow]:
    """Share of contract-cluster resamples of the matched cells in which each model keeps its composite rank."""
    models = [m for m in dict.fromkeys(c.model for c in composite)]
    index = [cube.models.index(m) for m in models if m in cube.models]
    if not composite or len(index) != len(models):
        return []
    matched = cube.matched  # (runs, contracts)
    population = np.flatnonzero(matched.any(axis=0))
    per_contract = (cube.counts[index].sum(axis=2) * matched[None, :, :, None]).sum(axis=1)[:, population]
    if not (cube.labelled[index] | ~matched[None]).all():
        # as in composite_ranks.sql: content metrics rank only when the judge labelled every matched cell of every
        # ranked system, else they would rest on different cells; without their counts they drop out like a null
        per_contract[..., [_C[c] for c in CONTENT_COUNTS]] = 0
    if population.size == 0:
        return [RankStabilityRow(scheme=c.scheme, model=c.model, rank=c.rank, stability=None, mean_rank=None,
                                 resamples=0) for c in composite]
    weights = cluster_weights(population.size, resamples, seed, "rank_stability")
    ranks = composite_ranks(np.tensordot(weights, per_contract, axes=([1], [1])))  # (R, S, M)
    schemes = list(SCHEMES)
    out = []
    for c in composite:
        s, m = schemes.index(c.scheme), models.index(c.model)
        drawn = ranks[:, s, m]
        defined = ~np.isnan(drawn)
        out.append(RankStabilityRow(
            scheme=c.scheme, model=c.model, rank=c.rank, resamples=resamples,
            stability=None if c.rank is None else float(np.mean(drawn == c.rank)),
            mean_rank=float(drawn[defined].mean()) if defined.any() else None))
    return out


# --- paired differences --------------------------------------------------------------------------------------


def paired_differences(cube: CountCube, a: str, b: str, *, resamples: int, seed: int
                       ) -> tuple[list[Paired], int, int]:
    """Rates of a and b on the (contract, run) cells both have, a - b, and a contract-cluster interval of the
    difference (both models on the same drawn contracts). Content rates are paired on the cells of those the judge
    labelled for both, detection rates on all of them. Returns the rows, paired contracts and paired cells."""
    ia, ib = cube.models.index(a), cube.models.index(b)
    both = cube.cells[ia] & cube.cells[ib]  # (runs, contracts)
    population = np.flatnonzero(both.any(axis=0))
    mask = np.repeat(both[:, :, None], len(COUNTS), axis=2).astype(float)  # (runs, contracts, COUNTS)
    mask[:, :, [_C[c] for c in CONTENT_COUNTS]] = (both & cube.labelled[ia] & cube.labelled[ib])[:, :, None]
    sides = [(cube.counts[i].sum(axis=1) * mask).sum(axis=0)[population] for i in (ia, ib)]
    values = [rates(side.sum(axis=0), COMPARED_METRICS) for side in sides]
    if population.size:
        weights = cluster_weights(population.size, resamples, seed, f"compare|{a}|{b}")
        diffs = rates(weights @ sides[0], COMPARED_METRICS) - rates(weights @ sides[1], COMPARED_METRICS)
        low, high = percentile_intervals(diffs)
    else:
        low = high = np.full(len(COMPARED_METRICS), np.nan)
    rows = [Paired(metric=metric, a=_none(values[0][j]), b=_none(values[1][j]),
                   diff=_none(values[0][j] - values[1][j]), ci_low=_none(low[j]), ci_high=_none(high[j]))
            for j, metric in enumerate(COMPARED_METRICS)]
    return rows, int(population.size), int(both.sum())


def unlabelled(cube: CountCube, a: str, b: str) -> list[str]:
    """Which of the two models have true positives on their paired cells of which the judge labelled none."""
    both = cube.cells[cube.models.index(a)] & cube.cells[cube.models.index(b)]
    out = []
    for model in (a, b):
        sums = (cube.counts[cube.models.index(model)].sum(axis=1) * both[:, :, None]).sum(axis=(0, 1))
        if sums[_C["tp"]] > 0 and sums[_C["judged"]] == 0:
            out.append(model)
    return out


def statistics_from(con: duckdb.DuckDBPyConnection, composite: list[CompositeRow], *, resamples: int, seed: int,
                    cluster: bool) -> Statistics:
    cube = CountCube.read(con)
    return Statistics(
        bootstrap=BootstrapSettings(unit="contract" if cluster else "instance", resamples=resamples, seed=seed),
        rate_intervals=rate_intervals(cube, resamples=resamples, seed=seed, cluster=cluster),
        run_spread=rows_of(con, "run_spread", RunSpreadRow),
        missing_summary=rows_of(con, "missing_summary", MissingSummaryRow),
        missing_by_contract=rows_of(con, "missing_by_contract", MissingByContractRow),
        clause_type_means=rows_of(con, "clause_type_means", ClauseTypeMeanRow),
        rank_stability=rank_stability(cube, composite, resamples=resamples, seed=seed),
    )
