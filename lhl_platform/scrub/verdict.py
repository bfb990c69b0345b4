"""ContractScrub's verdict rule (docs/method.md, section 17): its leaderboard ranks by overall recall among the
complete systems, precision and F1 the other headline metrics; an interval drawn over fewer contracts, or a
category's recall over fewer gold items, than the shared threshold is a small sample; a self-built item set's gold
is a caveat until reviewed. The verdict itself is the platform's (`report/verdict.py`); the suite declares this
rule with its reporting (`scrub/suite.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lhl_platform.report.verdict import SMALL_SAMPLE, Caveat, Metric, SuiteRule, gold_caveat, section_rows

if TYPE_CHECKING:
    from lhl_platform.report.suite_report import SuiteReport


def small_samples(report: SuiteReport) -> list[str]:
    ranked = {r["model"] for r in section_rows(report, "leaderboard") if r.get("rank") is not None}
    out = [f"{r['model']} recall (interval over {r['contracts']} contracts)"
           for r in section_rows(report, "leaderboard")
           if r["model"] in ranked and r.get("recall_ci_low") is not None and r["contracts"] < SMALL_SAMPLE]
    out += [f"{r['model']} recall {r['category']} (n={r['gold']})" for r in section_rows(report, "recall")
            if r["model"] in ranked and r.get("gold") is not None and r.get("recall_ci_low") is not None
            and r["gold"] < SMALL_SAMPLE]
    return out


def self_built_gold(report: SuiteReport) -> list[Caveat]:
    rows = section_rows(report, "item_set")
    return gold_caveat(report, any(str(r.get("provenance", "")).startswith("self-built") for r in rows),
                       "; ".join(str(r["provenance"]) for r in rows))


VERDICT_RULE = SuiteRule(
    metric=Metric("recall", "overall recall", True), ci=("recall_ci_low", "recall_ci_high"),
    others=(Metric("precision", "precision", True), Metric("f1", "F1", True),
            Metric("terms_only_recall", "term-only recall", True),
            Metric("terms_only_precision", "term-only precision", True),
            Metric("terms_only_f1", "term-only F1", True)),
    small=small_samples, gold=self_built_gold)
