"""The scope a suite's figures are computed in, for suites with items of their own (an injected set, a query set):
one item set, some runs, some models, and (where a judge scores the answers) one judge.

A suite names the intermediate model of its cells (`cells`: one row per model, run, item set and item a partition
was asked to cover, with the time it recorded that). `apply_suite_scope` resolves a request in SQL, filling the
defaults (the item set recorded last, every run and model audited on it, the suite's or the primary judge), and
writes the suite's scope tables, which its marts read: `<suite>_scope` (item set, judge), `<suite>_scope_models`,
`<suite>_scope_runs`, `<suite>_scope_items`. A model or judge the request names that the scope does not hold is an
error naming it, never an empty report.
"""

from __future__ import annotations

from typing import Any

import duckdb
from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.warehouse.scope import ScopeError


class SuiteScope(BaseModel):
    """How a suite's scope is resolved: from which cells, and whether a judge scores its answers."""

    model_config = ConfigDict(frozen=True)

    suite: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    cells: str
    judged: bool = False
    default_judge: str | None = None
    # the model with an `item_set` and a `judge` column: who judged this suite's cells (a judged suite)
    judgments: str | None = None
    # the model listing the suite's gold versions (`item_set`, `gold_version`, `reviewed`, `reviewable`,
    # `reviewers`, `disagreements`): a suite whose gold is reviewed (`lhl review`); its marts read
    # `<suite>_scope.gold_version`
    gold: str | None = None

    @property
    def tables(self) -> tuple[str, str, str, str]:
        s = self.suite
        return f"{s}_scope", f"{s}_scope_models", f"{s}_scope_runs", f"{s}_scope_items"


class SuiteScopeRequest(BaseModel):
    model_config = ConfigDict(frozen=True)

    suite: str
    item_set: str | None = None
    runs: tuple[int, ...] | None = None
    models: tuple[str, ...] | None = None
    judge: str | None = None
    gold_version: int | None = None


class ResolvedSuiteScope(BaseModel):
    """The resolved scope, as a suite's report states it."""

    suite: str
    item_set: str | None
    runs: list[int]
    models: list[str]
    judge: str | None
    items: int = Field(description="items of the item set in scope")
    gold_version: int | None = Field(default=None, description="the gold version scored (1: as recorded, before "
                                     "review); null for a suite whose gold is not reviewed")
    gold_reviewed: int | None = Field(default=None, description="rows of the review sheet decided to make it")
    gold_reviewable: int | None = Field(default=None, description="rows of that sheet")
    gold_reviewers: int | None = Field(default=None, description="reviewers whose decisions made it")


def _column(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[Any]:
    return [r[0] for r in con.execute(sql, params).fetchall()]


def apply_suite_scope(con: duckdb.DuckDBPyConnection, scope: SuiteScope, request: SuiteScopeRequest,
                      primary_judge: str, temp: bool = False) -> ResolvedSuiteScope:
    kind = "temp table" if temp else "table"
    cells = scope.cells
    sets = _column(con, f"select item_set from {cells} group by item_set order by max(time) desc", [])
    item_set = request.item_set if request.item_set is not None else (sets[0] if sets else None)
    if request.item_set is not None and request.item_set not in sets:
        raise ScopeError(f"no {scope.suite} item set named {request.item_set!r} is audited; audited: "
                         + (", ".join(sets) or "none"))
    audited_models = _column(con, f"select distinct model from {cells} where item_set = ? order by model", [item_set])
    if request.models is not None:
        unknown = [m for m in request.models if m not in audited_models]
        if unknown:
            raise ScopeError(f"{', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not audited on the "
                             f"{scope.suite} item set {item_set}; audited: {', '.join(audited_models) or 'none'}")
    models = list(request.models) if request.models is not None else audited_models
    audited_runs = _column(con, f"select distinct run from {cells} where item_set = ? order by run", [item_set])
    if request.runs is not None:
        missing = [r for r in request.runs if r not in audited_runs]
        if missing:
            raise ScopeError(f"run {', '.join(map(str, missing))} {'is' if len(missing) == 1 else 'are'} not audited "
                             f"on the {scope.suite} item set {item_set}; audited: "
                             f"{', '.join(map(str, audited_runs)) or 'none'}")
    runs = list(request.runs) if request.runs is not None else audited_runs
    if request.judge is not None:
        if not scope.judged:
            raise ScopeError(f"suite {scope.suite} is scored without a judge: --judge does not apply")
        known = _column(con, f"select distinct judge from {scope.judgments} where item_set = ? order by judge",
                        [item_set]) if scope.judgments else []
        if scope.judgments and request.judge not in known:
            raise ScopeError(f"judge {request.judge!r} has judged nothing of the {scope.suite} item set {item_set}; "
                             f"judged by: {', '.join(known) or 'none'}")
    judge = (request.judge or scope.default_judge or primary_judge) if scope.judged else None
    gold = _gold(con, scope, request, item_set)
    items = _column(con, f"select distinct item from {cells} where item_set = ?", [item_set])
    head, models_table, runs_table, items_table = scope.tables
    con.execute(f"create or replace {kind} {head} as select ?::varchar as item_set, ?::varchar as judge, "
                "?::integer as gold_version", [item_set, judge, gold.get("gold_version")])
    for table, column, sql_type, values in ((models_table, "model", "varchar", models),
                                            (runs_table, "run", "integer", runs),
                                            (items_table, "item", "varchar", items)):
        con.execute(f"create or replace {kind} {table} as select unnest(?::{sql_type}[]) as {column}", [values])
    return ResolvedSuiteScope(suite=scope.suite, item_set=item_set, runs=runs, models=models, judge=judge,
                              items=len(items), **gold)


def _gold(con: duckdb.DuckDBPyConnection, scope: SuiteScope, request: SuiteScopeRequest,
          item_set: str | None) -> dict[str, Any]:
    """The gold version in scope (default: the latest) and how much of it was reviewed, by how many reviewers."""
    if scope.gold is None:
        if request.gold_version is not None:
            raise ScopeError(f"suite {scope.suite} has no gold versions: --gold-version does not apply")
        return {}
    rows = con.execute(f"select gold_version, reviewed, reviewable, reviewers from {scope.gold} where item_set = ? "
                       "order by gold_version", [item_set]).fetchall()
    known = [r[0] for r in rows]
    if request.gold_version is not None and request.gold_version not in known:
        raise ScopeError(f"the {scope.suite} item set {item_set} has no gold version {request.gold_version}; "
                         f"versions: {', '.join(map(str, known)) or 'none'}")
    # No row: no item set in scope holds gold, so no version is claimed (null, never "version 1, none reviewed").
    chosen = next((r for r in rows if r[0] == request.gold_version), rows[-1] if rows else (None, None, None, None))
    return {"gold_version": chosen[0], "gold_reviewed": chosen[1], "gold_reviewable": chosen[2],
            "gold_reviewers": chosen[3]}
