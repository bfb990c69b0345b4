"""The verdict a report opens with (docs/method.md, section 17): the best system in scope and on what, how firmly it
holds first place, the trade-offs that change the answer, and the caveats that apply.

It is read from the sections a report already holds (the suites' leaderboards and intervals; the clause suite's
composite ranks and their stability, `lhl_platform/clause/report/verdict.py`) and adds no measurement of its own: a
null figure stays null, and where nothing can be ranked the verdict says so and names no system. Here: the verdict's
types, the rules every suite's verdict follows, and the headline ranking of a suite's leaderboard by the rule the
suite declares (`SuiteRule`, in the suite's own package, given to its reporting). Rendering is
`verdict_render.py`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from lhl_platform.report.system_nature import MEANING, SystemNature, by_model, named_in

if TYPE_CHECKING:
    from lhl_platform.report.cost import CostSection
    from lhl_platform.report.suite_report import SuiteReport

SMALL_SAMPLE = 20  # an interval resting on fewer cases than this is flagged
FIRM = 0.5  # first place kept in fewer resamples than this is not a firm ordering
LISTED = 6  # subjects a caveat names in its statement (all of them are in `subjects`)

CaveatKind = Literal["not_a_real_model", "nothing_ranked", "single_system", "tied", "unstable", "not_separated",
                     "partial", "partly_judged", "judge_failed", "judge_unvalidated", "small_sample", "self_built_gold"]


class Figure(BaseModel):
    """One figure of the best system, as its section reports it (null where nothing was measured)."""

    metric: str
    label: str
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    cases: int | None = Field(default=None, description="the cases behind the figure (its denominator), when known")
    percent: bool = True  # a rate shown in %; else a score in [0, 1] (F1, F2) shown to three decimals


class Ranked(BaseModel):
    """A ranked system: its rank, the score it is ranked by, and (clause suite) the share of resamples keeping it."""

    model: str
    rank: int
    score: float | None
    stability: float | None = None


class TradeOff(BaseModel):
    """What changes the answer: the first system is the worst ranked system on a headline metric
    (`worst_on_metric`) or the costliest per correct answer (`cost`), or another scheme puts another system first
    (`scheme`)."""

    kind: Literal["worst_on_metric", "scheme", "cost"]
    model: str
    metric: str
    label: str
    value: float | None = None
    best_model: str | None = None
    best_value: float | None = None
    baseline_model: str | None = Field(default=None, description="a debate system's backbone without the debate")
    baseline_value: float | None = None
    count: int | None = Field(default=None, description="the count behind the value (FN for FRR, FP for FAR)")
    baseline_count: int | None = None
    count_label: str | None = None
    statement: str


class Caveat(BaseModel):
    kind: CaveatKind
    statement: str
    subjects: list[str] = Field(default_factory=list)


class Verdict(BaseModel):
    """The answer a report opens with. `best` is empty when nothing can be ranked, several systems when tied."""

    suite: str
    basis: str = Field(description="what the ranking is by: the composite scheme, or the suite's headline metric")
    scheme: str | None = Field(description="the composite scheme (clause suite); null for a suite's headline ranking")
    metric: str | None = Field(description="the headline metric a suite ranks by; null for a composite")
    best: list[str]
    ranking: list[Ranked]
    stability: float | None = Field(description="share of contract-cluster resamples in which the first system "
                                                "keeps first place; null where not computed")
    resamples: int | None
    separated: bool | None = Field(description="the first system's 95% interval lies wholly above the runner-up's "
                                               "(suites); null where there is no runner-up or interval")
    figures: list[Figure] = Field(description="the first system's headline figures")
    statement: str = Field(description="the answer in one sentence")
    trade_offs: list[TradeOff]
    caveats: list[Caveat]
    checked: list[str] = Field(default_factory=list, description="what the trade-off rule weighed: the headline "
                               "figures, the cost per correct answer and (clause suite) the other schemes")
    natures: dict[str, str] = Field(default_factory=dict, description="what each ranked system is: model (a "
                                    "provider's API), algorithm, simulated, gold_reader, offline or unregistered")


def with_natures(v: Verdict, systems: Sequence[SystemNature]) -> Verdict:
    """The verdict as a reader must read it: every system not a real model named with what it is, and a first
    caveat when the first system is one (docs/method.md, section 17)."""
    natures = by_model(systems)
    out = v.model_copy(deep=True)
    seen: set[str] = set()  # each system tagged at its first mention in the verdict, read top to bottom
    out.statement = named_in(out.statement, natures, seen)
    for t in out.trade_offs:
        t.statement = named_in(t.statement, natures, seen)
    for c in out.caveats:
        c.statement = named_in(c.statement, natures, seen)
    out.natures = {r.model: natures[r.model].nature for r in out.ranking if r.model in natures}
    stand_ins = [natures[m] for m in out.best if m in natures and natures[m].stand_in]
    if stand_ins:
        out.caveats.insert(0, Caveat(
            kind="not_a_real_model", subjects=[n.model for n in stand_ins],
            statement=" ".join(f"{n.model} is not a real model: {MEANING[n.nature]}." for n in stand_ins)
            + " Its first place shows what the platform measures, not which model to choose."))
    return out


# --- shared rules ---------------------------------------------------------------------------------------------


def rate_text(value: float | None, percent: bool = True) -> str:
    if value is None:
        return "unmeasured"
    return f"{100 * value:.1f}%" if percent else f"{value:.3f}"


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:LISTED])
    return shown + (f" and {len(items) - LISTED} more" if len(items) > LISTED else "")


def joined(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class Metric:
    """A headline metric: its field, label, which way is better, and the count behind it (for the statement)."""

    name: str
    label: str
    higher_is_better: bool
    count: str | None = None
    count_label: str | None = None
    percent: bool = True  # a rate, shown in %; else a score in [0, 1] (F1, F2), shown to three decimals


def worst_on(model: str, metrics: Sequence[Metric], values: dict[str, dict[str, float | None]],
             ranked: Sequence[str], counts: dict[str, dict[str, int | None]]) -> list[TradeOff]:
    """The metrics on which `model` is the worst of the ranked systems (ties with the worst included), where the
    ranked systems do not all share one value; a null value never counts as worst or best."""
    out = []
    for m in metrics:
        known: dict[str, float] = {s: v for s in ranked if (v := values[s].get(m.name)) is not None}
        mine = known.get(model)
        if mine is None or len(known) < 2 or len(set(known.values())) < 2:
            continue
        worst = min(known.values()) if m.higher_is_better else max(known.values())
        if mine != worst:
            continue
        best_value = max(known.values()) if m.higher_is_better else min(known.values())
        best_model = next(s for s in ranked if known.get(s) == best_value)
        mine_count, best_count = counts.get(model, {}).get(m.name), counts.get(best_model, {}).get(m.name)
        both = mine_count is not None and best_count is not None
        out.append(TradeOff(
            kind="worst_on_metric", model=model, metric=m.name, label=m.label, value=mine, best_model=best_model,
            best_value=best_value, count=mine_count, count_label=m.count_label,
            statement=f"{model} is first overall but the worst of the {len(known)} ranked systems on {m.label}: "
                      f"{rate_text(mine, m.percent)} against {rate_text(best_value, m.percent)} for {best_model}"
                      + (f" ({m.count_label} {mine_count} against {best_count})" if both else "") + "."))
    return out


def costliest(model: str, cost: CostSection | None, ranked: Sequence[str]) -> tuple[list[TradeOff], str | None]:
    """Whether `model` costs the most per correct answer of the ranked systems: in USD where every ranked system's
    cost is known and not all are free, else in calls (an offline system is free, its calls are not). Returns the
    trade-off (if any) and what was weighed (None when the figure is missing for all but one system)."""
    if cost is None:
        return [], None
    rows = {r.model: r for r in cost.per_correct if r.model in ranked}
    unit = cost.unit
    usd = {m: r.cost_per_correct_usd for m, r in rows.items() if r.cost_usd is not None and r.correct}
    if len(usd) == len(ranked) and any(r.cost_usd for r in rows.values()):
        per: dict[str, float] = {m: v for m, v in usd.items() if v is not None}
        what = f"cost per {unit}"
    else:
        per = {m: r.calls / r.correct for m, r in rows.items() if r.calls is not None and r.correct}
        what = f"calls per {unit}"

    def shown(v: float) -> str:
        return f"${v:,.4f}" if what.startswith("cost") else f"{v:,.2f}"

    if len(per) < 2:
        return [], None
    mine = per.get(model)
    if mine is None or len(set(per.values())) < 2 or mine != max(per.values()):
        return [], what
    best_value = min(per.values())
    best_model = next(m for m in ranked if per.get(m) == best_value)
    row, other = rows[model], rows[best_model]
    counts = ("" if what.startswith("cost") else
              f" ({row.calls:,} calls for {row.correct:,} against {other.calls:,} for {other.correct:,})")
    return [TradeOff(kind="cost", model=model, metric="cost_per_correct", label=what, value=mine,
                     best_model=best_model, best_value=best_value,
                     statement=f"{model} is first overall but the costliest of the {len(per)} ranked systems in "
                               f"{what}: {shown(mine)} against {shown(best_value)} for {best_model}{counts}.")], what


def judge_caveat(judge: str | None, status: bool | None, what: str, shortfall: str = "") -> list[Caveat]:
    """The caveat on a judge not validated on held-out evidence: it failed a held-out set (`shortfall` says where),
    or has no held-out result in the scope."""
    if judge is None or status:
        return []
    if status is False:
        return [Caveat(kind="judge_failed", subjects=[judge],
                       statement=f"The judge {judge} FAILED held-out validation"
                                 f"{f' ({shortfall})' if shortfall else ''}: {what} rest on verdicts it has not "
                                 "shown it can give on text its rules were not written from.")]
    return [Caveat(kind="judge_unvalidated", subjects=[judge],
                   statement=f"The judge {judge} has not been validated on held-out evidence in this scope "
                             f"(judge_validated null): {what} rest on an unvalidated judge.")]


def small_sample_caveat(subjects: list[str]) -> list[Caveat]:
    if not subjects:
        return []
    return [Caveat(kind="small_sample", subjects=subjects,
                   statement=f"{len(subjects)} interval{'s rest' if len(subjects) > 1 else ' rests'} on fewer than "
                             f"{SMALL_SAMPLE} cases, so {'they are' if len(subjects) > 1 else 'it is'} wide: "
                             f"{_listed(subjects)}.")]


def none_found(v: Verdict) -> str | None:
    """The trade-off line when none was found, naming everything weighed; None when there is one, or nothing to
    weigh (no single first system among several)."""
    if v.trade_offs or len(v.ranking) < 2 or not v.best:
        return None
    weighed = joined(v.checked) if v.checked else "the headline metrics"
    return (f"none found on {weighed}: the first system is not the worst ranked system on any of them"
            + (", and every scheme puts it first" if v.scheme else ""))


def answer(best: list[str], ranking: list[Ranked], basis: str, why_none: str) -> str:
    """The answer in one sentence; `basis` is short ("under the equal scheme", "by overall recall")."""
    if not best:
        return f"Nothing can be ranked: {why_none}."
    if len(ranking) == 1:
        return f"{best[0]} is the only ranked system: there is nothing to rank it against."
    if len(best) > 1:
        return f"{joined(best)} share first place of {len(ranking)} ranked systems {basis}."
    after = [r for r in ranking if r.model not in best]
    runner = f"; next: {after[0].model} (#{after[0].rank})" if after else ""
    return f"{best[0]} is first of {len(ranking)} ranked systems {basis}{runner}."


def order_caveats(best: list[str], ranking: list[Ranked]) -> list[Caveat]:
    if len(best) == 1 and len(ranking) == 1:
        return [Caveat(kind="single_system", subjects=best,
                       statement=f"Only {best[0]} is ranked: being first says nothing about how it compares.")]
    if len(best) > 1:
        return [Caveat(kind="tied", subjects=best, statement=f"{joined(best)} tie for first place.")]
    return []


# --- a suite's headline ranking, by the rule it declares -----------------------------------------------------


@dataclass(frozen=True)
class SuiteRule:
    """How a suite's leaderboard answers "which is best": the headline metric it ranks by (the leaderboard's
    `rank`), that metric's interval, the other headline metrics, and where its intervals rest on few cases. Each
    suite declares its own in its package, given to its reporting (`report/reporting.py`, `SectionReporting`)."""

    metric: Metric
    ci: tuple[str, str]
    others: tuple[Metric, ...]
    small: Callable[[SuiteReport], list[str]]
    judged_what: str = "the figures"
    unit: str = "cases"
    gold: Callable[[SuiteReport], list[Caveat]] = field(default=lambda report: [])


def interval_cases(row: dict[str, Any]) -> int | None:
    """The count a leaderboard row's interval is drawn over (contracts, base queries, ...), where it has one."""
    from lhl_platform.report.labels import INTERVAL_BASIS

    return next((row[b] for b in INTERVAL_BASIS if isinstance(row.get(b), int)), None)


def section_rows(report: SuiteReport, section: str) -> list[dict[str, Any]]:
    """A section's rows as mappings (none when the report has no such section)."""
    return [r.model_dump() for r in report.sections.get(section, [])]


def gold_caveat(report: SuiteReport, self_built: bool, what: str) -> list[Caveat]:
    """A self-built gold is a caveat until reviewed: version 1 (as built) or a suite without gold versions is
    unreviewed; a later version reviewed in part says how much. `what` says where the gold came from."""
    sc = report.scope
    if not self_built or (sc.gold_version is not None and sc.gold_version > 1
                          and sc.gold_reviewed is not None and sc.gold_reviewed == sc.gold_reviewable):
        return []
    subjects = [str(sc.item_set)]
    if sc.gold_version is not None and sc.gold_version > 1:
        return [Caveat(kind="self_built_gold", subjects=subjects,
                       statement=f"The gold is self-built and reviewed only in part (version {sc.gold_version}: "
                                 f"{sc.gold_reviewed} of {sc.gold_reviewable} sheet rows, by {sc.gold_reviewers} "
                                 f"reviewer(s)): {what}.")]
    return [Caveat(kind="self_built_gold", subjects=subjects,
                   statement="The gold is self-built and unreviewed (as built"
                             + ("" if sc.gold_version is None else ", version 1") + f"): {what}.")]


def suite_verdict(report: SuiteReport, rule: SuiteRule | None) -> Verdict:
    """A suite's verdict from its leaderboard's headline ranking by the suite's rule (docs/method.md, section 17);
    with no rule, or no ranked leaderboard, nothing is ranked."""
    board = section_rows(report, "leaderboard")
    if rule is None or not board or "rank" not in board[0]:
        why = f"suite {report.suite} reports no ranked leaderboard"
        return Verdict(suite=report.suite, basis="no headline ranking", scheme=None, metric=None, best=[],
                       ranking=[], stability=None, resamples=None, separated=None, figures=[],
                       statement=f"Nothing can be ranked: {why}.", trade_offs=[],
                       caveats=[Caveat(kind="nothing_ranked", statement=f"Nothing can be ranked: {why}.")])
    m = rule.metric
    ranked = sorted((r for r in board if r["rank"] is not None), key=lambda r: (r["rank"], r["model"]))
    ranking = [Ranked(model=r["model"], rank=r["rank"], score=r.get(m.name)) for r in ranked]
    best = [r.model for r in ranking if r.rank == 1]
    basis = f"{m.label}, {'higher' if m.higher_is_better else 'lower'} is better, among the complete systems"
    why_none = "no system answered every call of the scope in every run (see the coverage)"
    caveats = order_caveats(best, ranking)
    if not best:
        caveats.insert(0, Caveat(kind="nothing_ranked", statement=f"Nothing can be ranked: {why_none}."))
    separated = None
    if len(best) == 1 and len(ranked) > 1:
        top, runner = ranked[0], ranked[1]
        low, high = top.get(rule.ci[0]), runner.get(rule.ci[1])
        separated = None if low is None or high is None else low > high
        if separated is False:
            caveats.append(Caveat(kind="not_separated", subjects=[top["model"], runner["model"]],
                                  statement=f"The 95% intervals of {m.label} of {top['model']} and {runner['model']} "
                                            "overlap: the data do not firmly separate first from second."))
    caveats += [Caveat(kind="partial", subjects=[r["model"]],
                       statement=f"{r['model']} is partial and not ranked: its {m.label} is null"
                                 + (f" ({r['coverage']})" if r.get("coverage") else
                                    f" ({r['missing_calls']} missing calls)" if "missing_calls" in r else "") + ".")
                for r in board if r["rank"] is None]
    if report.judged:
        caveats += judge_caveat(report.scope.judge, report.judge_validated, rule.judged_what)
    caveats += small_sample_caveat(rule.small(report))
    caveats += rule.gold(report)
    values = {r["model"]: {x.name: r.get(x.name) for x in (m, *rule.others)} for r in board}
    ranked_models = [r.model for r in ranking]
    trade_offs = [t for model in (best if len(ranking) > 1 else [])
                  for t in worst_on(model, rule.others, values, ranked_models, {})]
    checked = [x.label for x in rule.others]
    for model in best if len(ranking) > 1 else []:
        dear, weighed = costliest(model, report.cost, ranked_models)
        trade_offs += dear
        checked += [weighed] if weighed and weighed not in checked else []
    top_row = ranked[0] if len(best) == 1 else None
    figures = [] if top_row is None else [
        Figure(metric=m.name, label=m.label, value=top_row.get(m.name), ci_low=top_row.get(rule.ci[0]),
               ci_high=top_row.get(rule.ci[1]), percent=m.percent, cases=interval_cases(top_row)),
        *(Figure(metric=x.name, label=x.label, value=top_row.get(x.name), percent=x.percent) for x in rule.others)]
    return with_natures(Verdict(suite=report.suite, basis=basis, scheme=None, metric=m.name, best=best,
                                ranking=ranking, stability=None, resamples=None, separated=separated, figures=figures,
                                statement=answer(best, ranking, f"by {m.label}", why_none), trade_offs=trade_offs,
                                caveats=caveats, checked=checked), report.systems)
