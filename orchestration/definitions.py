"""The Dagster code location: `lhl ui`, `lhl daemon`, `dagster dev -m orchestration.definitions` and every `lhl`
command that launches a run load this same object. It merges the platform's own definitions (the SQL models of
every suite, the metrics job, sensors, the schedule, the home resource) with each registered suite's (its stages
as assets, its jobs, its mart checks; built by `assets.suites`). `orchestration.launch` executes or queues these
very jobs, and `orchestration.runs` builds their requests."""


from dagster import AssetKey, AssetSelection, Definitions, define_asset_job, in_process_executor

import lhl_platform.catalog  # noqa: F401  (the application assembled: every suite registered)
from assets.metrics import MODELS, sql_model_assets
from assets.suites import suite_definitions
from lhl_platform.suites import suites
from orchestration.automation import SCHEDULES, SENSORS
from orchestration.runs import METRICS_JOB
from resources import LhlHome


def _metrics_selection() -> AssetSelection:
    """The SQL models, and every derived figure computed from them (drift, say)."""
    sql = {m.name for m in MODELS}
    derived = [AssetKey(stage.name) for suite in suites() for stage in suite.stages
               if stage.kind == "derived" and stage.partitioning == "none" and sql & set(stage.after)]
    return AssetSelection.assets(sql_model_assets) | AssetSelection.assets(*derived)


metrics_job = define_asset_job(
    METRICS_JOB, selection=_metrics_selection(), executor_def=in_process_executor,
    description="Rebuild the SQL models (cross-model marts), run the outcome checks and the drift comparison.")

platform = Definitions(assets=[sql_model_assets], jobs=[metrics_job], schedules=SCHEDULES, sensors=SENSORS,
                       resources={"lhl": LhlHome()})


def _suite_definitions() -> list[Definitions]:
    built = [suite_definitions(suite) for suite in suites()]
    return [Definitions(assets=assets, asset_checks=checks, jobs=jobs) for assets, checks, jobs in built]


defs = Definitions.merge(platform, *_suite_definitions())
