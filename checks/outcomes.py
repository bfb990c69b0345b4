"""Checks on `instance_outcomes`: completeness (missing rows named by contract, persistent vs any run),
labels in domain, every TP judged, no duplicate instance, and the Great Expectations suite."""


from collections.abc import Callable

import duckdb
from dagster import AssetCheckExecutionContext, AssetCheckResult, AssetChecksDefinition, asset_check

from checks.results import to_check_result
from lhl_platform.quality.checks import (
    CheckOutcome,
    comparable_scope,
    completeness,
    every_tp_judged,
    labels_in_domain,
    no_duplicate_instances,
)
from lhl_platform.quality.expectations import validate_instance_rows
from lhl_platform.warehouse.build import read_warehouse
from resources import LhlHome


def _warehouse_check(name: str, check: Callable[[duckdb.DuckDBPyConnection], CheckOutcome],
                     description: str) -> AssetChecksDefinition:
    @asset_check(asset="instance_outcomes", name=name, description=description)
    def _check(context: AssetCheckExecutionContext, lhl: LhlHome) -> AssetCheckResult:
        with read_warehouse(lhl.home()) as con:
            return to_check_result(check(con), lhl=lhl, asset="instance_outcomes")

    return _check


outcome_checks = [
    _warehouse_check("rows_complete", completeness,
                     "every (model, run) covers all contracts of its audit x 41; names incomplete contracts, "
                     "persistent (every run) vs any run"),
    _warehouse_check("labels_in_domain", labels_in_domain, "verdicts and mismatch types in the judge vocabulary"),
    _warehouse_check("every_tp_judged", every_tp_judged, "every TP carries a verdict"),
    _warehouse_check("no_duplicate_instances", no_duplicate_instances, "each instance recorded once"),
    _warehouse_check("comparable_scope", comparable_scope,
                     "compared models cover the same contracts and runs (else the composite uses the matched part)"),
]


@asset_check(asset="instance_outcomes", name="great_expectations_suite",
             description="Great Expectations suite on the recorded instances before de-duplication (types, "
                         "vocabularies, one record per instance)")
def great_expectations_suite(lhl: LhlHome) -> AssetCheckResult:
    with read_warehouse(lhl.home()) as con:
        frame = con.execute("select * from instance_rows").df()
    return to_check_result(validate_instance_rows(frame), lhl=lhl, asset="instance_outcomes")


all_checks = [*outcome_checks, great_expectations_suite]
