"""The scope every number is computed in: one corpus, its contracts (or a stored subset), some runs, some
models, one judge. A request names what the user asked for; `apply_scope` resolves the defaults in SQL
(the active corpus, every audited run and model of it, all its contracts) and writes the `scope*` tables
the marts read.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import duckdb
from pydantic import BaseModel, ConfigDict, Field


class ScopeError(LookupError):
    pass


class ScopeRequest(BaseModel):
    model_config = ConfigDict(frozen=True)

    corpus: str | None = Field(default=None, description="corpus id or name; default: the active corpus")
    subset: str | None = None
    runs: tuple[int, ...] | None = None
    models: tuple[str, ...] | None = None
    judge: str | None = Field(default=None, description="default: the primary judge")


class Scope(BaseModel):
    """The resolved scope, as every report states it."""

    corpus_id: str | None
    corpus_name: str | None
    subset: str | None
    runs: list[int]
    judge: str
    models: list[str]
    contracts: int = Field(description="distinct contracts with any outcome in scope")
    matched_contracts: int = Field(description="contracts every compared model has in every selected run")


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> Any:
    row = con.execute(sql, params or []).fetchone()
    return row[0] if row else None


def _column(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[Any]:
    return [r[0] for r in con.execute(sql, params).fetchall()]


def _corpus(con: duckdb.DuckDBPyConnection, wanted: str | None) -> tuple[str, str] | None:
    if wanted is None:
        row = con.execute("select corpus_id, corpus_name from int_corpora where is_active").fetchone()
        return (str(row[0]), str(row[1])) if row else None
    rows = con.execute("select corpus_id, corpus_name from int_corpora where corpus_id = ? or corpus_name = ?",
                       [wanted, wanted]).fetchall()
    if len(rows) != 1:
        known = ", ".join(f"{i} ({n})" for i, n in con.execute(
            "select corpus_id, corpus_name from int_corpora order by last_ingested").fetchall()) or "none"
        what = "matches several corpora" if rows else "is not a stored corpus"
        raise ScopeError(f"--corpus {wanted!r} {what}; stored corpora: {known}")
    return str(rows[0][0]), str(rows[0][1])


def apply_scope(con: duckdb.DuckDBPyConnection, request: ScopeRequest, temp: bool = False) -> str:
    """Write the scope tables for this request (temporary ones over a read-only warehouse); returns a key that
    is equal for equal resolved scopes, so the stored default-scope marts can be reused."""
    kind = "temp table" if temp else "table"
    corpus = _corpus(con, request.corpus)
    corpus_id = corpus[0] if corpus else None
    if request.subset is not None:
        contracts = _column(con, "select distinct unnest(contract_ids) from stg_subset_created where name = ?",
                            [request.subset])
        if not contracts:
            raise ScopeError(f"no subset named {request.subset!r}; create it with `lhl subset create`")
    else:
        contracts = _column(con, """select contract_id from oracle where corpus_id = ?
                                    union select contract_id from int_audit_scope where corpus_id = ?""",
                            [corpus_id, corpus_id])
    runs = list(request.runs) if request.runs is not None else _column(
        con, "select distinct run from int_audit_scope where corpus_id = ? order by run", [corpus_id])
    models = list(request.models) if request.models is not None else _column(
        con, "select distinct model from int_audit_scope where corpus_id = ? order by model", [corpus_id])
    con.execute(f"create or replace {kind} scope as select ?::varchar as corpus_id, ?::varchar as corpus_name, "
                "?::varchar as subset, ?::varchar as judge",
                [corpus_id, corpus[1] if corpus else None, request.subset, request.judge or "rubric"])
    for table, column, kind_sql, values in (("scope_models", "model", "varchar", models),
                                            ("scope_runs", "run", "integer", runs),
                                            ("scope_contracts", "contract_id", "varchar", contracts)):
        con.execute(f"create or replace {kind} {table} as select unnest(?::{kind_sql}[]) as {column}", [values])
    resolved = [corpus_id, request.subset, request.judge or "rubric", sorted(models), sorted(runs), sorted(contracts)]
    return hashlib.sha256(json.dumps(resolved).encode()).hexdigest()


def resolved_scope(con: duckdb.DuckDBPyConnection) -> Scope:
    """The scope the marts were computed in, with what they actually hold."""
    corpus_id, corpus_name, subset, judge = con.execute(
        "select corpus_id, corpus_name, subset, judge from scope").fetchone()
    return Scope(
        corpus_id=corpus_id, corpus_name=corpus_name, subset=subset, judge=judge,
        runs=_column(con, "select distinct run from audit_scope order by run", []),
        models=_column(con, "select model from leaderboard order by model", []),
        # contract_counts has a row per (model, run, category, contract) with outcomes: the same contracts as
        # instance_outcomes, from a table a hundredth of its size
        contracts=int(_one(con, "select count(distinct contract_id) from contract_counts") or 0),
        matched_contracts=int(_one(con, "select count(distinct contract_id) from matched_cells") or 0))
