"""Partitions: `model` (one key per registered model) x `run` (audit rounds shared by every model), and the
audit settings a partition runs with when its run config leaves them open."""

from dataclasses import dataclass

from dagster import DynamicPartitionsDefinition, MultiPartitionKey, MultiPartitionsDefinition

from lhl_platform.home import Home
from lhl_platform.registry import get_model, primary_judge

model_partitions = DynamicPartitionsDefinition(name="model")
run_partitions = DynamicPartitionsDefinition(name="run")
audit_partitions = MultiPartitionsDefinition({"model": model_partitions, "run": run_partitions})


def audit_key(model: str, run: int) -> MultiPartitionKey:
    return MultiPartitionKey({"model": model, "run": str(run)})


def model_and_run(partition_key: MultiPartitionKey) -> tuple[str, int]:
    keys = partition_key.keys_by_dimension
    return keys["model"], int(keys["run"])


@dataclass(frozen=True)
class PartitionSettings:
    """What one (model, run) partition is audited with."""

    judge: str
    contracts: int | None
    subset: str | None


def partition_settings(home: Home, model: str, *, judge: str | None = None, contracts: int | None = None,
                       subset: str | None = None) -> PartitionSettings:
    """Explicit values win; the rest come from the model's registered audit settings (`params.audit`), then
    the defaults (the primary judge, every contract). The CLI, the sensors, job backfills and the assets'
    own defaults all resolve a partition's settings here, so every launcher audits a model the same way."""
    settings = get_model(home, model).params.audit
    if contracts is None and subset is None:
        contracts, subset = settings.contracts, settings.subset
    return PartitionSettings(judge=judge or settings.judge or primary_judge(home), contracts=contracts, subset=subset)
