"""Turn a domain CheckOutcome into a Dagster AssetCheckResult (metadata flattened to scalars), and report a
failing one through the home's alert hook."""

from dagster import AssetCheckResult, AssetCheckSeverity

from lhl_platform.quality.checks import CheckOutcome
from resources import LhlHome
from resources.alerts import Alert


def _scalars(metadata: dict[str, object]) -> dict[str, int | float | str | bool]:
    return {k: (v if isinstance(v, int | float | str | bool) else str(v)) for k, v in metadata.items()}


def to_check_result(outcome: CheckOutcome, named: bool = False, *, lhl: LhlHome | None = None,
                    asset: str | None = None, partition: str | None = None) -> AssetCheckResult:
    """`named` gives the check name explicitly, as results yielded from inside an asset body need. Given the
    home resource and the asset, a failing outcome is also sent to the home's alert hook."""
    metadata = _scalars(outcome.metadata)
    if lhl is not None and asset is not None and not outcome.passed:
        alert(lhl, outcome.name, asset, partition, outcome.summary, metadata)
    return AssetCheckResult(check_name=outcome.name if named else None,
                            asset_key=asset if named else None, passed=outcome.passed,
                            severity=AssetCheckSeverity.ERROR, description=outcome.summary, metadata=metadata)


def alert(lhl: LhlHome, check: str, asset: str, partition: str | None, summary: str,
          figures: dict[str, int | float | str | bool]) -> None:
    lhl.alert_hook().send(Alert(check=check, asset=asset, partition=partition, summary=summary,
                                figures=dict(figures)))
