"""A Great Expectations suite on the recorded instances (`instance_rows`, before de-duplication), so that its
uniqueness expectation can fail when an instance was recorded twice: the table's contract, checked by GX."""

from __future__ import annotations

from typing import Any

import pandas as pd

from lhl_platform.domain.models import MismatchType, Outcome, VerdictLabel
from lhl_platform.domain.taxonomy import CLAUSE_TYPES, Category
from lhl_platform.quality.checks import CheckOutcome

SUITE_NAME = "instance_rows_suite"


def _suite() -> Any:
    import great_expectations as gx
    import great_expectations.expectations as gxe

    suite = gx.ExpectationSuite(name=SUITE_NAME)
    for column in ("model", "run", "contract_id", "clause_type", "category", "outcome", "gt_present",
                   "predicted_present"):
        suite.add_expectation(gxe.ExpectColumnValuesToNotBeNull(column=column))
    suite.add_expectation(gxe.ExpectColumnValuesToBeInSet(column="outcome", value_set=[o.value for o in Outcome]))
    suite.add_expectation(gxe.ExpectColumnValuesToBeInSet(column="category", value_set=[c.value for c in Category]))
    suite.add_expectation(gxe.ExpectColumnValuesToBeInSet(column="clause_type", value_set=list(CLAUSE_TYPES)))
    suite.add_expectation(gxe.ExpectColumnValuesToBeInSet(column="verdict",
                                                          value_set=[v.value for v in VerdictLabel]))
    suite.add_expectation(gxe.ExpectColumnValuesToBeInSet(column="mismatch_type",
                                                          value_set=[m.value for m in MismatchType]))
    suite.add_expectation(gxe.ExpectColumnValuesToBeBetween(column="run", min_value=1, max_value=999))
    suite.add_expectation(gxe.ExpectCompoundColumnsToBeUnique(
        column_list=["model", "run", "contract_id", "clause_type"]))
    return suite


def validate_instance_rows(frame: pd.DataFrame) -> CheckOutcome:
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)  # keep CLI output and logs clean
    source = context.data_sources.add_pandas("lhl")
    asset = source.add_dataframe_asset(name="instance_rows")
    batch = asset.add_batch_definition_whole_dataframe("all").get_batch(batch_parameters={"dataframe": frame})
    result = batch.validate(_suite())
    failed = [r.expectation_config.type + (f"({r.expectation_config.kwargs.get('column')})"
                                           if r.expectation_config.kwargs.get("column") else "")
              for r in result.results if not r.success]
    stats = result.statistics
    return CheckOutcome(
        name="great_expectations_suite", passed=bool(result.success),
        description=f"Great Expectations suite {SUITE_NAME} on instance_rows",
        summary=(f"{stats['successful_expectations']} of {stats['evaluated_expectations']} expectations met"
                 + (f"; failed: {', '.join(failed)}" if failed else "")),
        metadata={"evaluated": stats["evaluated_expectations"], "failed": failed, "rows": len(frame)})
