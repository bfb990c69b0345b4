"""What the clause suite watches beside the headline series (`lhl_platform.monitoring`, `clause/monitor.py`): the
runs whose TPs the scope's judge labelled none of (no content figure: named, never compared as 0), and the model
versions a provider said it served, which change under a model's name without notice."""

from __future__ import annotations

from typing import Any

import duckdb
from pydantic import BaseModel


class UnjudgedRun(BaseModel):
    """A (model, run) with TPs of which the scope's judge labelled none: no content figure, so not compared."""

    model: str
    run: int
    judge: str
    tp: int


def unjudged_runs(con: duckdb.DuckDBPyConnection) -> list[UnjudgedRun]:
    """The runs without a content figure: TPs in scope, none labelled by the scope's judge."""
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
