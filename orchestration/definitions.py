"""The Dagster code location: `dagster dev -m orchestration.definitions` and `lhl` load this same object."""


from dagster import AssetSelection, Definitions, define_asset_job

from assets.audit import extractions, judge_verdicts
from assets.corpus import clause_taxonomy, contracts, oracle
from assets.metrics import sql_model_assets
from assets.monitoring import model_drift
from assets.partitions import audit_partitions
from checks.outcomes import all_checks
from orchestration.automation import model_registry_sensor, nightly_metrics_schedule, recurring_audit_sensor
from resources import LhlHome

audit_job = define_asset_job(
    "audit_partition", selection=AssetSelection.assets(extractions, judge_verdicts), partitions_def=audit_partitions,
    description="Extract and judge one (model, run) partition.")
metrics_job = define_asset_job(
    "metrics", selection=AssetSelection.assets(sql_model_assets, model_drift),
    description="Rebuild the SQL models, run the outcome checks and the drift comparison.")
corpus_job = define_asset_job("corpus", selection=AssetSelection.assets(contracts, oracle, clause_taxonomy))

defs = Definitions(
    assets=[contracts, oracle, clause_taxonomy, extractions, judge_verdicts, sql_model_assets, model_drift],
    asset_checks=all_checks,
    jobs=[audit_job, metrics_job, corpus_job],
    schedules=[nightly_metrics_schedule],
    sensors=[model_registry_sensor, recurring_audit_sensor],
    resources={"lhl": LhlHome()},
)
