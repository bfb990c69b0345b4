"""How a suite reports: the capability `lhl report`, `lhl compare` and `lhl publish` (and its `--strict`) run
through, so each of those commands is one path whatever the suite.

A suite declares it as `Suite.reporting`: the scope and report options it takes beyond the runs, models and judge
every suite takes (`options`), how those make its scope request, how it builds its report, renders it in every
format, compares two models, publishes, and which checks `--strict` refuses on. The clause suite declares its own
(`lhl_platform.clause.reporting`); a suite that declares none but has a scope of its own gets the shared report of
its sections (`SectionReporting`, `report/suite_*.py`), so a new suite brings sections, never renderers; a suite
with neither (LexFlip) is refused in one line naming where its results are.

An option a suite does not take is refused in one line naming the suite and the option, from `OPTIONS`. This
module is light: the report stacks load when a method runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from lhl_platform.home import Home
    from lhl_platform.report.publish import PublishSummary
    from lhl_platform.suites.contract import Suite

FORMATS = ("table", "json", "csv", "md", "html")


@dataclass(frozen=True)
class Option:
    """A scope or report option some suites take: `name` is its field of `Asked` (the command line's dest),
    `instead` the options choosing the same thing in a suite without it."""

    name: str
    flag: str
    what: str
    instead: tuple[str, ...] = ()


OPTIONS: dict[str, Option] = {o.name: o for o in (
    Option("corpus", "--corpus", "chooses the clause suite's corpus", ("item_set",)),
    Option("subset", "--subset", "chooses a stored subset of the clause suite's contracts", ("item_set",)),
    Option("item_set", "--item-set", "chooses a suite's item set", ("corpus", "subset")),
    Option("gold_version", "--gold-version", "chooses a version of a suite's reviewed gold (`lhl review`)"),
    Option("scheme", "--scheme", "chooses the clause suite's composite scheme; every other suite's verdict ranks by "
           "its headline metric (docs/method.md, section 17)"),
    Option("cluster", "--bootstrap contract", "resamples the clause suite's contracts for its RDI intervals"),
)}


class Asked(BaseModel):
    """What a command line asks of a suite's report: one request type for every suite. The options in `OPTIONS`
    are None unless given; a suite refuses one it does not take (`refuse_options`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    runs: tuple[int, ...] | None = None
    models: tuple[str, ...] | None = None
    judge: str | None = None
    corpus: str | None = None
    subset: str | None = None
    item_set: str | None = None
    gold_version: int | None = None
    scheme: str | None = None
    resamples: int = 2000
    seed: int = 0
    cluster: bool | None = None  # True: intervals resample contracts (`--bootstrap contract`); None: instances


class Reporting(Protocol):
    """A suite's report, comparison and publication. `request` turns what was asked into the warehouse's scope
    request; `build` reads the report in that scope (`fmt`: the format it is built for, None to publish);
    `failing` names the checks that fail in it (`--strict` refuses on them)."""

    @property
    def options(self) -> frozenset[str]: ...

    def request(self, suite: Suite, asked: Asked) -> Any: ...

    def build(self, home: Home, suite: Suite, request: Any, asked: Asked, fmt: str | None = None) -> Any: ...

    def render(self, built: Any, suite: Suite, fmt: str) -> str: ...

    def failing(self, built: Any) -> list[tuple[str, str]]: ...

    def compare(self, home: Home, suite: Suite, a: str, b: str, request: Any, asked: Asked, *, force: bool,
                fmt: str) -> str: ...

    def publish(self, built: Any, suite: Suite, url: Any) -> PublishSummary: ...


def refusal(suite: str, option: Option, taken: frozenset[str]) -> str:
    instead = [OPTIONS[o].flag for o in option.instead if o in taken]
    return (f"suite {suite} does not take {option.flag}: {option.flag} {option.what}"
            + (f"; suite {suite} takes {', '.join(instead)}" if instead else ""))


def refuse_options(suite: Suite, taken: frozenset[str], asked: Asked) -> None:
    """One line naming the suite and the first option given that it does not take."""
    for name, option in OPTIONS.items():
        if getattr(asked, name) is not None and name not in taken:
            raise ValueError(refusal(suite.name, option, taken))


def results_elsewhere(suite: Suite) -> str:
    """Where the results of a suite with no report of its own are: the clause report's sections its stages record
    (LexFlip's judge validations), in every format."""
    from lhl_platform.report.rows import Report

    shown = [f"`{s.name}`" for s in suite.stages if s.name in Report.model_fields]
    where = (f"the {', '.join(shown)} section{'s' if len(shown) > 1 else ''} of `lhl report` (every format)"
             if shown else "`lhl report` (every format)")
    return (f"suite {suite.name} has no report of its own: it is computed in the clause suite's scope, and its "
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
    `report/suite_report.py` and its renderers, `suite_compare.py`, `suite_publish.py`."""

    options: frozenset[str] = frozenset({"item_set", "gold_version"})

    def request(self, suite: Suite, asked: Asked) -> Any:
        from lhl_platform.warehouse.suite_scope import SuiteScopeRequest

        return SuiteScopeRequest(suite=suite.name, item_set=asked.item_set, judge=asked.judge,
                                 gold_version=asked.gold_version, runs=asked.runs, models=asked.models)

    def build(self, home: Home, suite: Suite, request: Any, asked: Asked, fmt: str | None = None) -> Any:
        from lhl_platform.report.suite_report import build_suite_report

        return build_suite_report(home, suite, request)

    def render(self, built: Any, suite: Suite, fmt: str) -> str:
        from lhl_platform.report.suite_report import render_suite_html, render_suite_json, render_suite_text

        if fmt == "json":
            return render_suite_json(built)
        if fmt == "csv":
            from lhl_platform.report.suite_csv import render_suite_csv

            return render_suite_csv(built)
        if fmt == "html":
            return render_suite_html(built, suite)
        return render_suite_text(built, markdown=fmt == "md")

    def failing(self, built: Any) -> list[tuple[str, str]]:
        return [(c.name, c.summary) for c in built.checks if not c.passed]

    def compare(self, home: Home, suite: Suite, a: str, b: str, request: Any, asked: Asked, *, force: bool,
                fmt: str) -> str:
        from lhl_platform.report.suite_compare import compare_in_suite, render_suite_comparison
        from lhl_platform.report.suite_report import suite_judge_validated

        judge, validated = suite_judge_validated(home, suite, request)
        if validated is False and not force:  # a difference of such scores separates nothing
            raise LookupError(f"judge {judge} failed its validation in suite {suite.name} (see the judge_validation "
                              "section of `lhl report --suite`): not compared; give `--judge NAME` a judge that "
                              "passes, or --force")
        paired = compare_in_suite(home, suite, a, b, request, resamples=asked.resamples, seed=asked.seed)
        return render_suite_comparison(paired, fmt)

    def publish(self, built: Any, suite: Suite, url: Any) -> PublishSummary:
        from lhl_platform.report.suite_publish import publish_suite

        return publish_suite(built, suite, url)


SECTIONS = SectionReporting()
