"""Post-deployment drift: does a model's newest audit round still look like its earlier ones?

For every model with at least two runs the scope's judge labelled, the newest such run is compared with the
earlier ones pooled (the baseline), overall and per category, on HalTP and on RDI, over the TPs the judge
labelled. Each side gets a 95% bootstrap interval (HalTP: binomial resampling of its judged TPs; RDI:
multinomial resampling of its contradictions); the metric has drifted when the two intervals do not overlap and
each side holds at least MIN_UNITS units. A run whose TPs the judge labelled none of has no content figure: it is
named as not comparable, never compared as 0; so is a comparison with a null side.
"""

from __future__ import annotations

from typing import Any

import duckdb
from pydantic import BaseModel

from lhl_platform.stats.bootstrap import DEFAULT_RESAMPLES, proportion_interval, rdi_interval


class DriftRow(BaseModel):
    model: str
    category: str | None
    metric: str
    baseline_runs: int
    newest_run: int
    baseline: float | None
    baseline_low: float | None
    baseline_high: float | None
    newest: float | None
    newest_low: float | None
    newest_high: float | None
    drifted: bool
    comparable: bool = True  # both sides have a value: a null side is reported, never compared


class UnjudgedRun(BaseModel):
    """A (model, run) with TPs of which the scope's judge labelled none: no content figure, so not compared."""

    model: str
    run: int
    judge: str
    tp: int


def _side(values: dict[str, Any], metric: str, resamples: int, seed: int, key: str
          ) -> tuple[float | None, float | None, float | None]:
    if metric == "hal_tp":
        n, k = int(values["judged"]), int(values["contradicted"])
        low, high = proportion_interval(k, n, resamples=resamples, seed=seed, key=key)
        return (k / n if n else None), low, high
    n = int(values["contradicted"])
    low, high = rdi_interval(int(values["extra"]), int(values["missing"]), n, resamples=resamples, seed=seed, key=key)
    return ((int(values["extra"]) - int(values["missing"])) / n if n else None), low, high


# Fewer units than this on either side (TPs for HalTP, contradictions for RDI) and the intervals say more about
# the sample than about the model: such a comparison is reported but never called drift.
MIN_UNITS = 20


def _units(values: dict[str, Any], metric: str) -> int:
    return int(values["judged"] if metric == "hal_tp" else values["contradicted"])


def _apart(a_low: float | None, a_high: float | None, b_low: float | None, b_high: float | None) -> bool:
    """Two intervals that both exist and do not overlap."""
    if a_low is None or a_high is None or b_low is None or b_high is None:
        return False
    return b_low > a_high or b_high < a_low


def drift(con: duckdb.DuckDBPyConnection, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> list[DriftRow]:
    cursor = con.execute("select * from drift_cells")
    names = [d[0] for d in cursor.description]
    cells = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    grouped: dict[tuple[str, str | None], dict[bool, dict[str, Any]]] = {}
    for cell in cells:
        grouped.setdefault((cell["model"], cell["category"]), {})[bool(cell["is_newest"])] = cell
    out = []
    for (model, category), sides in grouped.items():
        if True not in sides or False not in sides:
            continue
        for metric in ("hal_tp", "rdi"):
            key = f"{model}|{category}|{metric}"
            base = _side(sides[False], metric, resamples, seed, key + "|baseline")
            new = _side(sides[True], metric, resamples, seed, key + "|newest")
            comparable = base[0] is not None and new[0] is not None
            enough = min(_units(sides[False], metric), _units(sides[True], metric)) >= MIN_UNITS
            separated = comparable and enough and _apart(base[1], base[2], new[1], new[2])
            out.append(DriftRow(model=model, category=category, metric=metric,
                                baseline_runs=int(sides[True]["n_runs"]) - 1, newest_run=int(sides[True]["newest"]),
                                baseline=base[0], baseline_low=base[1], baseline_high=base[2],
                                newest=new[0], newest_low=new[1], newest_high=new[2], drifted=separated,
                                comparable=comparable))
    return out


def unjudged_runs(con: duckdb.DuckDBPyConnection) -> list[UnjudgedRun]:
    """The runs drift leaves out: TPs in scope, none labelled by the scope's judge (`drift_cells` skips them)."""
    rows = con.execute("""select model, run, (select judge from scope), tp from metric_cube
                          where level = 'run' and tp > 0 and judged = 0 order by model, run""").fetchall()
    return [UnjudgedRun(model=m, run=int(r), judge=str(j), tp=int(t)) for m, r, j, t in rows]


# Per (model, run): the model versions the provider said it served. Null until model.call events record
# the response's model field (`served_model`).
_SERVED = """
select model, run, count(*) as calls, count(served_model) as recorded,
       list(distinct served_model order by served_model) filter (where served_model is not null) as served
from int_calls
where stage = 'extraction' and completed
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
