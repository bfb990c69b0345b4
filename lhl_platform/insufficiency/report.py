"""The suite's report: its sections (Pydantic rows; `lhl publish` makes a table class of each), the F2 vs
over-flag figure, the checks on its marts and `lhl judge agree A B --suite insufficiency`.

`leaderboard` and `by_category` rows have exactly the fields of docs/formats.md section 2. The marts compute every
figure as a mean of per-item values (`insufficiency_units`); the F2 interval is the base-query bootstrap of
`intervals.py`, computed here from the same per-item values with the same seed and key as `scoring.py`, so
the report and the domain functions give the same numbers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import duckdb
from pydantic import BaseModel

from lhl_platform.home import Home
from lhl_platform.insufficiency.agreement import JudgeAgreement, judge_agreement
from lhl_platform.insufficiency.intervals import cluster_mean_interval
from lhl_platform.insufficiency.items import about_item_set
from lhl_platform.insufficiency.records import AdditionalClaim, ElementVerdict, ItemJudgment
from lhl_platform.insufficiency.scoring import CategoryRecall, LeaderboardRow, coverage_statement
from lhl_platform.insufficiency.store import load_item_set
from lhl_platform.insufficiency.validation import heldout_cases, validation_cases, validation_digest
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.stats.bootstrap import asked_bootstrap
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ScopeRequest


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    cursor = con.execute(sql, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


# Row classes --------------------------------------------------------------------------------------------

class InsufficiencyItemSetRow(BaseModel):
    """`item_set`: the set in scope and what it is, as recorded at ingestion: the shipped set is self-built (not the
    published release); an external set has its own name, source and description. Its missing elements, of which
    the required ones are gold (the seed's M_v) and the others are shown but never scored."""

    item_set: str
    name: str
    provenance: str
    self_built: bool
    base_items: int
    variants: int
    missing_elements: int
    gold_elements: int
    non_required_elements: int
    domains: int
    jurisdictions: int
    source: str
    description: str
    about: str  # what the set is, in one line (items.about_item_set)


class InsufficiencyCoverageRow(BaseModel):
    """`coverage`: per model, the cells asked for, what is missing, and the calls and cost behind the figures."""

    model: str
    runs: int
    cells: int
    responses: int
    missing_responses: int
    failed_responses: int
    judged: int
    missing_judgments: int
    dropped_identified: int
    response_calls: int
    judge_calls: int
    response_cost_usd: float | None  # None: a call of unknown cost (its model priced by neither table nor user)
    judge_cost_usd: float | None


class InsufficiencyJudgeValidationRow(BaseModel):
    """`judge_validation`: the scope's judge under the held-out gate (current: the sets shipped now). `passed` is the
    held-out set's result; the shipped set's figures (identification .. fabrication) are in-sample for the cue
    judge, reported, never validating."""

    judge: str
    validated: bool  # a validation on the current sets is recorded
    passed: bool | None
    suite_version: str | None
    cases: int | None
    unanswered: int | None
    identification: float | None
    claimed_anything_missing: float | None
    over_flag: float | None
    additional_claims_count: float | None
    explanation: float | None
    fabrication: float | None
    f2_mean_abs_diff: float | None
    required_failed: str | None
    validated_at: str | None
    gate: str | None = None
    in_sample_passed: bool | None = None
    held_out_set: str | None = None
    held_out_cases: int | None = None
    held_out_identification: float | None = None
    held_out_claimed_anything_missing: float | None = None
    held_out_over_flag: float | None = None
    held_out_additional_claims_count: float | None = None
    held_out_explanation: float | None = None
    held_out_fabrication: float | None = None
    held_out_f2_mean_abs_diff: float | None = None
    held_out_failed: str | None = None


# Section rows -----------------------------------------------------------------------------------------

def f2_intervals(con: duckdb.DuckDBPyConnection, judge: str | None) -> dict[str, tuple[float | None, float | None]]:
    """Per model, the base-query bootstrap interval of mean F2 over its variants (a base query brings all its
    variants and their runs)."""
    clusters: dict[str, dict[str, list[float | None]]] = defaultdict(lambda: defaultdict(list))
    for row in _rows(con, "select model, base_id, f2 from insufficiency_units where kind = 'variant'"):
        clusters[row["model"]][row["base_id"]].append(row["f2"])
    resamples, seed = asked_bootstrap()  # `lhl report --resamples --seed`
    return {model: cluster_mean_interval(by_item, resamples=resamples, seed=seed, key=f"{model}|{judge}|f2")
            for model, by_item in clusters.items()}


def leaderboard_rows(con: duckdb.DuckDBPyConnection) -> list[LeaderboardRow]:
    """The leaderboard mart's rows with their F2 intervals and coverage statements. An incomplete model keeps
    null figures and no interval (nothing is computed from the responses it happens to have)."""
    judge = _scope_judge(con)
    intervals = f2_intervals(con, judge)
    out = []
    for row in _rows(con, "select * from insufficiency_leaderboard"):
        items, runs = row.pop("items"), row.pop("runs")
        low, high = intervals.get(row["model"], (None, None)) if row["complete"] else (None, None)
        out.append(LeaderboardRow(**row, f2_ci_low=low, f2_ci_high=high,
                                  coverage=coverage_statement(row["judged"], row["cells"], items, runs, row["rank"])))
    return out


def category_rows(con: duckdb.DuckDBPyConnection) -> list[CategoryRecall]:
    return [CategoryRecall(**r) for r in _rows(con, "select * from insufficiency_by_category")]


def item_set_rows(con: duckdb.DuckDBPyConnection) -> list[InsufficiencyItemSetRow]:
    return [InsufficiencyItemSetRow(**r, about=about_item_set(r["provenance"], r["name"], r["source"],
                                                              r["description"]))
            for r in _rows(con, "select * from insufficiency_item_set")]


def coverage_rows(con: duckdb.DuckDBPyConnection) -> list[InsufficiencyCoverageRow]:
    return [InsufficiencyCoverageRow(**r) for r in _rows(con, "select * from insufficiency_coverage")]


def _scope_judge(con: duckdb.DuckDBPyConnection) -> str | None:
    row = con.execute("select judge from insufficiency_scope").fetchone()
    return None if row is None else row[0]


def current_validation(con: duckdb.DuckDBPyConnection) -> dict[str, Any] | None:
    """The scope judge's latest validation on the validation set and the held-out set shipped now, if any (a result
    recorded before the held-out gate, or on another held-out set, is not current)."""
    digest = validation_digest(validation_cases())
    rows = _rows(con, "select * from insufficiency_judge_validations where suite_digest = ? and held_out_digest = ?",
                 [digest, heldout_cases().digest])
    return rows[0] if rows else None


def judge_validation_rows(con: duckdb.DuckDBPyConnection) -> list[InsufficiencyJudgeValidationRow]:
    judge = _scope_judge(con)
    if judge is None:
        return []
    found = current_validation(con)
    if found is None:
        unmeasured = {k: None for k in InsufficiencyJudgeValidationRow.model_fields if k not in ("judge", "validated")}
        return [InsufficiencyJudgeValidationRow(judge=judge, validated=False, **unmeasured)]
    fields = set(InsufficiencyJudgeValidationRow.model_fields) - {"validated"}
    return [InsufficiencyJudgeValidationRow(validated=True, **{k: v for k, v in found.items() if k in fields})]


# The figure -------------------------------------------------------------------------------------------

def f2_overflag_figure(rows: Sequence[BaseModel]) -> str:
    """F2 on the variants against over-flag on the base queries, one point per model with its F2 interval: a
    model that hedges as a disposition sits right (it over-flags complete queries too)."""
    from lhl_platform.report.figures import drawn_name, model_colors, new_figure, to_svg

    board = [r for r in rows if isinstance(r, LeaderboardRow)]
    fig = new_figure(5.6, 3.8)
    ax = fig.add_subplot()
    colors = model_colors([r.model for r in board])
    for r in board:
        if r.f2 is None or r.over_flag is None:
            continue
        low = r.f2 - r.f2_ci_low if r.f2_ci_low is not None else 0.0
        high = r.f2_ci_high - r.f2 if r.f2_ci_high is not None else 0.0
        ax.errorbar([r.over_flag], [r.f2], yerr=[[low], [high]], fmt="o", color=colors[r.model], capsize=3,
                    label=drawn_name(r.model))
        right = r.over_flag > 0.5  # a label on the right half reads leftwards, inside the axes
        ax.annotate(drawn_name(r.model), (r.over_flag, r.f2), textcoords="offset points",
                    xytext=(-6, 4) if right else (6, 4), ha="right" if right else "left", fontsize=8)
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("over-flag (share of complete base queries with a claimed gap)")
    ax.set_ylabel("F2 on deficient variants (mean per item)")
    ax.grid(alpha=0.3)
    judge = board[0].judge if board else ""
    ax.set_title(f"Identification against over-flagging (judge {judge})", fontsize=9)
    return to_svg(fig)


# Checks -----------------------------------------------------------------------------------------------

def _missing(con: duckdb.DuckDBPyConnection, what: str) -> CheckOutcome:
    rows = _rows(con, "select model, run, item, reason from insufficiency_missing where missing = ?", [what])
    noun = "response" if what == "response" else "judgment by the scope's judge"
    named = "; ".join(f"{r['model']} run {r['run']} {r['item']}" + (f" ({r['reason'][:80]})" if r["reason"] else "")
                      for r in rows[:10])
    return CheckOutcome(
        name=f"{what}s_complete", passed=not rows,
        description=f"every cell in scope has a {noun}",
        summary=(f"every cell in scope has a {noun}" if not rows else
                 f"{len(rows)} without a {noun}: {named}{' ...' if len(rows) > 10 else ''}"),
        metadata={"missing": len(rows), "models": len({r["model"] for r in rows})})


def responses_complete(con: duckdb.DuckDBPyConnection) -> CheckOutcome:
    return _missing(con, "response")


def judgments_complete(con: duckdb.DuckDBPyConnection) -> CheckOutcome:
    return _missing(con, "judgment")


def comparable_scope(con: duckdb.DuckDBPyConnection) -> CheckOutcome:
    """Cross-model figures compare like with like only when every model in scope was judged on every (item, run)
    cell of the scope; this names the models that lack some (incomplete: their figures are null and they are not
    ranked)."""
    rows = _rows(con, "select model, cells, judged, complete from insufficiency_completeness order by model")
    lacking = [r for r in rows if not r["complete"]]
    cells = rows[0]["cells"] if rows else 0
    return CheckOutcome(
        name="comparable_scope", passed=not lacking,
        description="every model in scope is judged on every (item, run) cell of the scope",
        summary=(f"all {len(rows)} models judged on the same {cells} responses" if not lacking else
                 "incomplete models (figures null, not ranked): " + "; ".join(
                     f"{r['model']} lacks {r['cells'] - r['judged']} of {r['cells']}" for r in lacking[:10])),
        metadata={"models": len(rows), "models_lacking": len(lacking)})


def judge_validated(con: duckdb.DuckDBPyConnection) -> CheckOutcome:
    judge = _scope_judge(con)
    found = current_validation(con)
    judged = con.execute("select count(*) from insufficiency_judged").fetchone()
    if not judged or not judged[0]:  # nothing in scope rests on the judge
        return CheckOutcome(name="judge_validated", passed=True, description="the scope's judge passes the "
                            "hand-labelled validation set", summary=f"no response in scope is judged by {judge}",
                            metadata={"judge": judge or ""})
    if found is None:
        summary = (f"judge {judge} is not validated on the current InsufficiencyBench held-out set: its figures "
                   "rest on an unvalidated judge")
        passed = False
    elif not found["passed"]:
        sample = (" (it passes the shipped set, which its rules were written from; that does not validate it)"
                  if found["in_sample_passed"] else "")
        summary = (f"judge {judge} FAILS the held-out set {found['held_out_set']} ({found['held_out_cases']} cases; "
                   f"{found['held_out_failed'] or 'F2 difference too large'}){sample}: its figures are not reliable")
        passed = False
    else:
        summary = (f"judge {judge} passes the held-out set {found['held_out_set']} ({found['held_out_cases']} "
                   "cases)")
        passed = True
    return CheckOutcome(name="judge_validated", passed=passed, description="the scope's judge passes the "
                        "held-out validation set", summary=summary, metadata={"judge": judge or "", "gate": "held_out"})


# Judge agreement --------------------------------------------------------------------------------------

def _judgments(con: duckdb.DuckDBPyConnection, judge: str) -> list[ItemJudgment]:
    rows = _rows(con, """
        select j.* from int_insufficiency_judgments j
        semi join insufficiency_cells c on c.model = j.model and c.run = j.run and c.item = j.item
            and c.item_set = j.item_set
        where j.judge = ? and j.item_set = (select item_set from insufficiency_scope)
          and j.model in (select model from insufficiency_scope_models)
          and j.run in (select run from insufficiency_scope_runs)""", [judge])
    return [ItemJudgment(model=r["model"], run=r["run"], judge=r["judge"], item_id=r["item"],
                         identified_elements=tuple(r["identified"]),
                         additional_claims=tuple(AdditionalClaim(**c) for c in r["additional_claims"]),
                         claimed_anything_missing=r["claimed_anything_missing"],
                         elements=tuple(ElementVerdict(**e) for e in r["elements"])) for r in rows]


def measure_agreement(home: Home, a: str, b: str, request: ScopeRequest) -> JudgeAgreement:
    """Agreement of two judges on the responses both judged in scope (per-item Pearson r and MAD of F2, P, R;
    each model's F2 and recall under both; the model-level spread)."""
    with read_warehouse(home, request.model_copy(update={"judge": a})) as con:
        row = con.execute("select item_set from insufficiency_scope").fetchone()
        if row is None or row[0] is None:
            raise LookupError("no InsufficiencyBench responses are judged in scope")
        ja, jb = _judgments(con, a), _judgments(con, b)
    for judge, found in ((a, ja), (b, jb)):
        if not found:
            raise LookupError(f"judge {judge} judged no response in scope; run `lhl audit --suite insufficiency "
                              f"--judge {judge}` or `lhl import judgments`")
    return judge_agreement(load_item_set(home, row[0]), ja, jb)


def agreement_text(result: BaseModel) -> str:
    assert isinstance(result, JudgeAgreement)

    def num(value: float | None, fmt: str = ".3f") -> str:
        return "-" if value is None else format(value, fmt)

    lines = [f"{result.judge_a} vs {result.judge_b}: {result.matched} variant responses judged by both "
             f"({result.only_a} only by {result.judge_a}, {result.only_b} only by {result.judge_b})"]
    lines += [f"  {m.metric:<9} n {m.n:>4}  Pearson r {num(m.pearson_r)}  mean |diff| {num(m.mean_abs_diff)}"
              for m in result.metrics]
    lines += [f"  {m.model:<24} F2 {num(m.f2_a)} -> {num(m.f2_b)} ({num(m.f2_shift, '+.3f')})  recall "
              f"{num(m.recall_a)} -> {num(m.recall_b)} ({num(m.recall_shift, '+.3f')})" for m in result.models]
    lines += [f"  across models under {s.judge}: F2 {num(s.f2_min)}..{num(s.f2_max)} (mean {num(s.f2_mean)}), "
              f"recall {num(s.recall_min)}..{num(s.recall_max)}" for s in result.judges]
    return "\n".join(lines)
