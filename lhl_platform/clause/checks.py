"""The clause suite's data-quality checks over its warehouse tables (whole audit, or one partition's in-memory
view): every row present, labels in the judge's vocabulary, every TP judged, no duplicate, a comparable scope, a
validated judge (change across rounds is `no_change_detected`, docs/method.md section 12). The same functions back
the Dagster asset checks and the checks section of `lhl report`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lhl_platform.domain.models import MismatchType, VerdictLabel
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.warehouse.scope import coverage_statement

if TYPE_CHECKING:
    import duckdb  # for annotations only: the connection is opened elsewhere, and importing duckdb costs ~0.1 s

MAX_NAMED = 20


def _where(model: str | None, run: int | None) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if model is not None:
        clauses.append("model = ?")
        params.append(model)
    if run is not None:
        clauses.append("run = ?")
        params.append(run)
    return (" where " + " and ".join(clauses)) if clauses else "", params


def completeness(con: duckdb.DuckDBPyConnection, model: str | None = None, run: int | None = None) -> CheckOutcome:
    """Rows complete against nominal (contracts in scope x 41); missing instances named by contract."""
    where, params = _where(model, run)
    expected = con.execute(f"select count(*) * 41 from audit_scope{where}", params).fetchone()[0]
    missing = con.execute(f"""select model, run, contract_id, count(*) as n from missing_rows{where}
                              group by all order by model, run, contract_id""", params).fetchall()
    n_missing = sum(r[3] for r in missing)
    meta: dict[str, Any] = {"nominal_instances": int(expected), "missing_rows": int(n_missing),
                            "incomplete_contracts": len({(r[0], r[2]) for r in missing})}
    persistent: list[str] = []
    any_run: list[str] = []
    if model is None or run is None:
        pwhere, pparams = _where(model, None)
        for m, cid, is_persistent, runs in con.execute(
                f"select model, contract_id, persistent, incomplete_runs from missing_by_contract{pwhere}",
                pparams).fetchall():
            label = f"{m}: {cid} (runs {', '.join(map(str, runs))})"
            (persistent if is_persistent else any_run).append(label)
        meta["persistent_contracts"] = persistent[:MAX_NAMED]
        meta["any_run_contracts"] = any_run[:MAX_NAMED]
        meta["persistent_count"], meta["any_run_count"] = len(persistent), len(any_run)
    named = [f"{m}/run {r}: {cid} ({n} missing)" for m, r, cid, n in missing[:MAX_NAMED]]
    meta["missing_by_contract"] = named
    # The rows are those of the covered cells; say what that is when the scope asked for more (a subset).
    covered = ""
    if model is None and run is None:
        no_contracts, _ = uncovered(con)
        if no_contracts:
            asked = int(con.execute("select count(*) from scope_contracts").fetchone()[0])
            covered = (f" in the {asked - no_contracts} covered of {asked} subset contracts ({no_contracts} covered by "
                       "no system)")
            meta["uncovered_subset_contracts"] = no_contracts
    summary = (f"all {expected} instances present{covered}" if n_missing == 0 else
               f"{n_missing} of {expected} instances missing{covered} in {meta['incomplete_contracts']} contract(s): "
               + "; ".join(named[:5]) + (" ..." if len(named) > 5 else ""))
    return CheckOutcome(name="rows_complete", passed=n_missing == 0, summary=summary, metadata=meta,
                        description="every contract in scope has all 41 clause types recorded")


def labels_in_domain(con: duckdb.DuckDBPyConnection, model: str | None = None, run: int | None = None) -> CheckOutcome:
    where, params = _where(model, run)
    verdicts = [v.value for v in VerdictLabel]
    mismatches = [m.value for m in MismatchType]
    cond = (f"(verdict is not null and verdict not in ({', '.join('?' * len(verdicts))}))"
            f" or (mismatch_type is not null and mismatch_type not in ({', '.join('?' * len(mismatches))}))"
            # A mismatch type exactly on a contradiction: supported and undetermined carry 'none'.
            " or ((verdict = 'contradicted') = (coalesce(mismatch_type, 'none') = 'none') and verdict is not null)"
            " or gt_present is null or predicted_present is null")
    base = f"select * from instance_outcomes{where}"
    args = params + verdicts + mismatches
    bad = con.execute(f"select model, run, contract_id, clause_type, verdict, mismatch_type from ({base}) "
                      f"where {cond} limit {MAX_NAMED}", args).fetchall()
    total = con.execute(f"select count(*) from ({base}) where {cond}", args).fetchone()[0]
    named = [f"{m}/run {r}: {c} / {t}: verdict={v!r} mismatch={mt!r}" for m, r, c, t, v, mt in bad]
    return CheckOutcome(name="labels_in_domain", passed=total == 0,
                        metadata={"bad_rows": int(total), "examples": named},
                        description="verdicts and mismatch types in the judge vocabulary and consistent",
                        summary="all labels in domain" if total == 0 else f"{total} rows out of domain: {named[0]}")


def every_tp_judged(con: duckdb.DuckDBPyConnection, model: str | None = None, run: int | None = None) -> CheckOutcome:
    """Every true positive carries a verdict of the report's judge; unlabelled ones are named by model and run."""
    where, params = _where(model, run)
    extra = (" and " if where else " where ") + "outcome = 'TP'"
    rows = con.execute(f"""select model, run, count(*) as tps, count(*) filter (where verdict is null) as unjudged
                           from instance_outcomes{where}{extra} group by model, run order by model, run""",
                       params).fetchall()
    judge = con.execute("select judge from scope").fetchone()
    tps = sum(r[2] for r in rows)
    gaps = [f"{m}/run {r}: {u} of {n} TPs" for m, r, n, u in rows if u]
    unjudged = sum(r[3] for r in rows)
    return CheckOutcome(name="every_tp_judged", passed=not gaps,
                        description="the report's judge labelled every TP of every compared model",
                        metadata={"judge": judge[0] if judge else None, "true_positives": int(tps),
                                  "unjudged": int(unjudged), "examples": gaps[:MAX_NAMED]},
                        summary=f"all {tps} TPs judged" if not gaps
                        else f"{unjudged} of {tps} TPs not labelled by judge {judge[0] if judge else '?'}: "
                             + "; ".join(gaps[:5]))


def _coverage_rows(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    cursor = con.execute("select * from scope_coverage order by model")
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def uncovered(con: duckdb.DuckDBPyConnection) -> tuple[int, list[int]]:
    """What the scope asks for that no system covers: subset contracts (the corpus's contracts are not all asked
    for unless a subset names them) and runs given with --runs."""
    subset = con.execute("select subset from scope").fetchone()
    contracts = con.execute("""select count(*) from scope_contracts
                               where contract_id not in (select contract_id from audit_scope)""").fetchone()[0]
    runs = [r for (r,) in con.execute("""select run from scope_runs where run not in (select run from audit_scope)
                                         order by run""").fetchall()]
    return (int(contracts) if subset and subset[0] else 0), runs


def comparable_scope(con: duckdb.DuckDBPyConnection, model: str | None = None, run: int | None = None) -> CheckOutcome:
    """Warns when systems cover different cells: cross-model figures then rank only the systems that cover the
    matched cells, and each other system is named with its coverage; also when a subset's contracts or a given run
    are covered by no system at all."""
    rows = _coverage_rows(con)
    subset_row = con.execute("select subset from scope").fetchone()
    subset = subset_row[0] if subset_row else None
    ranked = [r for r in rows if r["ranked"]]
    differing = [r for r in rows if r["coverage_differs"]]
    no_contracts, no_runs = uncovered(con)
    matched = rows[0]["matched_contracts"] if rows else 0
    runs = ", ".join(map(str, rows[0]["matched_runs"])) if rows else ""
    named = [coverage_statement(r, subset) for r in differing]
    gaps = ([f"{no_contracts} of the {rows[0]['contracts_asked']} subset contracts are covered by no system"]
            if no_contracts and rows else []) + ([f"run(s) {', '.join(map(str, no_runs))} covered by no system"]
                                                 if no_runs else [])
    passed = not differing and not gaps
    asked = f" of the {rows[0]['contracts_asked']} subset contracts" if rows and subset else ""
    summary = (f"all {len(rows)} systems cover the same {matched} contracts{asked} x runs {runs}" if passed else
               f"cross-model figures rank the {len(ranked)} system(s) covering the matched {matched} contracts x runs "
               f"{runs or 'none'}: " + "; ".join([*gaps, *named[:5]]) + (" ..." if len(named) > 5 else ""))
    return CheckOutcome(name="comparable_scope", passed=passed,
                        description="every system covers the matched contracts and runs, and nothing asked for is "
                                    "left uncovered",
                        metadata={"models": len(rows), "matched_contracts": int(matched),
                                  "ranked": [r["model"] for r in ranked],
                                  "not_ranked": [r["model"] for r in rows if not r["ranked"]],
                                  "differing": named[:MAX_NAMED], "uncovered_subset_contracts": no_contracts,
                                  "uncovered_runs": no_runs},
                        summary=summary)


def no_duplicate_instances(con: duckdb.DuckDBPyConnection, model: str | None = None,
                           run: int | None = None) -> CheckOutcome:
    where, params = _where(model, run)
    rows = con.execute(f"""select model, run, contract_id, clause_type, count(*) from instance_rows{where}
                           group by all having count(*) > 1 order by all""", params).fetchall()
    named = [f"{m}/run {r}: {c} / {t} x{n}" for m, r, c, t, n in rows[:MAX_NAMED]]
    return CheckOutcome(name="no_duplicate_instances", passed=not rows,
                        metadata={"duplicated": len(rows), "examples": named},
                        description="each (model, run, contract, clause type) recorded once",
                        summary="no duplicates" if not rows else f"{len(rows)} duplicated instances: {named[0]}")


def judge_validated(con: duckdb.DuckDBPyConnection, model: str | None = None, run: int | None = None) -> CheckOutcome:
    """The report's judge is validated on held-out evidence: its latest result on this corpus passed every held-out
    set shipped now (unless no audited TP needs a judge). Its in-sample result is named, and never validates."""
    judge = con.execute("select judge from scope").fetchone()
    name = judge[0] if judge else "?"
    audited = con.execute("select count(*) from instance_rows where source = 'audit' and outcome = 'TP'").fetchone()
    row = con.execute("select passed, in_sample_passed, held_out_sets, held_out_missing "
                      "from judge_validations where judge = ?", [name]).fetchone()
    meta: dict[str, Any] = {"judge": name, "gate": "held_out"}
    if not audited or not audited[0]:
        passed, summary = True, "no audited true positive in scope needs a judge"
    elif row is None:
        passed, summary = False, f"judge {name} has not been validated on this corpus: run `lhl judge validate`"
    else:
        ok, in_sample, sets, missing = row
        failing = [heldout_phrase(*r) for r in con.execute(
            """select set, family, accuracy_decided, decided, decided_share, right_mismatch
               from judge_heldout_families where judge = ? and not passed order by set, family""", [name]).fetchall()]
        meta |= {"held_out_sets": list(sets), "held_out_missing": list(missing), "in_sample_passed": in_sample,
                 "held_out_failing": failing}
        passed = bool(ok)
        sample = (" (it passes the in-sample LexFlip suite, which does not validate)" if in_sample and not ok
                  else "")
        summary = (f"judge {name} passes every held-out set ({', '.join(sets)})" if ok
                   else f"judge {name} has no result on held-out set {', '.join(missing)}: validate it again "
                        f"(`lhl judge validate --judge {name}`)" if ok is None
                   else f"judge {name} FAILS held-out validation: {'; '.join(failing)}{sample}")
    return CheckOutcome(name="judge_validated", passed=passed, summary=summary, metadata=meta,
                        description="the report's judge reads legal force on held-out evidence")


def heldout_phrase(set_name: str, family: str, accuracy: float | None, decided: int, share: float | None,
                   right: float | None) -> str:
    """A failing held-out family in one phrase: "clause-heldout-v1 force_kept: right on 0.025 of 40 decided"."""
    text = f"{set_name} {family}: right on {_share(accuracy)} of {decided} decided"
    if share is not None and share < 1:
        text += f" ({share:.0%} decided)"
    if right is not None:
        text += f", right mismatch type {_share(right)}"
    return text


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def all_checks(con: duckdb.DuckDBPyConnection, model: str | None = None, run: int | None = None) -> list[CheckOutcome]:
    return [check(con, model, run) for check in (completeness, labels_in_domain, every_tp_judged,
                                                 no_duplicate_instances, comparable_scope, judge_validated)]
