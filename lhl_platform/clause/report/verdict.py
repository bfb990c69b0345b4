"""The clause report's verdict (docs/method.md, section 17): the best system under one composite scheme, how firmly it
keeps first place over the contract-cluster resamples, the trade-offs (a headline metric it is worst on, and what
the debate did to its backbone; another scheme's first system) and the caveats. The verdict's types and the rules
every suite's verdict follows are `report/verdict.py`'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from lhl_platform.clause.report.stats import COMPOSITE_METRICS, SCHEMES
from lhl_platform.report.verdict import (
    FIRM,
    SMALL_SAMPLE,
    Caveat,
    Figure,
    Metric,
    Ranked,
    TradeOff,
    Verdict,
    answer,
    costliest,
    joined,
    judge_caveat,
    order_caveats,
    rate_text,
    small_sample_caveat,
    with_natures,
    worst_on,
)

if TYPE_CHECKING:
    from lhl_platform.clause.report.rows import Report

CLAUSE_METRICS = (Metric("far", "FAR", False, "fp", "FP"), Metric("frr", "FRR", False, "fn", "FN"),
                  Metric("acc", "Acc", True), Metric("hal_tp", "HalTP", False, "contradicted", "contradicted"),
                  Metric("hal_gen", "HalGen", False), Metric("jeq", "JEq", True))
_LABELS = {m.name: m.label for m in CLAUSE_METRICS}
DEBATE = "+debate"


class _Named(Protocol):
    @property
    def model(self) -> str: ...


Ranked_ = TypeVar("Ranked_", bound=_Named)


def scheme_basis(scheme: str) -> str:
    weights = SCHEMES[scheme]
    used = [(_LABELS[m], w) for m, w in zip(COMPOSITE_METRICS, weights, strict=True) if w]
    return (f"composite rank under the {scheme} scheme: " + ", ".join(label for label, _ in used)
            + (f" weighted {':'.join(str(w) for _, w in used)}" if len(used) > 1 else "") + ", on the matched cells")


def backbone(system: str) -> str | None:
    """A debate system's backbone (`<backbone>+debate`, `<backbone>+debate-generic`), else None."""
    head, sep, tail = system.partition("+")
    return head if sep and tail.startswith(DEBATE[1:]) else None


def clause_verdict(report: Report, scheme: str | None = None) -> Verdict:
    """The clause report's verdict under one composite scheme (docs/method.md, section 17): `scheme`, else the
    report's chosen one (`lhl report --scheme`, `equal` by default)."""
    from lhl_platform.clause.report.render import judge_shortfall, judge_validated  # render imports this module

    scheme = scheme or report.verdict_scheme
    if scheme not in SCHEMES:
        raise ValueError(f"unknown composite scheme {scheme!r}; schemes: {', '.join(SCHEMES)}")
    ranked_systems = [c.model for c in report.coverage if c.ranked]
    stats = report.statistics
    stability = {(s.scheme, s.model): s for s in (stats.rank_stability if stats else [])}
    rows = sorted((c for c in report.composite if c.scheme == scheme and c.rank is not None
                   and c.model in ranked_systems), key=lambda c: (c.rank or 0, c.model))
    ranking = [Ranked(model=c.model, rank=c.rank or 0, score=c.score,
                      stability=stability[(scheme, c.model)].stability if (scheme, c.model) in stability else None)
               for c in rows]
    best = [r.model for r in ranking if r.rank == 1]
    basis = scheme_basis(scheme)
    why_none = ("no system covers every matched cell (see the coverage)" if not ranked_systems else
                f"the {scheme} scheme has no metric left that every ranked system has (docs/method.md, section 9)")
    board = {r.model: r for r in report.leaderboard}
    intervals = {(i.model, i.metric): i for i in (stats.rate_intervals if stats else [])
                 if i.run is None and i.category is None}
    caveats = order_caveats(best, ranking)
    if not best:
        caveats.insert(0, Caveat(kind="nothing_ranked", statement=f"Nothing can be ranked: {why_none}."))
    first = ranking[0] if len(best) == 1 and len(ranking) > 1 else None
    if first is not None and first.stability is not None and first.stability < FIRM:
        caveats.append(Caveat(kind="unstable", subjects=[first.model],
                              statement=f"{first.model} keeps first place in only {rate_text(first.stability)} of the "
                                        "resamples: the data do not firmly separate it from the next systems."))
    caveats += [Caveat(kind="partial", subjects=[c.model], statement=f"{c.model} is partial and not ranked: "
                       f"{c.contracts_covered} of {c.contracts_asked} contracts covered, {c.cells} cells against "
                       f"{c.matched_cells} matched.") for c in report.coverage if not c.ranked]
    caveats += [Caveat(kind="partly_judged", subjects=[c.model],
                       statement=f"The judge decided {c.judged_tp} of the {c.true_positives} true positives of "
                                 f"{c.model}{_left_open(c.true_positives, c.judged_tp, c.undetermined_tp)}: its "
                                 "content figures rest on those it decided, and HalGen and JEq leave the "
                                 "composite unless every matched cell was labelled (docs/method.md, section 9).")
                for c in report.coverage if c.ranked and c.judged_tp < c.true_positives]
    caveats += judge_caveat(report.scope.judge, judge_validated(report), "HalTP, HalGen, JEq and RDI",
                            judge_shortfall(report))
    caveats += small_sample_caveat(_clause_small(report))
    values = {m: {x.name: getattr(r, x.name) for x in CLAUSE_METRICS} for m, r in board.items()}
    counts = {m: {x.name: getattr(r, x.count) for x in CLAUSE_METRICS if x.count} for m, r in board.items()}
    trade_offs: list[TradeOff] = []
    checked = [m.label for m in CLAUSE_METRICS]
    for model in best if len(ranking) > 1 else []:
        for t in worst_on(model, CLAUSE_METRICS, values, [r.model for r in ranking], counts):
            base = backbone(model)
            if base in board:  # a debate system: what the debate did to its backbone's figure
                metric = next(x for x in CLAUSE_METRICS if x.name == t.metric)
                t.baseline_model, t.baseline_value = base, values[base][t.metric]
                t.baseline_count = counts[base].get(t.metric)
                change = f" {metric.count_label} from {t.baseline_count} to {t.count}" if metric.count else ""
                t.statement += (f" Without the debate, {base} has {rate_text(t.baseline_value)}: the debate moves "
                                f"{t.label} from {rate_text(t.baseline_value)} to {rate_text(t.value)}"
                                + (f" ({change.strip()})" if change else "") + ".")
            trade_offs.append(t)
        dear, weighed = costliest(model, report.cost, [r.model for r in ranking])
        trade_offs += dear
        checked += [weighed] if weighed and weighed not in checked else []
        trade_offs += _scheme_changes(report, scheme, model, ranked_systems)
    figures = [] if len(best) != 1 else [
        Figure(metric=m.name, label=m.label, value=values[best[0]][m.name],
               ci_low=intervals[(best[0], m.name)].ci_low if (best[0], m.name) in intervals else None,
               ci_high=intervals[(best[0], m.name)].ci_high if (best[0], m.name) in intervals else None,
               cases=intervals[(best[0], m.name)].denominator if (best[0], m.name) in intervals else None)
        for m in CLAUSE_METRICS if best[0] in values]
    return with_natures(Verdict(
        suite="clause", basis=basis, scheme=scheme, metric=None, best=best, ranking=ranking,
        stability=ranking[0].stability if len(best) == 1 and len(ranking) > 1 else None,
        resamples=next((s.resamples for s in (stats.rank_stability if stats else [])), None), separated=None,
        figures=figures, statement=answer(best, ranking, f"under the {scheme} scheme", why_none),
        trade_offs=trade_offs, caveats=caveats,
        checked=checked + ([f"the other {len(SCHEMES) - 1} schemes"] if best and len(ranking) > 1 else [])),
        report.systems)


def standing(report: Report) -> dict[str, int]:
    """Each ranked system's composite rank under the verdict's scheme (the leaderboard's rank column)."""
    ranked = {c.model for c in report.coverage if c.ranked}
    return {c.model: c.rank for c in report.composite
            if c.scheme == report.verdict_scheme and c.rank is not None and c.model in ranked}


def in_rank_order(report: Report, rows: Sequence[Ranked_]) -> list[Ranked_]:
    """Rows in the verdict's rank order, so the first row is its first system; the unranked last, by name."""
    ranks = standing(report)
    return sorted(rows, key=lambda r: (r.model not in ranks, ranks.get(r.model, 0), r.model))


def rank_text(report: Report, model: str) -> str:
    return str(standing(report).get(model, "–"))


def _scheme_changes(report: Report, scheme: str, model: str, ranked: list[str]) -> list[TradeOff]:
    """The schemes under which another system is first instead of `model`."""
    out = []
    for other in SCHEMES:
        firsts = sorted(c.model for c in report.composite
                        if c.scheme == other and c.rank == 1 and c.model in ranked)
        if other == scheme or not firsts or model in firsts:
            continue
        out.append(TradeOff(kind="scheme", model=model, metric=other, label=other, best_model=firsts[0],
                            statement=f"Under the {other} scheme ({scheme_basis(other).split(': ')[1]}) "
                                      f"{joined(firsts)} {'is' if len(firsts) == 1 else 'are'} first instead."))
    return out


def _clause_small(report: Report) -> list[str]:
    """Every pooled figure (overall and per category) whose interval rests on fewer than SMALL_SAMPLE cases."""
    out = []
    stats = report.statistics
    for i in stats.rate_intervals if stats else []:
        if (i.run is None and i.metric in _LABELS and i.value is not None and i.ci_low is not None
                and i.denominator < SMALL_SAMPLE):
            out.append(f"{i.model} {_LABELS[i.metric]}{'' if i.category is None else ' ' + i.category} "
                       f"(n={i.denominator})")
    out += [f"{r.model} RDI{'' if r.category is None else ' ' + r.category} (n={r.contradicted})"
            for r in report.rdi if r.rdi is not None and r.rdi_ci_low is not None and r.contradicted < SMALL_SAMPLE]
    return out


def _left_open(tps: int, decided: int, undetermined: int) -> str:
    """What the judge left of a system's true positives: undetermined ones, and those it never labelled."""
    unlabelled = tps - decided - undetermined
    parts = ([f"{undetermined} undetermined"] if undetermined else []) + \
        ([f"{unlabelled} not labelled"] if unlabelled else [])
    return f" ({', '.join(parts)})" if parts else ""
