"""The clause suite's reporting (`Suite.reporting`): its scope is a corpus (or a stored subset of its contracts),
runs, models and a judge; its report, comparison and publication are the clause report's
(`clause/report/{build,render,html,compare,publish}.py`), wrapped here so the commands run it as they run any
suite's.
Light: the stack loads when a method runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lhl_platform.suites.reporting import Asked

if TYPE_CHECKING:
    from lhl_platform.clause.report.rows import Report
    from lhl_platform.home import Home
    from lhl_platform.quality.checks import CheckOutcome
    from lhl_platform.report.publish import PublishSummary
    from lhl_platform.suites.contract import Suite


@dataclass(frozen=True)
class ClauseReport:
    """The clause report and the check results computed with it (none when built for CSV, which shows none)."""

    report: Report
    checks: list[CheckOutcome]


def verdict_scheme(name: str | None) -> str:
    """The composite scheme asked for (default `equal`), or one line naming the schemes."""
    from lhl_platform.clause.report.stats import SCHEMES

    if name is None:
        return "equal"
    if name not in SCHEMES:
        raise ValueError(f"unknown composite scheme {name!r}; schemes: {', '.join(SCHEMES)}")
    return name


@dataclass(frozen=True)
class ClauseReporting:
    options: frozenset[str] = frozenset({"corpus", "subset", "scheme", "cluster", "rows_schema"})

    def sections(self, suite: Suite) -> frozenset[str]:
        from lhl_platform.clause.report.rows import Report

        return frozenset(Report.model_fields)

    def request(self, suite: Suite, asked: Asked) -> Any:
        from lhl_platform.warehouse.scope import ScopeRequest

        return ScopeRequest(corpus=asked.corpus, subset=asked.subset, judge=asked.judge, runs=asked.runs,
                            models=asked.models)

    def build(self, home: Home, suite: Suite, request: Any, asked: Asked, fmt: str | None = None) -> ClauseReport:
        from lhl_platform.clause.report.build import build_report, build_report_with_checks

        scheme = verdict_scheme(asked.scheme)
        checks: list[CheckOutcome] = []
        resamples, seed, cluster = asked.resamples, asked.seed, bool(asked.cluster)
        if fmt == "csv":
            report = build_report(home, request, resamples=resamples, seed=seed, cluster=cluster)
        else:  # with the check results, as every other format prints them
            report, checks = build_report_with_checks(home, request, resamples=resamples, seed=seed, cluster=cluster)
        report.verdict_scheme = scheme
        return ClauseReport(report, checks)

    def render(self, built: ClauseReport, suite: Suite, fmt: str) -> str:
        from lhl_platform.clause.report.render import render_csv, render_json, render_text

        if fmt == "json":
            return render_json(built.report, built.checks)
        if fmt == "csv":
            return render_csv(built.report)
        if fmt == "html":
            from lhl_platform.clause.report.html import render_html

            return render_html(built.report, built.checks)
        return render_text(built.report, built.checks, markdown=fmt == "md")

    def failing(self, built: ClauseReport) -> list[tuple[str, str]]:
        return [(c.name, c.summary) for c in built.checks if not c.passed]

    def compare(self, home: Home, suite: Suite, a: str, b: str, request: Any, asked: Asked, *, force: bool,
                fmt: str) -> str:
        from lhl_platform.clause.report.compare import compare_models, render_comparison_json, render_comparison_table

        comparison = compare_models(home, a, b, request, resamples=asked.resamples, seed=asked.seed, force=force)
        return (render_comparison_json(comparison) if fmt == "json"
                else render_comparison_table(comparison, markdown=fmt == "md"))

    def publish(self, built: ClauseReport, suite: Suite, url: Any) -> PublishSummary:
        from lhl_platform.clause.report.publish import publish

        return publish(built.report, url, checks=built.checks)

    def rows_schema(self, suite: Suite) -> dict[str, Any]:
        from lhl_platform.clause.report.marts import schema_document

        return schema_document()


REPORTING = ClauseReporting()



def measure_agreement(home: Home, a: str, b: str, request: Any, *, resamples: int = 2000, seed: int = 0) -> Any:
    """`lhl judge agree A B`: two judges on the true positives in scope both labelled (`clause/agreement.py`)."""
    from lhl_platform.clause.agreement import measure

    return measure(home, a, b, request, resamples=resamples, seed=seed)


def agreement_text(result: Any) -> str:
    from lhl_platform.clause.agreement import text

    return text(result)
