"""The clause report and its check results through the figure cache (`report/figure_cache.py`): computed once per build,
scope request, resamples, seed and cluster choice (and code), then read back as the same typed objects."""

from __future__ import annotations

import json
from collections.abc import Callable

import duckdb

from lhl_platform.clause.report.rows import Report
from lhl_platform.home import Home
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.report.figure_cache import cached
from lhl_platform.warehouse.scope import ScopeRequest

WHAT = "clause.report_with_checks"
Built = tuple[Report, list[CheckOutcome]]


def _dump(built: Built) -> str:
    report, checks = built
    return json.dumps({"report": report.model_dump(mode="json"), "checks": [c.model_dump(mode="json") for c in checks]})


def _load(body: str) -> Built:
    data = json.loads(body)
    return Report.model_validate(data["report"]), [CheckOutcome.model_validate(c) for c in data["checks"]]


def report_with_checks(home: Home, con: duckdb.DuckDBPyConnection, request: ScopeRequest, *, resamples: int,
                       seed: int, cluster: bool, compute: Callable[[], Built]) -> Built:
    return cached(home, con, WHAT, request.model_dump(mode="json"),
                  {"resamples": resamples, "seed": seed, "cluster": cluster}, compute, _dump, _load)
