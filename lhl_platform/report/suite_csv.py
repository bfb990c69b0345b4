"""A suite's report as one CSV table, as the clause report's: the verdict's rows first, then every section's
rows, a `table` column naming the section, the columns of every section in the order they first appear (empty
where a section has no such column), and `judge_validated` on a judged suite's leaderboard rows (as in the JSON).
A list or mapping value is written as its JSON; null is empty, never 0."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from lhl_platform.report.cost import cost_csv_rows
from lhl_platform.report.suite_report import SuiteReport, with_judge
from lhl_platform.report.verdict import Verdict
from lhl_platform.report.verdict_render import verdict_csv_rows


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, ensure_ascii=False)
    return value


def render_suite_csv(report: SuiteReport, verdict: Verdict) -> str:
    rows: list[dict[str, Any]] = list(verdict_csv_rows(verdict))  # the verdict first
    rows += [{"table": name, **with_judge(report, name, r.model_dump(mode="json"))}
             for name, section in report.sections.items() for r in section]
    rows += [{"table": "systems", **n.model_dump(mode="json")} for n in report.systems]  # what each system is
    rows += cost_csv_rows(report.cost)  # the cost section's rows, `table` naming each part (`cost_by_stage`, ...)
    columns = list(dict.fromkeys(["table", *(k for row in rows for k in row)]))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: _cell(row.get(k)) for k in columns} for row in rows)
    return buffer.getvalue()
