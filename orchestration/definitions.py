"""The Dagster code location: `lhl ui`, `lhl daemon`, `dagster dev -m orchestration.definitions` and every `lhl`
command that launches a run load this same object. It merges the platform's own definitions (the SQL models of
every suite, the metrics job, sensors, the schedule, the home resource) with each registered suite's (its stages
as assets, its jobs, its mart checks; built by `assets.suites`). `orchestration.launch` executes or queues these
very jobs, and `orchestration.runs` builds their requests."""


from dagster import AssetKey, AssetsDefinition, AssetSelection, Definitions, define_asset_job, in_process_executor

import lhl_platform.catalog  # noqa: F401  (the application assembled: every suite registered)
from assets.metrics import build_sql_assets
from assets.suites import suite_definitions
from lhl_platform.registries import active
from lhl_platform.suites import suites
from orchestration.automation import SCHEDULES, SENSORS
from orchestration.metrics_volume import metrics_job_tags
from orchestration.runs import METRICS_JOB
from resources import LhlHome


def _metrics_selection(sql: AssetsDefinition) -> AssetSelection:
    """The SQL models, and every derived figure computed from them (drift, say)."""
    names = {key.to_user_string() for key in sql.keys}
    derived = [AssetKey(stage.name) for suite in suites() for stage in suite.stages
               if stage.kind == "derived" and stage.partitioning == "none" and names & set(stage.after)]
    return AssetSelection.assets(sql) | AssetSelection.assets(*derived)


def build_definitions() -> Definitions:
    """The code location for the suites registered now."""
    sql = build_sql_assets()
    metrics_job = define_asset_job(
        METRICS_JOB, selection=_metrics_selection(sql), executor_def=in_process_executor, tags=metrics_job_tags(),
        description="Rebuild the SQL models (cross-model marts), run the outcome checks and the drift comparison.")
    platform = Definitions(assets=[sql], jobs=[metrics_job], schedules=SCHEDULES, sensors=SENSORS,
                           resources={"lhl": LhlHome()})
    built = [suite_definitions(suite) for suite in suites()]
    return Definitions.merge(platform, *(Definitions(assets=a, asset_checks=c, jobs=j) for a, c, j in built))


def definitions() -> Definitions:
    """The code location of the active catalog (the application's, or a test's own), built once per catalog."""
    built = active().built
    if "definitions" not in built:
        built["definitions"] = build_definitions()
    made: Definitions = built["definitions"]
    return made


defs = definitions()
