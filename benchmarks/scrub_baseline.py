"""Benchmark: the ContractScrub item set built from CUAD v1 (44 contracts, as the paper) and from the bundled demo
corpus, and the two offline models on it.

Prints the build (time, eligible contracts, what was targeted, kept and rejected), the rule-based scrubber's
per-category recall, precision and F1 (with its contract-cluster recall interval), and how closely scoring
recovers the calibration tool's declared rates. The item sets are self-built by injection: synthetic defects
are easier to find than a lawyer's (they follow the rules that define them), so these figures are an upper
bound on what the same rules would score on real contracts, not a comparison with the paper's models.

    python benchmarks/scrub_baseline.py [--cuad ../shared/cuad_v1] [--contracts 44] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel

from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import load_demo_corpus
from lhl_platform.providers.base import Task
from lhl_platform.scrub.build import DEMO_CONFIG, PROVENANCE, BuildConfig, BuiltSet, build_items
from lhl_platform.scrub.categories import CATEGORY_KEYS
from lhl_platform.scrub.items import ScrubItem
from lhl_platform.scrub.offline import PROFILES, CalibrationTool, rules_answer
from lhl_platform.scrub.parties import annotated_parties
from lhl_platform.scrub.preexisting import PRE_EXISTING_CATEGORIES, pre_existing_fp
from lhl_platform.scrub.scoring import Answers, ScrubScore, recall_intervals, score
from lhl_platform.scrub.task import findings_of, scrub_task

DEFAULT_CUAD = Path(os.environ.get("LHL_CUAD_DIR", Path(__file__).resolve().parents[2] / "shared" / "cuad_v1"))


def answer_all(items: Sequence[ScrubItem], answer: Callable[[Task], BaseModel], run: int = 1) -> Answers:
    return {(run, item.contract_id, cat): findings_of(cat, answer(scrub_task(cat, item.contract_id, item.text)))
            for item in items for cat in CATEGORY_KEYS}


def fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def show_build(label: str, built: BuiltSet, seconds: float, contracts: int) -> None:
    print(f"\n## {label}: {len(built.items)} items built in {seconds:.1f} s "
          f"({built.eligible} of {contracts} contracts eligible, {len(built.skipped)} skipped), seed {built.seed}")
    print(f"({PROVENANCE})")
    print("| category | targeted | kept |\n|---|---:|---:|")
    for cat, kept in built.report.kept.items():
        print(f"| {cat} | {built.targeted[cat]} | {kept} |")
    rejected = sum(r.count for r in built.report.rejected)
    print(f"verifier: {rejected} injections rejected; section-reference distances "
          f"{built.report.section_reference_distances} (longest {built.report.longest_section_reference})")
    for r in built.report.rejected:
        print(f"  rejected {r.count:4d} x {r.category or 'item'}: {r.reason}")


def show_score(label: str, result: ScrubScore, intervals: dict[str | None, tuple[float | None, float | None]]) -> None:
    print(f"\n### {label}\n| category | gold | TP | FP | R (95% CI) | P | F1 |\n|---|---:|---:|---:|---|---:|---:|")
    for row in result.by_category:
        low, high = intervals.get(row.category, (None, None))
        print(f"| {row.category} | {row.gold} | {row.tp} | {row.fp} | {fmt(row.recall)} ({fmt(low)}-{fmt(high)}) "
              f"| {fmt(row.precision)} | {fmt(row.f1)} |")
    low, high = intervals.get(None, (None, None))
    print(f"| **overall (mean of 9)** | | | | {fmt(result.overall.recall)} ({fmt(low)}-{fmt(high)}) "
          f"| {fmt(result.overall.precision)} | {fmt(result.overall.f1)} |")
    print(f"term-only (8 categories): R {fmt(result.terms_only_overall.recall)} P "
          f"{fmt(result.terms_only_overall.precision)} F1 {fmt(result.terms_only_overall.f1)}")
    print("section references by distance: " + ", ".join(f"{b.bucket}: {fmt(b.recall)} ({b.tp}/{b.gold})"
                                                          for b in result.by_distance))


def rules_baseline(label: str, items: Sequence[ScrubItem]) -> None:
    started = time.perf_counter()
    answers = answer_all(items, rules_answer)
    seconds = time.perf_counter() - started
    result = score(items, answers)
    intervals = {i.category: (i.low, i.high) for i in recall_intervals(items, answers, key="scrub-rules")}
    show_score(f"{label}: the rule-based scrubber ({seconds:.1f} s for {len(answers)} calls)", result, intervals)
    show_pre_existing(items, answers, result)


def show_pre_existing(items: Sequence[ScrubItem], answers: Answers, result: ScrubScore) -> None:
    """False positives that name a defect the source contract already had (`scrub.preexisting`): counted apart,
    precision itself unchanged."""
    pre = pre_existing_fp(items, answers)
    rows = {row.category: row for row in result.by_category}
    for category in PRE_EXISTING_CATEGORIES:
        row = rows[category]
        kept = row.predicted - pre[category]
        print(f"pre-existing in source, {category}: {pre[category]} of {row.fp} false positives (precision "
              f"{fmt(row.precision)}, {fmt(row.tp / kept if kept else None)} without them)")


def calibration_recovery(items: Sequence[ScrubItem], runs: Sequence[int] = (1, 2, 3)) -> None:
    profile = PROFILES["paper-gpt-5.5"]
    answers: dict = {}
    for run in runs:
        answers |= answer_all(items, CalibrationTool(profile, items, run).answer, run)
    result = score(items, answers, runs)
    print(f"\n### calibration tool `{profile.name}`, {len(runs)} runs: declared -> recovered")
    print("| category | recall | false positives per gold tuple |\n|---|---|---|")
    for row in result.by_category:
        rates = profile.rates[row.category]
        print(f"| {row.category} | {1 - rates.miss:.3f} -> {fmt(row.recall)} | {rates.extra:.3f} -> "
              f"{row.fp / row.gold:.3f} |")
    print(f"overall R/P/F1: {fmt(result.overall.recall)} / {fmt(result.overall.precision)} / "
          f"{fmt(result.overall.f1)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuad", type=Path, default=DEFAULT_CUAD)
    parser.add_argument("--contracts", type=int, default=44)
    parser.add_argument("--demo-contracts", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    demo = load_demo_corpus()
    started = time.perf_counter()
    demo_set = build_items(demo.contracts, args.demo_contracts, args.seed, corpus="demo", config=DEMO_CONFIG)
    show_build("demo corpus", demo_set, time.perf_counter() - started, len(demo.contracts))
    rules_baseline("demo items", demo_set.items)

    if not (args.cuad / "master_clauses.csv").exists():
        print(f"\nCUAD v1 not found at {args.cuad}: pass --cuad or set LHL_CUAD_DIR for the 44-contract set")
        return
    cuad = load_master_layout(args.cuad)
    started = time.perf_counter()
    # CUAD's Parties annotation, as `lhl scrub build` passes it, so this is the set the builder makes today
    cuad_set = build_items(cuad.contracts, args.contracts, args.seed, corpus=cuad.name, config=BuildConfig(),
                           parties=annotated_parties(cuad.oracle))
    show_build(f"CUAD v1 ({cuad.name})", cuad_set, time.perf_counter() - started, len(cuad.contracts))
    rules_baseline(f"{len(cuad_set.items)} CUAD items", cuad_set.items)
    calibration_recovery(cuad_set.items)


if __name__ == "__main__":
    main()
