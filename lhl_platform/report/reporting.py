"""Which reporting a suite runs through (`suites/reporting.py`): its declared one (a suite with a scope of its own
declares `SectionReporting` with the rule its verdict ranks by), or, declaring none, the shared report of its
sections in its own scope with nothing ranked (`SECTIONS`: `suite_report.py` and its renderers, `suite_compare.py`,
`suite_publish.py`); a suite with neither is refused in one line naming where its results are. Light: each method
loads what it runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lhl_platform.suites.reporting import OPTIONS, Asked, Reporting, refusal, refuse_options

if TYPE_CHECKING:
    from lhl_platform.home import Home
    from lhl_platform.report.publish import PublishSummary
    from lhl_platform.report.verdict import SuiteRule
    from lhl_platform.suites.contract import Suite


def results_elsewhere(suite: Suite) -> str:
    """Where the results of a suite with no report of its own are: the sections its stages record in the report of
    the suite whose scope it is computed in (the suite whose scope is `shared`, read by those without one; LexFlip's
    judge validations are a section of the clause report), in every format."""
    from lhl_platform.suites import suites

    hosts = [(s, s.reporting) for s in suites()
             if s is not suite and s.scope is not None and s.scope.shared and s.reporting is not None]
    if not hosts:
        return f"suite {suite.name} has no report of its own, and no suite reports in the scope it is computed in"
    host, reporting = hosts[0]
    shown = [f"`{s.name}`" for s in suite.stages if s.name in reporting.sections(host)]
    where = (f"the {', '.join(shown)} section{'s' if len(shown) > 1 else ''} of `lhl report` (every format)"
             if shown else "`lhl report` (every format)")
    return (f"suite {suite.name} has no report of its own: it is computed in the {host.name} suite's scope, and its "
            f"results are {where}")


def reporting_of(suite: Suite) -> Reporting:
    """The suite's declared reporting; the shared report of its sections for a suite with a scope of its own; else
    one line saying where its results are."""
    if suite.reporting is not None:
        return suite.reporting
    if suite.scope is not None:
        return SECTIONS
    raise LookupError(results_elsewhere(suite))


def scoped(suite: Suite, asked: Asked) -> tuple[Reporting, Any]:
    """The suite's reporting and its scope request for what was asked, an option it does not take refused."""
    reporting = reporting_of(suite)
    refuse_options(suite, reporting.options, asked)
    return reporting, reporting.request(suite, asked)


@dataclass(frozen=True)
class SectionReporting:
    """The shared report of a suite's sections in its own scope (item set, runs, models, judge, gold version):
    `report/suite_report.py` and its renderers, `suite_compare.py`, `suite_publish.py`. `verdict` is the rule its
    verdict ranks by, declared in the suite's package (`report/verdict.py`, `SuiteRule`); None: nothing is ranked."""

    verdict: SuiteRule | None = None
    options: frozenset[str] = frozenset({"item_set", "gold_version"})

    def sections(self, suite: Suite) -> frozenset[str]:
        from lhl_platform.report.monitor import report_sections

        return frozenset(s.name for s in report_sections(suite))

    def request(self, suite: Suite, asked: Asked) -> Any:
        from lhl_platform.warehouse.scope import ScopeRequest

        return ScopeRequest(suite=suite.name, item_set=asked.item_set, judge=asked.judge,
                                 gold_version=asked.gold_version, runs=asked.runs, models=asked.models)

    def build(self, home: Home, suite: Suite, request: Any, asked: Asked, fmt: str | None = None) -> Any:
        from lhl_platform.report.suite_report import build_suite_report

        return build_suite_report(home, suite, request, resamples=asked.resamples, seed=asked.seed)

    def render(self, built: Any, suite: Suite, fmt: str) -> str:
        from lhl_platform.report.suite_report import render_suite_html, render_suite_json, render_suite_text
        from lhl_platform.report.verdict import suite_verdict

        verdict = suite_verdict(built, self.verdict)
        if fmt == "json":
            return render_suite_json(built, verdict)
        if fmt == "csv":
            from lhl_platform.report.suite_csv import render_suite_csv

            return render_suite_csv(built, verdict)
        if fmt == "html":
            return render_suite_html(built, suite, verdict)
        return render_suite_text(built, verdict, markdown=fmt == "md")

    def rows_schema(self, suite: Suite) -> dict[str, Any]:
        # its rows are typed in its JSON report; the command refuses `--schema` before asking (`options`)
        raise ValueError(refusal(suite.name, OPTIONS["rows_schema"], self.options))

    def failing(self, built: Any) -> list[tuple[str, str]]:
        return [(c.name, c.summary) for c in built.checks if not c.passed]

    def compare(self, home: Home, suite: Suite, a: str, b: str, request: Any, asked: Asked, *, force: bool,
                fmt: str) -> str:
        from lhl_platform.report.suite_compare import compare_in_suite, render_suite_comparison
        from lhl_platform.report.suite_report import suite_judge_validated

        judge, validated = suite_judge_validated(home, suite, request)
        if validated is False and not force:  # a difference of such scores separates nothing
            raise LookupError(f"judge {judge} failed held-out validation in suite {suite.name} (see the "
                              "judge_validation section of `lhl report --suite`): not compared; give `--judge NAME` a "
                              "judge that passes, or --force")
        paired = compare_in_suite(home, suite, a, b, request, resamples=asked.resamples, seed=asked.seed)
        return render_suite_comparison(paired, fmt)

    def publish(self, built: Any, suite: Suite, url: Any) -> PublishSummary:
        from lhl_platform.report.suite_publish import publish_suite

        return publish_suite(built, suite, url)


SECTIONS = SectionReporting()
