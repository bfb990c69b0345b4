"""The scope every number is computed in: one corpus, its contracts (or a stored subset), some runs, some
models, one judge. A request names what the user asked for; `apply_scope` resolves the defaults in SQL
(the active corpus, every audited run and model of it, all its contracts) and writes the `scope*` tables
the marts read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    import duckdb


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
    contracts: int = Field(description="distinct contracts some system in scope covers")
    matched_contracts: int = Field(description="contracts of the matched cells, on which cross-model figures rank "
                                               "the systems that cover them")


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
    # Default runs: every run audited on the corpus, for the models asked for when they are named.
    runs = list(request.runs) if request.runs is not None else _column(
        con, "select distinct run from int_audit_scope where corpus_id = ? "
             "and (?::boolean or list_contains(?::varchar[], model)) order by run",
        [corpus_id, request.models is None, list(request.models or [])])
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
        contracts=int(_one(con, "select count(distinct contract_id) from audit_scope") or 0),
        matched_contracts=int(_one(con, "select count(distinct contract_id) from matched_cells") or 0))


def known_judges(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The built-in judge, every judge ever registered, and every judge with a recorded verdict."""
    return _column(con, """select 'rubric' union select name from stg_model_registered where role = 'judge'
                           union select judge from stg_verdicts union select judge from stg_debate_verdicts
                           order by 1""", [])


def check_names(con: duckdb.DuckDBPyConnection) -> None:
    """An unknown judge or model in the scope is an error naming it: a typo must never read as a model that makes
    no mistakes (a judge nobody registered has labelled nothing) or as an empty audit."""
    judge = str(_one(con, "select judge from scope"))
    judges = known_judges(con)
    if judge not in judges:
        raise ScopeError(f"unknown judge {judge!r} (judges: {', '.join(judges)}); register one with "
                         "`lhl models add NAME --provider P --model-id ID --role judge`")
    unknown = _column(con, """select model from scope_models
                              where model not in (select model from int_audit_scope union select model from stg_imports
                                                  union select name from stg_model_registered)
                              order by model""", [])
    if unknown:
        corpus = _one(con, "select corpus_name from scope")
        audited = _column(con, "select distinct model from int_audit_scope where corpus_id = (select corpus_id from "
                               "scope) order by model", [])
        raise ScopeError(f"unknown model{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} (audited "
                         f"in corpus {corpus}: {', '.join(audited) or 'none'}); see `lhl models list`")


def judge_statement(row: Mapping[str, Any]) -> str | None:
    """What the scope's judge labelled of one system's true positives, from its `scope_coverage` row: the content
    figures (HalTP, HalGen, JEq, RDI) rest on those cells only. None when the system has no TP to label."""
    tp, judged, judge = row["true_positives"], row["judged_tp"], row["judge"]
    if not tp:
        return None
    imported = row["imported_tp"]
    who = ("its imported verdicts" if imported == judged else f"judge {judge} and its imported verdicts"
           ) if imported else f"judge {judge}"
    if judged == tp:
        return f"{who} labelled all {tp} true positives"
    if not judged:
        return f"{who} labelled none of its {tp} true positives: content figures null"
    covered, labelled = list(row["runs_covered"] or []), list(row["judged_runs"] or [])
    where = []
    if labelled != covered:
        where.append(f"run{'s' if len(labelled) != 1 else ''} {', '.join(map(str, labelled))} of "
                     f"{', '.join(map(str, covered))}")
    if row["judged_contracts"] < row["tp_contracts"]:
        where.append(f"{row['judged_contracts']} of the {row['tp_contracts']} contracts with one")
    return f"{who} labelled {judged} of {tp} true positives" + (f": {'; '.join(where)}" if where else "")


def coverage_statement(row: Mapping[str, Any], subset: str | None) -> str:
    """One system's coverage of the scope as one line, from its `scope_coverage` row: what the scope asks for, what
    the system covers and lacks, its missing rows, whether the cross-model figures rank it (else the scope that
    does), and what the scope's judge labelled of its true positives."""
    asked = row["contracts_asked"]
    what = f"subset {subset} contracts" if subset else "corpus contracts"
    runs_asked, runs_covered = list(row["runs_asked"] or []), list(row["runs_covered"] or [])
    runs = (f"run{'s' if len(runs_covered) != 1 else ''} {', '.join(map(str, runs_covered)) or 'none'}"
            + ("" if runs_covered == runs_asked else f" of {', '.join(map(str, runs_asked)) or 'none'}"))
    parts = [f"{row['contracts_covered']} of {asked} {what}"
             + ("" if row["contracts_complete"] == row["contracts_covered"] or runs_covered != runs_asked
                else f" ({row['contracts_complete']} in every run)"), runs]
    if row["missing_rows"]:
        parts.append(f"{row['missing_rows']} of {row['nominal_rows']} rows missing")
    if row["ranked"]:
        parts.append("ranked" + (f" (covers {row['cells'] - row['matched_cells']} cells beyond the matched ones)"
                                 if row["coverage_differs"] else ""))
    else:
        parts.append(f"partial, not ranked: lacks matched cells (the matched set is {row['matched_contracts']} "
                     f"contracts x runs {', '.join(map(str, row['matched_runs']))})" if row["matched_cells"]
                     else "not ranked: no cell is covered by every system")
        if row["own_scope"]:  # a scope in which no system covers a cell it lacks, so it is ranked there
            own = f"--subset {row['own_subset']} " if row["own_subset"] else ""
            parts.append(f"its own scope: `lhl report {own}--runs {','.join(map(str, runs_covered))}`")
        elif row["cells"]:
            parts.append("no stored subset of its contracts ranks it (`lhl subset create NAME --contracts FILE` "
                         "stores one for its own scope)")
    judging = judge_statement(row)
    if judging:
        parts.append(judging)
    return f"{row['model']}: " + "; ".join(parts)
