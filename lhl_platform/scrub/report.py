"""The suite's report: typed rows read from its marts (plain Pydantic; `lhl publish` makes a table class of each), the
contract-cluster recall intervals computed here from the per-call counts (`scoring.cluster_recall_intervals`,
the same code `scoring.score` uses), the per-category recall figure, the checks on the marts, the metrics
`lhl compare` pairs.

The leaderboard, coverage and per-category rows carry exactly the fields of docs/formats.md section 1; a model
with a missing call is incomplete (`scrub_coverage`): no overall figure, interval or rank, its per-category rows
kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import duckdb
from pydantic import BaseModel

from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.scrub.categories import CATEGORIES, CATEGORY_KEYS, TERM_CATEGORIES, CategoryKey
from lhl_platform.scrub.items import Finding, GoldFinding, ScrubItem
from lhl_platform.scrub.models import calibrated
from lhl_platform.scrub.scoring import (
    RecallInterval,
    cluster_recall_intervals,
    overall,
    pooled,
    score,
)
from lhl_platform.stats.bootstrap import asked_bootstrap
from lhl_platform.suites.contract import CompareMetric

SCOPE, SCOPE_MODELS, SCOPE_RUNS = "contractscrub_scope", "contractscrub_scope_models", "contractscrub_scope_runs"
OVERALL = "overall"  # the recall section's row of the mean over the nine categories


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    cursor = con.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _pick(cls: type[BaseModel], row: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    values = {**row, **extra}
    return {name: values[name] for name in cls.model_fields}


# Rows -------------------------------------------------------------------------------------------------

class ScrubLeaderboardRow(BaseModel):
    """`scrub_leaderboard`, one row per model (docs/formats.md section 1): overall figures only for a complete
    model, a rank only for a ranked one (`scrub_coverage`)."""

    model: str
    rank: int | None
    complete: bool
    runs: int
    contracts: int
    recall: float | None
    precision: float | None
    f1: float | None
    recall_ci_low: float | None
    recall_ci_high: float | None
    terms_only_recall: float | None
    terms_only_precision: float | None
    terms_only_f1: float | None
    missing_calls: int
    missing_categories: list[str]
    cost_usd: float | None


class ScrubCoverageRow(BaseModel):
    """`scrub_coverage`, one row per model: what the scope asked of it and what it answered."""

    model: str
    runs_asked: list[int]
    runs_covered: list[int]
    contracts: int
    calls_asked: int
    calls_answered: int
    missing_calls: int
    missing_categories: list[str]
    unanswered_categories: list[str]
    complete: bool
    ranked: bool


class ScrubCategoryRow(BaseModel):
    """`scrub_by_category`, one row per model and category (docs/formats.md section 1)."""

    model: str
    category: str
    gold: int
    tp: int
    fp: int
    fn: int
    recall: float | None
    precision: float | None
    f1: float | None


class ScrubRecallRow(BaseModel):
    """Recall per model and category (and overall), with its 95% contract-cluster bootstrap interval."""

    model: str
    category: str
    gold: int | None
    tp: int | None
    recall: float | None
    recall_ci_low: float | None
    recall_ci_high: float | None


class ScrubTermsOnlyRow(ScrubCategoryRow):
    """The term-only ablation per model and category (the 8 categories with a term): the same counts and rates."""


class ScrubDistanceRow(BaseModel):
    """`scrub_by_distance`: recall of incorrect section references by distance bucket."""

    model: str
    bucket: str
    gold: int
    tp: int
    recall: float | None


class ScrubUsageRow(BaseModel):
    """`scrub_usage`: calls, cost and seconds per model, and per contract and run."""

    model: str
    runs: int
    contracts: int
    calls: int | None
    failed_calls: int | None
    cost_usd: float | None
    cost_per_contract_usd: float | None
    seconds: float | None
    seconds_per_contract: float | None


class ScrubItemSetRow(BaseModel):
    """`scrub_item_set`: the item set in scope and the label it carries."""

    item_set: str
    kind: str
    origin: str
    seed: int | None
    contracts: int
    gold: int
    provenance: str


class ScrubGoldRow(BaseModel):
    """`scrub_gold`: the item set's gold per category and how it came to be."""

    category: str
    gold: int
    gold_source: str


class ScrubMissingRow(BaseModel):
    """`scrub_missing`: a (model, run, contract, category) without an answer, and why."""

    model: str
    run: int
    contract_id: str
    category: str
    reason: str | None


def _runs(runs: Sequence[int] | None) -> str:
    return "" if runs is None else f" and run in ({', '.join(str(int(r)) for r in runs)})"


def _complete(con: duckdb.DuckDBPyConnection, model: str, runs: Sequence[int] | None = None) -> bool:
    """Whether the model answered every call it was asked in scope (optionally in some runs): only then has it
    overall figures."""
    found = con.execute(f"select count(*) from scrub_missing where model = ?{_runs(runs)}", [model]).fetchone()
    return found is not None and found[0] == 0


def _intervals(con: duckdb.DuckDBPyConnection, model: str, runs: Sequence[int] | None = None,
               ) -> dict[str | None, RecallInterval]:
    """A model's recall intervals over the contracts it was asked to scrub in scope (optionally some runs); none of
    the overall recall where it has a missing call."""
    resamples, seed = asked_bootstrap()  # `lhl report --resamples --seed`
    where = _runs(runs)
    cells = con.execute(f"select unit, category, gold, tp from scrub_units where model = ?{where}", [model]).fetchall()
    contracts = [r[0] for r in con.execute(
        f"select distinct item from scrub_cells where item_set = (select item_set from {SCOPE}) and model = ? "
        f"and run in (select run from {SCOPE_RUNS}){where}", [model]).fetchall()]
    found = cluster_recall_intervals([(str(u), str(c), int(g), int(t)) for u, c, g, t in cells], contracts,
                                     resamples=resamples, seed=seed, key=f"contractscrub|{model}",
                                     complete=_complete(con, model, runs))
    return {i.category: i for i in found}


def leaderboard_rows(con: duckdb.DuckDBPyConnection) -> list[ScrubLeaderboardRow]:
    out = []
    for row in _rows(con, "select * from scrub_leaderboard"):
        interval = _intervals(con, row["model"])[None]
        out.append(ScrubLeaderboardRow(**_pick(ScrubLeaderboardRow, row, recall_ci_low=interval.low,
                                               recall_ci_high=interval.high)))
    return out


def coverage_rows(con: duckdb.DuckDBPyConnection) -> list[ScrubCoverageRow]:
    return [ScrubCoverageRow(**_pick(ScrubCoverageRow, r)) for r in _rows(con, "select * from scrub_coverage")]


def category_rows(con: duckdb.DuckDBPyConnection) -> list[ScrubCategoryRow]:
    return [ScrubCategoryRow(**_pick(ScrubCategoryRow, r)) for r in _rows(con, "select * from scrub_by_category")]


def recall_rows(con: duckdb.DuckDBPyConnection) -> list[ScrubRecallRow]:
    out = []
    board = {r["model"]: r for r in _rows(con, "select model, recall from scrub_leaderboard")}
    for model in board:
        intervals = _intervals(con, model)
        out.append(ScrubRecallRow(model=model, category=OVERALL, gold=None, tp=None, recall=board[model]["recall"],
                                  recall_ci_low=intervals[None].low, recall_ci_high=intervals[None].high))
        for r in _rows(con, "select category, gold, tp, recall from scrub_by_category where model = ? "
                            "order by position", [model]):
            i = intervals[r["category"]]
            out.append(ScrubRecallRow(model=model, category=r["category"], gold=r["gold"], tp=r["tp"],
                                      recall=r["recall"], recall_ci_low=i.low, recall_ci_high=i.high))
    return out


def terms_only_rows(con: duckdb.DuckDBPyConnection) -> list[ScrubTermsOnlyRow]:
    return [ScrubTermsOnlyRow(model=r["model"], category=r["category"], gold=r["terms_gold"] or 0,
                              tp=r["terms_tp"] or 0, fp=r["terms_fp"] or 0, fn=r["terms_fn"] or 0,
                              recall=r["terms_recall"], precision=r["terms_precision"], f1=r["terms_f1"])
            for r in _rows(con, "select * from scrub_by_category where has_terms order by model, position")]


def distance_rows(con: duckdb.DuckDBPyConnection) -> list[ScrubDistanceRow]:
    return [ScrubDistanceRow(**_pick(ScrubDistanceRow, r)) for r in _rows(con, "select * from scrub_by_distance")]


def usage_rows(con: duckdb.DuckDBPyConnection) -> list[ScrubUsageRow]:
    return [ScrubUsageRow(**_pick(ScrubUsageRow, r)) for r in _rows(con, "select * from scrub_usage")]


def item_set_rows(con: duckdb.DuckDBPyConnection) -> list[ScrubItemSetRow]:
    return [ScrubItemSetRow(**_pick(ScrubItemSetRow, r)) for r in _rows(con, "select * from scrub_item_set")]


def gold_rows(con: duckdb.DuckDBPyConnection) -> list[ScrubGoldRow]:
    return [ScrubGoldRow(**_pick(ScrubGoldRow, r)) for r in _rows(con, "select * from scrub_gold")]


def missing_rows(con: duckdb.DuckDBPyConnection) -> list[ScrubMissingRow]:
    return [ScrubMissingRow(**_pick(ScrubMissingRow, r)) for r in _rows(con, "select * from scrub_missing")]


# The figure ---------------------------------------------------------------------------------------------

def recall_figure(rows: Sequence[BaseModel]) -> str:
    """Recall per category (and their mean, over the categories with gold) for every model, with 95%
    contract-cluster intervals."""
    from lhl_platform.report.figures import Estimate, forest_plot, new_figure, to_svg

    recall = [r for r in rows if isinstance(r, ScrubRecallRow)]
    models = list(dict.fromkeys(r.model for r in recall))
    counted = len({r.category for r in recall if r.category != OVERALL and r.recall is not None})
    label: dict[str, str] = {OVERALL: f"overall (mean of {counted})", **{c.key: c.title for c in CATEGORIES}}
    groups = [OVERALL, *CATEGORY_KEYS]
    estimates = [Estimate(group=label[r.category], model=r.model, value=r.recall, low=r.recall_ci_low,
                          high=r.recall_ci_high) for r in recall]
    fig = new_figure(7.6, 0.9 + 0.26 * len(groups) * (len(models) + 1))
    ax = fig.add_subplot()
    forest_plot(ax, estimates, [label[g] for g in groups], models, scale=1.0, zero_line=False,
                xlabel="recall, 95% contract-cluster bootstrap interval")
    ax.set_xlim(-0.02, 1.02)
    ax.set_title("ContractScrub: recall per category", fontsize=9)
    return to_svg(fig)


# Checks -------------------------------------------------------------------------------------------------

def calls_complete(con: duckdb.DuckDBPyConnection) -> CheckOutcome:
    rows = _rows(con, "select model, run, contract_id, category, reason from scrub_missing")
    named = "; ".join(f"{r['model']} run {r['run']} {r['contract_id']}/{r['category']}"
                      + (f" ({r['reason'][:80]})" if r["reason"] else " (never answered)") for r in rows[:10])
    return CheckOutcome(
        name="calls_complete", passed=not rows,
        description="every (model, run, contract, category) in scope has an answer; a missing call is left out of "
                    "every figure, never read as an empty answer",
        summary=("every call in scope answered" if not rows else
                 f"{len(rows)} missing call(s): {named}{' ...' if len(rows) > 10 else ''}"),
        metadata={"missing_calls": len(rows), "models": len({r["model"] for r in rows})})


def _scope_items(con: duckdb.DuckDBPyConnection) -> list[ScrubItem]:
    gold: dict[str, list[GoldFinding]] = {}
    for r in _rows(con, f"select contract_id, category, term, location, wrong, correct, location_2 from "
                        f"int_scrub_gold where item_set = (select item_set from {SCOPE}) order by all"):
        contract = r.pop("contract_id")
        gold.setdefault(contract, []).append(GoldFinding(**{k: v for k, v in r.items() if v is not None}))
    contracts = [r[0] for r in con.execute(f"select distinct contract_id from stg_scrub_item where item_set = "
                                           f"(select item_set from {SCOPE}) order by 1").fetchall()]
    return [ScrubItem(contract_id=c, text="", gold=tuple(gold.get(c, ()))) for c in contracts]


def gold_scores_itself(con: duckdb.DuckDBPyConnection) -> CheckOutcome:
    """The scope's gold, answered with itself, scores 1.0 in every category that has gold (scoring.score, the
    code that scores every call); and a `perfect` calibration model in scope scores 1.0 through the marts."""
    items = _scope_items(con)
    problems: list[str] = []
    if items:
        answers = {(1, i.contract_id, c): [Finding(category=g.category, **g.fields()) for g in i.gold
                                           if g.category == c] for i in items for c in CATEGORY_KEYS}
        problems += [f"gold against itself: {r.category} R/P/F1 {r.recall}/{r.precision}/{r.f1}"
                     for r in score(items, answers).by_category
                     if r.gold and (r.recall, r.precision, r.f1) != (1.0, 1.0, 1.0)]
    perfect = [r[0] for r in con.execute(
        f"select m.model from {SCOPE_MODELS} m join int_model_prices p on p.name = m.model "
        "where p.provider = 'offline' and p.model_id = ?", [calibrated("perfect")]).fetchall()]
    for model in perfect:
        for r in _rows(con, "select category, recall, precision, f1 from scrub_by_category where model = ? and "
                            "gold > 0", [model]):
            if (r["recall"], r["precision"], r["f1"]) != (1.0, 1.0, 1.0):
                problems.append(f"{model} (the gold itself): {r['category']} R/P/F1 {r['recall']}/{r['precision']}/"
                                f"{r['f1']}")
    with_gold = sum(1 for c in CATEGORY_KEYS if any(g.category == c for i in items for g in i.gold))
    if not items:
        summary = "no item set in scope"
    elif problems:
        summary = "; ".join(problems[:5])
    else:
        summary = f"gold scores 1.0 against itself in all {with_gold} categories with gold"
        summary += f"; {', '.join(perfect)} scores 1.0 through the marts" if perfect else ""
    return CheckOutcome(
        name="gold_scores_itself", passed=not problems,
        description="the scope's gold scored against itself is 1.0 in every category with gold (and a perfect "
                    "calibration model in scope scores 1.0 through the marts)",
        summary=summary,
        metadata={"contracts": len(items), "categories_with_gold": with_gold, "perfect_models": len(perfect)})


# Paired compare ----------------------------------------------------------------------------------------

def refuse_incomplete(rows: Sequence[Mapping[str, Any]]) -> None:
    """One model's rows of `scrub_compare_units` on the units paired: with a missing call among them, a ValueError
    naming the model and the categories of its missing calls (an incomplete system has no overall figure)."""
    missing = [r for r in rows if not r["answered"]]
    if missing:
        categories = [c for c in CATEGORY_KEYS if any(r["category"] == c for r in missing)]
        raise ValueError(f"{missing[0]['model']} is incomplete on the contracts and runs compared: "
                         f"{len(missing)} missing call(s) in {', '.join(categories)}; an incomplete system has no "
                         "overall figure to compare (its coverage: `lhl report --suite contractscrub`)")


def _macro(name: str, figure: str, terms: bool = False) -> CompareMetric:
    """The overall figure (mean over categories) of the rows drawn, pooled per category as the marts pool; a model
    with a missing call among them is refused (`refuse_incomplete`)."""
    categories: list[CategoryKey] = [c.key for c in (TERM_CATEGORIES if terms else CATEGORIES)]

    def value(rows: Sequence[Mapping[str, Any]]) -> float | None:
        refuse_incomplete(rows)
        if terms:
            counts = [(r["category"], r["terms_gold"], r["terms_predicted"], r["terms_tp"]) for r in rows
                      if r["terms_gold"] is not None]
        else:
            counts = [(r["category"], r["gold"], r["predicted"], r["tp"]) for r in rows]
        found: float | None = getattr(overall(pooled(counts, categories)), figure)
        return found

    return CompareMetric(name, value)


COMPARE = (_macro("recall", "recall"), _macro("precision", "precision"), _macro("f1", "f1"),
           _macro("terms_only_recall", "recall", terms=True))
