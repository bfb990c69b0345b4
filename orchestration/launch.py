"""Materialize the asset graph in the home's own Dagster instance (used by `lhl demo` and `lhl audit`).

Runs go through real Dagster (`materialize` on a persistent instance under `<home>/dagster`), so
`lhl ui` afterwards shows their runs, partitions, lineage and check results.
"""


from collections.abc import Callable, Sequence
from typing import Any

from dagster import DagsterInstance, materialize

from assets.audit import extractions, judge_verdicts
from assets.corpus import clause_taxonomy, contracts, oracle
from assets.metrics import sql_model_assets
from assets.monitoring import model_drift
from assets.partitions import audit_key, model_partitions, run_partitions
from checks.outcomes import all_checks
from lhl_platform.home import Home
from lhl_platform.registry import get_model
from resources import LhlHome

ALL_ASSETS = [contracts, oracle, clause_taxonomy, extractions, judge_verdicts, sql_model_assets, model_drift,
              *all_checks]
Say = Callable[[str], None]


class LaunchError(RuntimeError):
    pass


def instance_for(home: Home) -> DagsterInstance:
    home.ensure()
    return DagsterInstance.from_config(str(home.dagster_dir))


def ensure_partitions(instance: DagsterInstance, models: Sequence[str], runs: Sequence[int]) -> None:
    for name, keys in ((model_partitions.name, list(models)), (run_partitions.name, [str(r) for r in runs])):
        assert name is not None
        missing = [k for k in keys if not instance.has_dynamic_partition(name, k)]
        if missing:
            instance.add_dynamic_partitions(name, missing)


QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def _run(home: Home, instance: DagsterInstance, selection: list[Any], what: str,
         run_config: dict[str, Any] | None = None, tags: dict[str, str] | None = None, **kwargs: Any) -> None:
    result = materialize(ALL_ASSETS, selection=selection, instance=instance,
                         resources={"lhl": LhlHome(path=str(home.root))}, run_config={**QUIET, **(run_config or {})},
                         raise_on_error=False, tags={"lhl/launched_by": "cli", **(tags or {})}, **kwargs)
    if not result.success:
        failure = next((e for e in result.all_events if e.is_failure), None)
        detail = failure.message if failure is not None and failure.message else "see `lhl ui` for the run's logs"
        raise LaunchError(f"{what} failed: {detail}")


def materialize_corpus(home: Home, instance: DagsterInstance, path: str | None = None) -> None:
    config = {"ops": {"contracts": {"config": {"path": path}}}} if path else None
    _run(home, instance, [contracts, oracle, clause_taxonomy], "corpus", run_config=config)


def materialize_partition(home: Home, instance: DagsterInstance, model: str, run: int, *,
                          contracts_limit: int | None = None, subset: str | None = None, judge: str = "rubric") -> None:
    ensure_partitions(instance, [model], [run])
    config = {"ops": {"extractions": {"config": {"contracts": contracts_limit, "subset": subset}},
                      "judge_verdicts": {"config": {"judge": judge}}}}
    # The provider tag lets a production run queue cap concurrent runs per provider (deployments/production).
    _run(home, instance, [extractions, judge_verdicts], f"partition {model}/run {run}",
         partition_key=audit_key(model, run), run_config=config, tags={"lhl/provider": get_model(home, model).provider})


def materialize_metrics(home: Home, instance: DagsterInstance) -> None:
    _run(home, instance, [sql_model_assets, *all_checks, model_drift], "SQL models, checks and drift")


def audit(home: Home, models: Sequence[str], runs: Sequence[int], *, contracts_limit: int | None = None,
          subset: str | None = None, judge: str = "rubric", say: Say = print) -> None:
    instance = instance_for(home)
    try:
        ensure_partitions(instance, models, runs)
        total = len(models) * len(runs)
        step = 0
        for run in runs:
            for model in models:
                step += 1
                say(f"[{step}/{total}] extracting and judging {model}, run {run} ...")
                materialize_partition(home, instance, model, run, contracts_limit=contracts_limit, subset=subset,
                                      judge=judge)
        say("building SQL models and running checks ...")
        materialize_metrics(home, instance)
    finally:
        instance.dispose()
