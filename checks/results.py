"""Turn a domain CheckOutcome into a Dagster AssetCheckResult (metadata flattened to scalars)."""

from dagster import AssetCheckResult, AssetCheckSeverity

from lhl_platform.quality.checks import CheckOutcome


def to_check_result(outcome: CheckOutcome, named: bool = False) -> AssetCheckResult:
    """`named` gives the check name explicitly, as results yielded from inside an asset body need."""
    metadata = {k: (v if isinstance(v, int | float | str | bool) else str(v)) for k, v in outcome.metadata.items()}
    return AssetCheckResult(check_name=outcome.name if named else None, passed=outcome.passed,
                            severity=AssetCheckSeverity.ERROR, description=outcome.summary, metadata=metadata)
