"""ContractScrub in `lhl demo`: offline, beside the clause suite, on a few demo contracts.

`demo_contractscrub` builds a small self-built item set from the demo corpus (seeded injection), registers the
rule-based scrubber and a calibration profile, and runs their (model, run 1) partitions through the one run path
(the suite's partition job in Dagster); the SQL models are built once with the clause suite's. `demo_summary`
reads the suite's report from the warehouse afterwards.
"""

from __future__ import annotations

from collections.abc import Callable

from lhl_platform.home import Home

DEMO_CONTRACTS, DEMO_SEED = 4, 0
DEMO_MODELS = (("scrub-rules", "scrub-rules", "rule-based scrubber (a real baseline; never sees the gold)"),
               ("scrub-gpt-5.5-calibrated", "scrub-calibrated:paper-gpt-5.5",
                "calibration: reads the gold, keeps and invents findings at the paper's GPT-5.5 rates"))


def demo_contractscrub(home: Home, say: Callable[[str], None]) -> None:
    from lhl_platform.domain.models import ModelSpec
    from lhl_platform.registry import add_model
    from lhl_platform.scrub.stages import build_set
    from lhl_platform.scrub.suite import PARTITION_JOB
    from orchestration.launch import ensure_partitions, execute, instance_for
    from orchestration.runs import job_launch

    stored = build_set(home, DEMO_CONTRACTS, DEMO_SEED)
    say(f"ContractScrub: {stored.describe()}")
    for name, model_id, what in DEMO_MODELS:
        add_model(home, ModelSpec(name=name, provider="offline", model_id=model_id))
        say(f"ContractScrub model {name}: {what}")
    models = [m[0] for m in DEMO_MODELS]
    instance = instance_for(home)
    try:
        ensure_partitions(instance, models, [1])
        for model in models:
            say(f"ContractScrub: {PARTITION_JOB} {model}/run 1 ...")
            execute(home, instance, job_launch(home, PARTITION_JOB, "cli", model=model, run=1,
                                               run_key=f"{PARTITION_JOB}:{model}:1"))
    finally:
        instance.dispose()


def demo_summary(home: Home) -> str:
    from lhl_platform.report.render import _table
    from lhl_platform.report.suite_report import _text, build_suite_report
    from lhl_platform.scrub.suite import SUITE

    report = build_suite_report(home, SUITE)
    fields = ["model", "recall", "recall_ci_low", "recall_ci_high", "precision", "f1", "missing_calls"]
    rows = report.sections.get("leaderboard", [])
    table = _table(fields, [[_text(getattr(r, f)) for f in fields] for r in rows], False)
    item_set = report.sections.get("item_set", [])
    label = getattr(item_set[0], "provenance", "") if item_set else ""
    failed = [c.name for c in report.checks if not c.passed]
    return (f"\nContractScrub (seed 002) on {report.scope.items} demo contracts, item set {report.scope.item_set} "
            f"({label}):\n{table}\nchecks: {'all pass' if not failed else 'FAILED ' + ', '.join(failed)}; "
            "overall = mean of the 9 per-category figures; see `lhl report --suite contractscrub`")
