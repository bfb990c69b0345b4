"""InsufficiencyBench's verdict rule (docs/method.md, section 17): its leaderboard ranks by mean F2 among the
complete systems, precision, recall, ExplAcc, safety and over-flag the other headline metrics; an F2 interval
drawn over fewer base queries, or a category's recall over fewer gold items, than the shared threshold is a small
sample; the judge's validation qualifies F2, ExplAcc and safety; a self-built item set's gold is a caveat until
reviewed. The verdict itself is the platform's (`report/verdict.py`); the suite declares this rule with its
reporting (`insufficiency/suite.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lhl_platform.report.verdict import SMALL_SAMPLE, Caveat, Metric, SuiteRule, gold_caveat, section_rows

if TYPE_CHECKING:
    from lhl_platform.report.suite_report import SuiteReport


def small_samples(report: SuiteReport) -> list[str]:
    ranked = {r["model"] for r in section_rows(report, "leaderboard") if r.get("rank") is not None}
    bases = next((r["base_items"] for r in section_rows(report, "item_set")), None)
    out = [f"{r['model']} F2 (interval over {bases} base queries)" for r in section_rows(report, "leaderboard")
           if r["model"] in ranked and r.get("f2_ci_low") is not None and bases is not None and bases < SMALL_SAMPLE]
    out += [f"{r['model']} recall {r['category']} (n={r['gold']})" for r in section_rows(report, "by_category")
            if r["model"] in ranked and r.get("recall") is not None and r["gold"] < SMALL_SAMPLE]
    return out


def self_built_gold(report: SuiteReport) -> list[Caveat]:
    rows = section_rows(report, "item_set")
    return gold_caveat(report, any(r.get("self_built") for r in rows), "; ".join(str(r["about"]) for r in rows))


VERDICT_RULE = SuiteRule(
    metric=Metric("f2", "mean F2", True), ci=("f2_ci_low", "f2_ci_high"),
    others=(Metric("precision", "precision", True), Metric("recall", "recall", True),
            Metric("expl_acc", "ExplAcc", True), Metric("safety", "safety", True),
            Metric("over_flag", "over-flag", False)),
    small=small_samples, gold=self_built_gold, judged_what="F2, ExplAcc and safety")
