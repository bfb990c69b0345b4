"""Partitions: `model` (one key per registered model) x `run` (audit rounds shared by every model)."""

from dagster import DynamicPartitionsDefinition, MultiPartitionKey, MultiPartitionsDefinition

model_partitions = DynamicPartitionsDefinition(name="model")
run_partitions = DynamicPartitionsDefinition(name="run")
audit_partitions = MultiPartitionsDefinition({"model": model_partitions, "run": run_partitions})


def audit_key(model: str, run: int) -> MultiPartitionKey:
    return MultiPartitionKey({"model": model, "run": str(run)})


def model_and_run(partition_key: MultiPartitionKey) -> tuple[str, int]:
    keys = partition_key.keys_by_dimension
    return keys["model"], int(keys["run"])
