"""A suite's report, from the sections it contributes: built from one read of the warehouse in the suite's scope,
rendered as text or Markdown tables (with the check results), JSON and self-contained HTML (`suite_publish.py`
writes it to a database). The clause suite's report is `build.py`'s; every other suite's is this, so a new suite
brings sections (and the rule its verdict ranks by), never renderers. Each renderer opens with the verdict it is
given: `report/verdict.py`'s `suite_verdict` of the report under the suite's rule, as its reporting computes it.

The JSON is one object: `{"verdict": {...}, "suite": NAME, "scope": {...}, "<section>": [rows], ...}`, rows typed
by each section's row class, NaN as null.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any

from pydantic import BaseModel, Field

from lhl_platform import __version__
from lhl_platform.home import Home
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.report.cost import CostSection, cost_html, cost_json, cost_lines, suite_cost
from lhl_platform.report.figures import leaderboard_strip, naming
from lhl_platform.report.glossary import with_glossary, with_glossary_html
from lhl_platform.report.html import CSS, checks_html, figure_html, section_html
from lhl_platform.report.humane import humane_html, humane_markdown
from lhl_platform.report.layout import html_tables, ordered, text_table, text_tables, view
from lhl_platform.report.monitor import mart_checks, report_sections
from lhl_platform.report.system_nature import SystemNature, by_model, natures_of, shown_name, systems_text
from lhl_platform.report.verdict import Verdict
from lhl_platform.report.verdict_render import render_verdict_html, render_verdict_text
from lhl_platform.stats import nan_to_null
from lhl_platform.stats.bootstrap import DEFAULT_RESAMPLES, bootstrap_as
from lhl_platform.suites.contract import Suite
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ResolvedSuiteScope, ScopeRequest


class SuiteReport(BaseModel):
    suite: str
    title: str
    scope: ResolvedSuiteScope
    sections: dict[str, list[BaseModel]] = Field(default_factory=dict)
    checks: list[CheckOutcome] = Field(default_factory=list)
    notes: dict[str, str] = Field(default_factory=dict)
    titles: dict[str, str] = Field(default_factory=dict)
    # The scope's judge passed (true) or failed (false) its validation, None when never validated; only for a suite
    # whose figures a judge scores (it has a `judge_validation` section).
    judge_validated: bool | None = None
    judged: bool = False
    cost: CostSection | None = None  # the suite's cost section (`cost.py`); None: the suite has no cost marts
    systems: list[SystemNature] = Field(default_factory=list)  # what each system is (`system_nature.py`)


JUDGE_SECTION = "judge_validation"  # a suite whose scores rest on a judge reports its validation in this section


def judged_suite(suite: Suite) -> bool:
    return any(s.name == JUDGE_SECTION for s in suite.sections)


def judge_status(rows: Sequence[BaseModel], judge: str | None) -> bool | None:
    """The judge's validation from its `judge_validation` row: `passed` when `validated` (or when the row has no
    such flag), else None."""
    for row in rows:
        if getattr(row, "judge", None) == judge:
            passed = getattr(row, "passed", None)
            return None if passed is None or not getattr(row, "validated", True) else bool(passed)
    return None


def suite_judge_validated(home: Home, suite: Suite,
                          request: ScopeRequest | None = None) -> tuple[str | None, bool | None]:
    """The scope's judge and its validation, read without the other sections (`lhl compare --suite` checks it
    first); (None, None) for a suite no judge scores."""
    section = next((s for s in suite.sections if s.name == JUDGE_SECTION), None)
    if section is None:
        return None, None
    with read_warehouse(home, request or ScopeRequest(suite=suite.name)) as con:
        found = con.execute(f"select judge from {suite.name}_scope").fetchone()
        judge = None if found is None else found[0]
        return judge, judge_status(section.rows(con), judge)


def build_suite_report(home: Home, suite: Suite, request: ScopeRequest | None = None, *,
                       resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> SuiteReport:
    """The suite's sections and checks, from one read of its marts in the requested scope; its intervals with
    these bootstrap resamples and seed."""
    scope_request = request or ScopeRequest(suite=suite.name)
    with read_warehouse(home, scope_request) as con, bootstrap_as(resamples, seed):
        from lhl_platform.warehouse.build import sql_packages
        from lhl_platform.warehouse.scope import apply_scope

        package = next(p for p in sql_packages() if p.name == suite.name)
        assert package.scope is not None
        from lhl_platform.registry import primary_judge

        scope = apply_scope(con, package.scope, scope_request, primary_judge(home), temp=True)
        sections = {s.name: [s.row.model_validate({k: nan_to_null(v) for k, v in r.model_dump().items()})
                             for r in s.rows(con)] for s in report_sections(suite)}
        checks = [c.check(con) for c in mart_checks(suite)]
        cost = suite_cost(con, suite.name)
        systems = natures_of(con, [*scope.models, *(getattr(r, "model", None) or "" for r in
                                                     sections.get("leaderboard", []))])
    judged = judged_suite(suite) and scope.judge is not None
    return SuiteReport(suite=suite.name, title=suite.title, scope=scope, sections=sections, checks=checks,
                       notes={s.name: s.note for s in report_sections(suite) if s.note},
                       titles={s.name: s.title for s in report_sections(suite)}, judged=judged, cost=cost,
                       judge_validated=judge_status(sections[JUDGE_SECTION], scope.judge) if judged else None,
                       systems=[n for n in systems if n.model])


def judge_legend(report: SuiteReport) -> str | None:
    """Why the leaderboard's `judge_validated` is not true: None when the judge passed, or no judge scores."""
    if not report.judged or report.judge_validated:
        return None
    judge = report.scope.judge
    what = ("FAILED its validation: the figures rest on verdicts it did not show it can give"
            if report.judge_validated is False else "has not been validated: the figures rest on an unvalidated judge")
    return f"judge {judge} {what} (see the judge_validation section and check; `--judge` a judge that passes)"


def with_judge(report: SuiteReport, name: str, row: dict[str, Any]) -> dict[str, Any]:
    """A leaderboard row with its judge's validation, in every format."""
    return {**row, "judge_validated": report.judge_validated} if report.judged and name == "leaderboard" else row


def suite_report_json(report: SuiteReport, verdict: Verdict) -> dict[str, Any]:
    out: dict[str, Any] = {"verdict": verdict.model_dump(mode="json"),  # first
                           "suite": report.suite, "scope": report.scope.model_dump(mode="json")}
    for name, rows in report.sections.items():
        out[name] = [with_judge(report, name, r.model_dump(mode="json")) for r in rows]
    out["systems"] = [n.model_dump(mode="json") for n in report.systems]
    if report.cost is not None:  # before the checks, as in the clause report
        out["cost"] = cost_json(report.cost)
    out["checks"] = [{"name": c.name, "passed": c.passed, "summary": c.summary} for c in report.checks]
    return out


def render_suite_json(report: SuiteReport, verdict: Verdict) -> str:
    return json.dumps(suite_report_json(report, verdict), indent=2, ensure_ascii=False)


def cell_text(value: Any) -> str:
    """A value as a suite's text tables show it."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return str(value)


def _scope_lines(report: SuiteReport) -> list[str]:
    sc = report.scope
    lines = [f"suite:     {report.title} ({sc.suite})", f"item set:  {sc.item_set or 'none'} ({sc.items} items)",
             f"runs:      {', '.join(map(str, sc.runs)) or 'none'}",
             f"models:    {systems_text(sc.models, report.systems)}"]
    status = ("" if not report.judged else " (passed its validation)" if report.judge_validated
              else " (FAILED its validation)" if report.judge_validated is False else " (not validated)")
    if sc.gold_version is not None:
        lines.append(f"gold:      version {sc.gold_version}" + (" (as built, not reviewed)" if sc.gold_version == 1 else
                     f" ({sc.gold_reviewed} of {sc.gold_reviewable} sheet rows reviewed, by {sc.gold_reviewers} "
                     "reviewer(s))"))
    return lines + ([f"judge:     {sc.judge}{status}"] if sc.judge else [])


def render_suite_text(report: SuiteReport, verdict: Verdict, markdown: bool = False) -> str:
    def h(title: str) -> str:
        return f"## {title}" if markdown else f"{title}\n{'=' * len(title)}"

    out = [*render_verdict_text(verdict, markdown), h("Scope"),
           *(f"{'- ' if markdown else ''}{line}" for line in _scope_lines(report)), ""]
    for name, rows in report.sections.items():
        out.append(h(report.titles.get(name, name)))
        if rows:
            shown = ordered(name, [with_judge(report, name, r.model_dump()) for r in rows])
            if markdown:  # for a reader: labels, percent, wide tables split (layout.py)
                out.extend(text_tables(view(name, shown, report.systems), markdown))
            else:  # the terminal's table keeps the column names and fractions of the JSON
                fields = list(shown[0])
                natures = by_model(report.systems)
                out.append(text_table(fields, [[shown_name(r[f], natures) if f == "model" and isinstance(r[f], str)
                                                else cell_text(r[f]) for f in fields] for r in shown], markdown))
            legend = judge_legend(report) if name == "leaderboard" else None
            if legend:  # in Markdown after a blank line: a plain line right under a table is one more row of it
                out.extend(["", legend] if markdown else [legend])
        else:
            out.append("(no rows in scope)")
        if report.notes.get(name):
            out.append(report.notes[name])
        out.append("")
    out.extend(cost_lines(report.cost, markdown))
    if report.checks:
        out.append(h("Checks"))
        out += [f"{'- ' if markdown else ''}[{'PASS' if c.passed else 'FAIL'}] {c.name}: {c.summary}"
                for c in report.checks]
    page = "\n".join(out).rstrip() + "\n"
    return with_glossary(humane_markdown(page, _names(report)), "## Scope") if markdown else page


def _names(report: SuiteReport) -> list[str]:
    """The names from outside the platform a page prints as they are (systems, judge, item set)."""
    sc = report.scope
    return [*sc.models, *(n.model for n in report.systems), *(x for x in (sc.judge, sc.item_set) if x)]


def render_suite_html(report: SuiteReport, suite: Suite, verdict: Verdict) -> str:
    """One self-contained file: the verdict, the scope, every section as a table (exact values in `data-value`)
    with the suite's figure where it draws one, and the checks."""
    natures = by_model(report.systems)
    body = [render_verdict_html(verdict),
            section_html("scope", "Scope", "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in _scope_lines(report))
                         + "</ul>")]
    for section in report_sections(suite):
        rows = report.sections.get(section.name, [])
        parts: list[str] = []
        if rows:
            shown = view(section.name, [with_judge(report, section.name, r.model_dump()) for r in rows],
                         report.systems)
            strip = leaderboard_strip(shown) if section.name == "leaderboard" else None
            if strip is not None:
                parts.append(figure_html(strip[0], strip[1], f"{section.name}_intervals"))
        if section.figure is not None and rows:
            with naming({n.model: shown_name(n.model, natures) for n in report.systems}):  # as the tables name them
                parts.append(figure_html(section.figure(rows), section.title, section.name))
        if rows:
            parts.append(html_tables(shown))
        else:
            parts.append("<p>No rows in scope.</p>")
        if section.note:
            parts.append(f'<div class="note">{escape(section.note)}</div>')
        body.append(section_html(section.name, section.title, *parts))
    body.append(cost_html(report.cost))
    body.append(checks_html(report.checks))
    title = f"LegalHalluLens: {report.title}"
    legend = judge_legend(report)
    banner = ("" if legend is None else f'<div class="note warn banner" id="judge-banner" data-judge='
              f'"{escape(str(report.scope.judge), quote=True)}" data-judge-validated="'
              f'{"" if report.judge_validated is None else "false"}"><b>Judge '
              f'{"failed held-out validation" if report.judge_validated is False else "not validated"}.</b> '
              f'{escape(legend)}</div>')
    return with_glossary_html(humane_html("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{escape(title)}</h1><p class=\"lede\">{escape(suite.description)}</p>{banner}</header>"
            + "".join(body) + f"<footer>Generated by <code>lhl report --suite {escape(report.suite)} --format html"
            f"</code>, <code>lhl_platform</code> {escape(__version__)}. Self-contained: no script, nothing "
            "fetched.</footer></body></html>\n", _names(report)))
