"""The scope a suite's figures are computed in: one set of items, some runs, some models and, where a judge scores
them, one judge. Every suite declares its scope (`SuiteScope`) and `apply_scope` resolves any suite's request.

A suite's items are the contracts of a corpus (or of a stored subset of them) or the items of an item set (`items`);
its cells (`cells`) are an intermediate model with one row per model, run, set and item a partition was asked to
cover. `apply_scope` resolves a request (`ScopeRequest`) in SQL, filling the defaults (the active corpus or the item
set recorded last, every model audited on it and their runs, the suite's or the primary judge), refuses a name the
scope does not know in one line naming the known ones (`check_names`), and writes the suite's scope tables, which its
marts read: `<suite>_scope` (the set and judge), `_models`, `_runs` and `_items`. The suite declared `shared` writes
`scope`, `scope_models`, `scope_runs` and `scope_contracts`, which the packages without a scope of their own read too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    import duckdb


class ScopeError(LookupError):
    pass


class SuiteScope(BaseModel):
    """How a suite's scope is resolved: what its items are, from which cells, who judges them and how names are
    checked."""

    model_config = ConfigDict(frozen=True)

    suite: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    # `corpus`: the contracts of a corpus (`--corpus`, default the active one) or of a stored subset (`--subset`);
    # `item_set`: the items of an item set (`--item-set`, default the one recorded last) and its gold versions
    items: Literal["corpus", "item_set"] = "item_set"
    # the intermediate model of the cells: model, run, the set (`corpus_id` or `item_set`) and the item
    # (`contract_id` or `item`), with, for an item set, the `time` it was recorded
    cells: str
    judged: bool = False
    default_judge: str | None = None  # default: the primary judge
    # the model with a `judge` column (and the set's, when it is per set): who judged this suite's cells
    judgments: str | None = None
    # the model listing the suite's gold versions (`item_set`, `gold_version`, `reviewed`, `reviewable`,
    # `reviewers`, `disagreements`): a suite whose gold is reviewed (`lhl review`); its marts read
    # `<suite>_scope.gold_version`
    gold: str | None = None
    # names are checked against the platform, not the scope: a model or judge registered (or audited, or judging,
    # on another set) may be named, its figures then empty or null; a run nobody was audited in reads as nothing
    registered: bool = False
    # its tables are the unprefixed `scope*` ones, which the packages without a scope of their own read too
    shared: bool = False

    @property
    def item_column(self) -> str:
        return _NOTIONS[self.items].item

    @property
    def tables(self) -> tuple[str, str, str, str]:
        """The head (the set and the judge), models, runs and items tables."""
        prefix = "" if self.shared else f"{self.suite}_"
        return (f"{prefix}scope", f"{prefix}scope_models", f"{prefix}scope_runs",
                f"{prefix}scope_{_NOTIONS[self.items].items_table}")


class ScopeRequest(BaseModel):
    """What a user asked of a suite's scope (None: the default). Which of the item fields a suite takes its
    declaration says (`SuiteScope.items`): a corpus and subset, or an item set and gold version."""

    model_config = ConfigDict(frozen=True)

    suite: str | None = Field(default=None, description="default: the shared scope's suite")
    corpus: str | None = Field(default=None, description="corpus id or name; default: the active corpus")
    subset: str | None = None
    item_set: str | None = None
    gold_version: int | None = None
    runs: tuple[int, ...] | None = None
    models: tuple[str, ...] | None = None
    judge: str | None = Field(default=None, description="default: the suite's or the primary judge")


class ResolvedSuiteScope(BaseModel):
    """The resolved scope, as a suite's report states it (a corpus suite's set is its corpus)."""

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


@dataclass(frozen=True)
class _Notion:
    """What a suite's items are: the cells' set and item columns, the items table, the request fields it takes."""

    column: str
    item: str
    items_table: str
    fields: tuple[str, ...]


_NOTIONS = {"corpus": _Notion("corpus_id", "contract_id", "contracts", ("corpus", "subset")),
            "item_set": _Notion("item_set", "item", "items", ("item_set", "gold_version"))}
_FIELDS = {"corpus": "corpora", "subset": "subsets", "item_set": "item sets", "gold_version": "gold versions"}


@dataclass(frozen=True)
class _Set:
    """The set of items in scope: the head table's columns (name, SQL type, value; the judge's left None), its
    items, and the gold version chosen (a suite with gold)."""

    head: tuple[tuple[str, str, Any], ...]
    items: list[Any]
    gold: Mapping[str, Any]


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> Any:
    row = con.execute(sql, params or []).fetchone()
    return row[0] if row else None


def _column(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[Any]:
    return [r[0] for r in con.execute(sql, params).fetchall()]


def _name(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def refuse_unknown(kind: str, asked: Sequence[Any], known: Sequence[Any], predicate: str, label: str,
                   shown: Sequence[Any] | None = None, hint: str = "") -> None:
    """Every asked name the scope does not know, as one line naming them and the known ones (`shown`, when the
    names listed are not all that is accepted): a typo must never read as an empty scope."""
    unknown = [a for a in dict.fromkeys(asked) if a not in known]
    if not unknown:
        return
    many = len(unknown) > 1
    verb = {"is": "are", "has": "have"}.get(predicate.split(" ", 1)[0]) if many else None
    said = f"{verb} {predicate.split(' ', 1)[1]}" if verb else predicate
    listed = ", ".join(map(str, shown if shown is not None else known)) or "none"
    raise ScopeError(f"unknown {kind}{'s' if many else ''} {', '.join(map(_name, unknown))} {said}; "
                     f"{label}: {listed}{hint}")


def _corpus(con: duckdb.DuckDBPyConnection, wanted: str | None) -> tuple[str | None, str | None]:
    if wanted is None:
        row = con.execute("select corpus_id, corpus_name from int_corpora where is_active").fetchone()
        return (str(row[0]), str(row[1])) if row else (None, None)
    rows = con.execute("select corpus_id, corpus_name from int_corpora where corpus_id = ? or corpus_name = ?",
                       [wanted, wanted]).fetchall()
    if len(rows) != 1:
        known = ", ".join(f"{i} ({n})" for i, n in con.execute(
            "select corpus_id, corpus_name from int_corpora order by last_ingested").fetchall()) or "none"
        what = "matches several corpora" if rows else "is not a stored corpus"
        raise ScopeError(f"--corpus {wanted!r} {what}; stored corpora: {known}")
    return str(rows[0][0]), str(rows[0][1])


def _corpus_set(con: duckdb.DuckDBPyConnection, scope: SuiteScope, request: ScopeRequest) -> _Set:
    """The contracts of a corpus (default: the active one) or of a stored subset."""
    corpus_id, corpus_name = _corpus(con, request.corpus)
    if request.subset is not None:
        contracts = _column(con, "select distinct unnest(contract_ids) from stg_subset_created where name = ?",
                            [request.subset])
        if not contracts:
            raise ScopeError(f"no subset named {request.subset!r}; create it with `lhl subset create`")
    else:
        contracts = _column(con, f"""select contract_id from oracle where corpus_id = ?
                                     union select contract_id from {scope.cells} where corpus_id = ?""",
                            [corpus_id, corpus_id])
    head = (("corpus_id", "varchar", corpus_id), ("corpus_name", "varchar", corpus_name),
            ("subset", "varchar", request.subset), ("judge", "varchar", None))
    return _Set(head, contracts, {})


def _item_set(con: duckdb.DuckDBPyConnection, scope: SuiteScope, request: ScopeRequest) -> _Set:
    """The items of an item set (default: the one recorded last), and its gold version (default: the latest)."""
    sets = _column(con, f"select item_set from {scope.cells} group by item_set order by max(time) desc", [])
    if request.item_set is not None:
        refuse_unknown("item set", [request.item_set], sets, f"is not audited in suite {scope.suite}", "audited")
    item_set = request.item_set if request.item_set is not None else (sets[0] if sets else None)
    items = _column(con, f"select distinct item from {scope.cells} where item_set = ?", [item_set])
    gold = _gold(con, scope, request, item_set)
    head = (("item_set", "varchar", item_set), ("judge", "varchar", None),
            ("gold_version", "integer", gold.get("gold_version")))
    return _Set(head, items, gold)


def _gold(con: duckdb.DuckDBPyConnection, scope: SuiteScope, request: ScopeRequest,
          item_set: str | None) -> dict[str, Any]:
    """The gold version in scope (default: the latest) and how much of it was reviewed, by how many reviewers."""
    if scope.gold is None:
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


_CHOOSE = {"corpus": _corpus_set, "item_set": _item_set}


def _refuse_fields(scope: SuiteScope, request: ScopeRequest) -> None:
    """An item field the suite's items do not have (a corpus for an item set, a gold version without gold), or a
    judge for a suite no judge scores, is refused in one line."""
    taken = set(_NOTIONS[scope.items].fields) - ({"gold_version"} if scope.gold is None else set())
    for name in _FIELDS:
        if getattr(request, name) is not None and name not in taken:
            raise ScopeError(f"suite {scope.suite} has no {_FIELDS[name]}: --{name.replace('_', '-')} does not apply")
    if request.judge is not None and not scope.judged:
        raise ScopeError(f"suite {scope.suite} is scored without a judge: --judge does not apply")


def apply_scope(con: duckdb.DuckDBPyConnection, scope: SuiteScope, request: ScopeRequest, primary_judge: str,
                temp: bool = False) -> ResolvedSuiteScope:
    """Resolve the request in the suite's scope and write its scope tables (temporary ones over a read-only
    warehouse); an unknown name is refused in one line (`check_names`)."""
    _refuse_fields(scope, request)
    notion = _NOTIONS[scope.items]
    chosen = _CHOOSE[scope.items](con, scope, request)
    set_id = chosen.head[0][2]
    pairs = con.execute(f"select distinct model, run from {scope.cells} where {notion.column} = ? order by all",
                        [set_id]).fetchall()
    models = list(request.models) if request.models is not None else sorted({m for m, _ in pairs})
    # Default runs: every run audited on the set, of the models asked for when they are named.
    runs = list(request.runs) if request.runs is not None else sorted(
        {r for m, r in pairs if request.models is None or m in request.models})
    judge = (request.judge or scope.default_judge or primary_judge) if scope.judged else None
    kind = "temp table" if temp else "table"
    head, models_table, runs_table, items_table = scope.tables
    columns = [(c, t, judge if c == "judge" else v) for c, t, v in chosen.head]
    con.execute(f"create or replace {kind} {head} as select "
                + ", ".join(f"?::{t} as {c}" for c, t, _ in columns), [v for _, _, v in columns])
    for table, column, sql_type, values in ((models_table, "model", "varchar", models),
                                            (runs_table, "run", "integer", runs),
                                            (items_table, notion.item, "varchar", chosen.items)):
        con.execute(f"create or replace {kind} {table} as select unnest(?::{sql_type}[]) as {column}", [values])
    check_names(con, scope, primary_judge)
    return ResolvedSuiteScope(suite=scope.suite, item_set=set_id, runs=runs, models=models, judge=judge,
                              items=len(chosen.items), **chosen.gold)


def check_names(con: duckdb.DuckDBPyConnection, scope: SuiteScope | None = None,
                primary_judge: str | None = None) -> None:
    """The models, runs and judge of the scope tables (of the shared scope by default), each known to the scope: a
    model audited on its set (any model registered, for a `registered` scope), a run audited on it (any run), a
    judge that judged its cells (any registered judge). One line names the unknown value and the known ones."""
    if scope is None:
        from lhl_platform.warehouse.models import scope_of  # the models import this module

        scope = scope_of(None)
    notion = _NOTIONS[scope.items]
    head, models_table, runs_table, _ = scope.tables
    cursor = con.execute(f"select * from {head}")
    row = dict(zip([d[0] for d in cursor.description], cursor.fetchone() or (), strict=False))
    set_id = row.get(notion.column)
    where = (f"corpus {row.get('corpus_name')}" if scope.items == "corpus"
             else f"the {scope.suite} item set {set_id}")
    audited = _column(con, f"select distinct model from {scope.cells} where {notion.column} = ? order by model",
                      [set_id])
    asked = _column(con, f"select model from {models_table}", [])
    if scope.registered:
        known = _column(con, f"select model from {scope.cells} union select name from stg_model_registered", [])
        refuse_unknown("model", asked, known, "is not audited or registered", f"audited in {where}", audited,
                       "; see `lhl models list`")
    else:
        refuse_unknown("model", asked, audited, f"is not audited on {where}", "audited")
        runs = _column(con, f"select distinct run from {scope.cells} where {notion.column} = ? order by run", [set_id])
        refuse_unknown("run", _column(con, f"select run from {runs_table}", []), runs, f"is not audited on {where}",
                       "audited")
    judge = row.get("judge")
    if judge is None or scope.judgments is None and not scope.registered:
        return
    judgments = f"select distinct judge from {scope.judgments}"
    if scope.registered:
        from lhl_platform.registry import BUILTIN_JUDGE  # light to import: the catalog declares scopes with this module

        judges = sorted({*_column(con, f"{judgments} union select name from stg_model_registered "
                                        "where role = 'judge'", []),
                         *(j for j in (BUILTIN_JUDGE.name, scope.default_judge, primary_judge) if j)})
        refuse_unknown("judge", [judge], judges, "is not registered and has judged nothing", "judges",
                       hint="; register one with `lhl models add NAME --provider P --model-id ID --role judge`")
    else:
        judges = _column(con, f"{judgments} where {notion.column} = ? order by judge", [set_id])
        refuse_unknown("judge", [judge], [*judges, scope.default_judge], f"has judged nothing of {where}",
                       "judged by", judges)


def scope_key(con: duckdb.DuckDBPyConnection, scope: SuiteScope) -> str:
    """A digest of the scope tables: equal for equal resolved scopes, so the stored default scope's marts can be
    reused."""
    head, *lists = scope.tables
    resolved = [list(con.execute(f"select * from {head}").fetchone() or ()),
                *(sorted(map(str, _column(con, f"select * from {table}", []))) for table in lists)]
    return hashlib.sha256(json.dumps(resolved, default=str).encode()).hexdigest()


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


def judge_statement(row: Mapping[str, Any]) -> str | None:
    """What the scope's judge labelled of one system's true positives, from its `scope_coverage` row: the content
    figures (HalTP, HalGen, JEq, RDI) rest on the TPs it decided only; those it left undetermined, and cells added
    after its pass, are named. None when the system has no TP to label and no cell was added after a pass."""
    tp, judged, judge = row["true_positives"], row["judged_tp"], row["judge"]
    undetermined, after = row.get("undetermined_tp") or 0, row.get("cells_after_pass") or 0
    late = (f"{after} (run, contract) cell{'s' if after != 1 else ''} added after its pass, unlabelled until judged"
            if after else "")
    if not tp:
        return f"judge {judge}: {late}" if late else None
    imported = row["imported_tp"]
    who = ("its imported verdicts" if imported == judged else f"judge {judge} and its imported verdicts"
           ) if imported else f"judge {judge}"
    if undetermined:
        head = (f"{who} decided {judged} of {tp} true positives; {undetermined} undetermined (in no content figure)")
    elif judged == tp:
        head = f"{who} labelled all {tp} true positives"
    elif not judged:
        head = f"{who} labelled none of its {tp} true positives: content figures null"
    else:
        head = f"{who} labelled {judged} of {tp} true positives"
    where = []
    if judged and judged + undetermined < tp:
        covered, labelled = list(row["runs_covered"] or []), list(row["judged_runs"] or [])
        if labelled != covered:
            where.append(f"run{'s' if len(labelled) != 1 else ''} {', '.join(map(str, labelled))} of "
                         f"{', '.join(map(str, covered))}")
        if row["judged_contracts"] < row["tp_contracts"]:
            where.append(f"{row['judged_contracts']} of the {row['tp_contracts']} contracts with one")
    text = head + (f": {'; '.join(where)}" if where else "")
    return text + (f"; {late}" if late else "")


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
