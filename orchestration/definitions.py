"""The Dagster code location: `lhl ui`, `lhl daemon`, `dagster dev -m orchestration.definitions` and every `lhl`
command that launches a run load this same object. Jobs and their asset selections are defined here, once;
`orchestration.launch` executes or queues these very jobs, and `orchestration.runs` builds their requests."""


from dagster import AssetSelection, Definitions, PartitionedConfig, define_asset_job, in_process_executor

from assets.audit import extractions, judge_verdicts
from assets.corpus import clause_taxonomy, contracts, oracle

# PLUG-IN POINT, the typed debate: its assets and jobs join this code location (and so every launcher) here,
# and nowhere else.
from assets.debate import DEBATE_ASSETS, DEBATE_JOBS
from assets.judges import JUDGE_ASSETS
from assets.metrics import sql_model_assets
from assets.monitoring import model_drift
from assets.partitions import audit_partitions
from assets.profiles import model_profiles
from checks.outcomes import all_checks
from orchestration.automation import SCHEDULES, SENSORS
from orchestration.runs import (
    AUDIT_JOB,
    CORPUS_JOB,
    JUDGES_JOB,
    METRICS_JOB,
    backfill_run_config,
    backfill_tags,
)
from resources import LhlHome

audit_job = define_asset_job(
    AUDIT_JOB, selection=AssetSelection.assets(extractions, judge_verdicts, model_profiles),
    partitions_def=audit_partitions, executor_def=in_process_executor,
    # A job backfill from the UI asks this for each partition: the same run config and tags as `lhl audit`.
    config=PartitionedConfig(partitions_def=audit_partitions, run_config_for_partition_key_fn=backfill_run_config,
                             tags_for_partition_key_fn=backfill_tags),
    description="Extract, judge and profile one (model, run) partition with the model's registered audit settings.")
metrics_job = define_asset_job(
    METRICS_JOB, selection=AssetSelection.assets(sql_model_assets, model_drift), executor_def=in_process_executor,
    description="Rebuild the SQL models (cross-model marts), run the outcome checks and the drift comparison.")
corpus_job = define_asset_job(
    CORPUS_JOB, selection=AssetSelection.assets(contracts, oracle, clause_taxonomy),
    description="Load (or re-show) the active corpus: contracts, oracle, clause taxonomy.")

judges_job = define_asset_job(
    JUDGES_JOB, selection=AssetSelection.assets(*JUDGE_ASSETS), executor_def=in_process_executor,
    description="Validate every registered judge on the dissociation suite; measure agreement with the primary judge.")

ASSETS = [contracts, oracle, clause_taxonomy, extractions, judge_verdicts, model_profiles, sql_model_assets,
          model_drift, *JUDGE_ASSETS, *DEBATE_ASSETS]
JOBS = [audit_job, metrics_job, corpus_job, judges_job, *DEBATE_JOBS]

defs = Definitions(
    assets=ASSETS,
    asset_checks=all_checks,
    jobs=JOBS,
    schedules=SCHEDULES,
    sensors=SENSORS,
    resources={"lhl": LhlHome()},
)
