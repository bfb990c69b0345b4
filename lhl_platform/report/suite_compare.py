"""`lhl compare A B --suite NAME`: two models paired on the units (contracts, items) and runs both have, with
unit-cluster bootstrap intervals of their difference. Every draw resamples the shared units once (or the suite's
clusters of them, `Suite.cluster`) and computes each metric on both models' rows of that draw, so a difference's
interval reflects the same instances."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
from pydantic import BaseModel

from lhl_platform.home import Home
from lhl_platform.report.bootstrap import Paired
from lhl_platform.stats import nan_to_null
from lhl_platform.suites.contract import Suite
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ScopeRequest


class SuiteComparison(BaseModel):
    suite: str
    a: str
    b: str
    runs: list[int]
    units: int
    clusters: int  # what the bootstrap draws: units, or groups of them (`cluster`)
    cluster: str
    resamples: int
    seed: int
    metrics: list[Paired]
    # the gold version compared on (a suite whose gold is reviewed, `lhl review`) and how much of it was reviewed
    gold_version: int | None = None
    gold_reviewed: int | None = None
    gold_reviewable: int | None = None
    gold_reviewers: int | None = None


def compare_in_suite(home: Home, suite: Suite, a: str, b: str, request: ScopeRequest | None = None, *,
                     resamples: int = 2000, seed: int = 0) -> SuiteComparison:
    if not suite.units or not suite.compare:
        raise ValueError(f"suite {suite.name} has no paired comparison")
    scope = (request or ScopeRequest(suite=suite.name)).model_copy(update={"models": (a, b)})
    with read_warehouse(home, scope) as con:
        cursor = con.execute(f"select * from {suite.units} where model in (?, ?)", [a, b])
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, (nan_to_null(v) for v in row), strict=True)) for row in cursor.fetchall()]
        gold: dict[str, Any] = {}
        if suite.scope is not None and suite.scope.gold is not None:
            found = con.execute("select g.gold_version, g.reviewed, g.reviewable, g.reviewers "
                                f"from {suite.scope.gold} g join {suite.name}_scope s on g.item_set = s.item_set "
                                "and g.gold_version = s.gold_version").fetchone()
            if found is not None:
                gold = dict(zip(("gold_version", "gold_reviewed", "gold_reviewable", "gold_reviewers"), found,
                                strict=True))
    by_model: dict[str, dict[tuple[Any, Any], list[dict[str, Any]]]] = {a: defaultdict(list), b: defaultdict(list)}
    for row in rows:
        by_model[row["model"]][(row["run"], row["unit"])].append(row)
    shared = sorted(set(by_model[a]) & set(by_model[b]), key=lambda k: (k[0], str(k[1])))
    if not shared:
        raise LookupError(f"{a} and {b} share no unit in scope of suite {suite.name}; audit both on the same items")
    # The bootstrap draws clusters: a unit, or the units the suite says are not independent (`Suite.cluster`: an
    # InsufficiencyBench base query with its variants), every shared cell of a drawn cluster coming with it.
    group = {(row["run"], row["unit"]): row[suite.cluster] if suite.cluster else row["unit"] for row in rows}
    units = sorted({group[k] for k in shared}, key=str)
    cells: dict[Any, list[tuple[Any, Any]]] = defaultdict(list)
    for k in shared:
        cells[group[k]].append(k)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(units), size=(resamples, len(units)))
    metrics = []
    for metric in suite.compare:
        def value(model: str, picked: list[Any], metric: Any = metric) -> float | None:
            found: float | None = metric.value([r for u in picked for k in cells[u] for r in by_model[model][k]])
            return found

        va, vb = value(a, units), value(b, units)
        diffs = []
        for draw in draws:
            picked = [units[i] for i in draw]
            x, y = value(a, picked), value(b, picked)
            if x is not None and y is not None:
                diffs.append(x - y)
        low, high = (float(np.percentile(diffs, 2.5)), float(np.percentile(diffs, 97.5))) if diffs else (None, None)
        metrics.append(Paired(metric=metric.name, a=va, b=vb,
                                    diff=None if va is None or vb is None else va - vb, ci_low=low, ci_high=high))
    return SuiteComparison(suite=suite.name, a=a, b=b, runs=sorted({r for r, _ in shared}),
                           units=len({u for _, u in shared}), clusters=len(units), cluster=suite.cluster or "unit",
                           resamples=resamples, seed=seed, metrics=metrics, **gold)


def render_suite_comparison(c: SuiteComparison, fmt: str) -> str:
    if fmt == "json":
        return c.model_dump_json(indent=2)
    from lhl_platform.report.layout import text_table

    def num(v: float | None, signed: bool = False) -> str:
        return "-" if v is None else (f"{v:+.3f}" if signed else f"{v:.3f}")

    drawn = "unit-cluster" if c.cluster == "unit" else f"{c.cluster}-cluster ({c.clusters} clusters)"
    head = (f"{c.a} vs {c.b} in suite {c.suite}: paired on {c.units} shared units, runs "
            f"{', '.join(map(str, c.runs))}; 95% {drawn} bootstrap ({c.resamples} resamples, seed {c.seed})")
    if c.gold_version is not None:
        head += f"; gold version {c.gold_version}" + (" (as built, not reviewed)" if c.gold_version == 1 else
                                                      f" ({c.gold_reviewed} of {c.gold_reviewable} sheet rows "
                                                      f"reviewed, by {c.gold_reviewers} reviewer(s))")
    table = text_table(["metric", c.a, c.b, "diff", "95% CI"],
                   [[m.metric, num(m.a), num(m.b), num(m.diff, True),
                     f"[{num(m.ci_low, True)}, {num(m.ci_high, True)}]"] for m in c.metrics], fmt == "md")
    return f"{head}\n\n{table}\n"
