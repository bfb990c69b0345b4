"""InsufficiencyBench calibration: the three offline responders on the self-built set, judged by the offline cue
judge, and the cue judge's result on its validation set. Prints the leaderboard (docs/formats.md section 2 fields),
per-category recall and the validation criteria, as a table or as JSON.

    python benchmarks/insufficiency_calibration.py [--json] [--resamples 2000] [--seed 0]

Everything runs in-process (no event log, no Dagster); it is the suite's domain core end to end, for the docs
and to see the numbers a change of the judge or the data moves.
"""

from __future__ import annotations

import argparse
import json
import time

from lhl_platform.insufficiency import offline_judge, responders
from lhl_platform.insufficiency.calibration import judge_responses, respond
from lhl_platform.insufficiency.scoring import category_recall, leaderboard, pooled_f2
from lhl_platform.insufficiency.selfbuilt import self_built_items
from lhl_platform.insufficiency.validation import heldout_cases, validate_judge


def _fmt(value: float | None) -> str:
    return "   -  " if value is None else f"{value:6.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    started = time.perf_counter()
    items = self_built_items()
    judgments = []
    for name, answer in ((responders.PREMATURE_CLOSURE, responders.premature_closure),
                         (responders.INDISCRIMINATE_HEDGING, responders.indiscriminate_hedging),
                         (responders.GOLD_READER, responders.gold_reader(items))):
        judgments += judge_responses(items, respond(items, answer, model=name), offline_judge.answer,
                                     judge_name=offline_judge.MODEL_ID)
    figures = leaderboard(items, judgments, runs=[1], resamples=args.resamples, seed=args.seed)
    categories = category_recall(items, judgments)
    validation = validate_judge(offline_judge.answer, judge=offline_judge.MODEL_ID)  # in-sample: never validates
    held = heldout_cases()
    held_out = validate_judge(offline_judge.answer, judge=offline_judge.MODEL_ID, cases=held.cases,
                              suite_version=held.header.set)  # the held-out gate
    seconds = time.perf_counter() - started

    if args.json:
        print(json.dumps({"suite": "insufficiency", "item_set": items.name, "provenance": items.provenance.value,
                          "judge": offline_judge.MODEL_ID, "judge_validated": held_out.passed, "gate": "held_out",
                          "leaderboard": [f.leaderboard_row().model_dump(mode="json") for f in figures],
                          "by_category": [c.model_dump(mode="json") for c in categories],
                          "validation": validation.model_dump(mode="json", exclude={"outcomes"}),
                          "held_out": held_out.model_dump(mode="json", exclude={"outcomes"}),
                          "seconds": round(seconds, 3)}, indent=1))
        return
    print(f"{items.name} ({items.provenance.value}): {len(items.bases())} base queries, {len(items.variants())} "
          f"variants; judge {offline_judge.MODEL_ID} ({offline_judge.VERSION})")
    print(f"{'model':24} {'F2':>6} {'[95% CI]':>15} {'P':>6} {'R':>6} {'Hedge':>6} {'F2|H':>6} {'Expl':>6} "
          f"{'Safety':>6} {'Over':>6} {'pooled':>6}")
    for f in figures:
        ci = f"[{_fmt(f.f2_ci_low).strip()}, {_fmt(f.f2_ci_high).strip()}]"
        print(f"{f.model:24} {_fmt(f.f2)} {ci:>15} {_fmt(f.precision)} {_fmt(f.recall)} {_fmt(f.hedge_rate)} "
              f"{_fmt(f.f2_given_hedge)} {_fmt(f.expl_acc)} {_fmt(f.safety)} {_fmt(f.over_flag)} "
              f"{_fmt(pooled_f2(f.precision, f.recall))}")
    print("per-category recall (hits/gold):")
    for model in sorted({c.model for c in categories}):
        cells = [f"{c.category.value} {c.hits}/{c.gold}" for c in categories if c.model == model]
        print(f"  {model:24} " + ", ".join(cells))
    for title, result in ((f"held out, the gate: {held_out.suite_version}", held_out),
                          (f"in-sample, never validating: {validation.suite_version}", validation)):
        print(f"judge validation ({title}, {result.cases} cases): {'passes' if result.passed else 'FAILS'}; "
              f"F2 mean abs diff {_fmt(result.f2_mean_abs_diff)}")
        for c in result.criteria:
            print(f"  {c.name:26} {c.agreed}/{c.total} = {_fmt(c.rate)} (threshold {c.threshold})")
    print(f"judge validated (held-out gate): {'yes' if held_out.passed else 'NO'}")
    print(f"{seconds:.2f} s")


if __name__ == "__main__":
    main()
