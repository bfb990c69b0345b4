"""A suite's report, from the sections it contributes: built from one read of the warehouse in the suite's scope,
rendered as text or Markdown tables (with the check results), JSON, self-contained HTML, and published to a
database. The clause suite's report is `build.py`'s; every other suite's is this, so a new suite brings sections,
never renderers.

The JSON is one object: `{"suite": NAME, "scope": {...}, "<section>": [rows], ...}`, rows typed by each section's
row class, NaN as null.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from html import escape
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import JSON, DateTime, delete
from sqlalchemy.engine import URL, Engine
from sqlmodel import Field as SqlField
from sqlmodel import Session, SQLModel, create_engine

from lhl_platform import __version__
from lhl_platform.home import Home
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.report.html import _CSS, Cell, _checks, _figure, _section, table
from lhl_platform.report.publish import PublishSummary, _table_class, masked, resolve_url
from lhl_platform.report.render import _table
from lhl_platform.stats import nan_to_null
from lhl_platform.suites.contract import Suite
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.suite_scope import ResolvedSuiteScope, SuiteScopeRequest


class SuiteReport(BaseModel):
    suite: str
    title: str
    scope: ResolvedSuiteScope
    sections: dict[str, list[BaseModel]] = Field(default_factory=dict)
    checks: list[CheckOutcome] = Field(default_factory=list)
    notes: dict[str, str] = Field(default_factory=dict)
    titles: dict[str, str] = Field(default_factory=dict)


def build_suite_report(home: Home, suite: Suite, request: SuiteScopeRequest | None = None) -> SuiteReport:
    """The suite's sections and checks, from one read of its marts in the requested scope."""
    scope_request = request or SuiteScopeRequest(suite=suite.name)
    with read_warehouse(home, scope_request) as con:
        from lhl_platform.warehouse.build import sql_packages
        from lhl_platform.warehouse.suite_scope import apply_suite_scope

        package = next(p for p in sql_packages() if p.name == suite.name)
        assert package.scope is not None
        from lhl_platform.registry import primary_judge

        scope = apply_suite_scope(con, package.scope, scope_request, primary_judge(home), temp=True)
        sections = {s.name: [s.row.model_validate({k: nan_to_null(v) for k, v in r.model_dump().items()})
                             for r in s.rows(con)] for s in suite.sections}
        checks = [c.check(con) for c in suite.checks]
    return SuiteReport(suite=suite.name, title=suite.title, scope=scope, sections=sections, checks=checks,
                       notes={s.name: s.note for s in suite.sections if s.note},
                       titles={s.name: s.title for s in suite.sections})


def suite_report_json(report: SuiteReport) -> dict[str, Any]:
    out: dict[str, Any] = {"suite": report.suite, "scope": report.scope.model_dump(mode="json")}
    for name, rows in report.sections.items():
        out[name] = [r.model_dump(mode="json") for r in rows]
    out["checks"] = [{"name": c.name, "passed": c.passed, "summary": c.summary} for c in report.checks]
    return out


def render_suite_json(report: SuiteReport) -> str:
    return json.dumps(suite_report_json(report), indent=2, ensure_ascii=False)


def _text(value: Any) -> str:
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
             f"runs:      {', '.join(map(str, sc.runs)) or 'none'}", f"models:    {', '.join(sc.models) or 'none'}"]
    return lines + ([f"judge:     {sc.judge}"] if sc.judge else [])


def render_suite_text(report: SuiteReport, markdown: bool = False) -> str:
    def h(title: str) -> str:
        return f"## {title}" if markdown else f"{title}\n{'=' * len(title)}"

    out = [h("Scope"), *(f"{'- ' if markdown else ''}{line}" for line in _scope_lines(report)), ""]
    for name, rows in report.sections.items():
        out.append(h(report.titles.get(name, name)))
        if rows:
            fields = list(type(rows[0]).model_fields)
            out.append(_table(fields, [[_text(getattr(r, f)) for f in fields] for r in rows], markdown))
        else:
            out.append("(no rows in scope)")
        if report.notes.get(name):
            out.append(report.notes[name])
        out.append("")
    if report.checks:
        out.append(h("Checks"))
        out += [f"{'- ' if markdown else ''}[{'PASS' if c.passed else 'FAIL'}] {c.name}: {c.summary}"
                for c in report.checks]
    return "\n".join(out).rstrip() + "\n"


def render_suite_html(report: SuiteReport, suite: Suite) -> str:
    """One self-contained file: the scope, every section as a table (exact values in `data-value`) with the
    suite's figure where it draws one, and the checks."""
    body = [_section("scope", "Scope", "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in _scope_lines(report))
                     + "</ul>")]
    for section in suite.sections:
        rows = report.sections.get(section.name, [])
        parts: list[str] = []
        if section.figure is not None and rows:
            parts.append(_figure(section.figure(rows), section.title, section.name))
        if rows:
            fields = list(type(rows[0]).model_fields)
            parts.append(table(section.name, fields, [({}, [Cell(_text(getattr(r, f)), getattr(r, f), f)
                                                            for f in fields]) for r in rows]))
        else:
            parts.append("<p>No rows in scope.</p>")
        if section.note:
            parts.append(f'<div class="note">{escape(section.note)}</div>')
        body.append(_section(section.name, section.title, *parts))
    body.append(_checks(report.checks))
    title = f"LegalHalluLens: {report.title}"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
            f"<header><h1>{escape(title)}</h1><p class=\"lede\">{escape(suite.description)}</p></header>"
            + "".join(body) + f"<footer>Generated by <code>lhl report --suite {escape(report.suite)} --format html"
            f"</code>, lhl_platform {escape(__version__)}. Self-contained: no script, nothing fetched.</footer>"
            "</body></html>\n")


# Publishing ---------------------------------------------------------------------------------------------------

class SuitePublication(SQLModel, table=True):
    """One published scope of a suite's report."""

    __tablename__ = "suite_publications"

    scope_key: str = SqlField(primary_key=True, max_length=64)
    suite: str
    scope: dict[str, Any] = SqlField(sa_type=JSON)
    checks: list[dict[str, Any]] = SqlField(sa_type=JSON)
    code_version: str
    published_at: datetime = SqlField(sa_type=DateTime(timezone=True))


_TABLES: dict[str, type[SQLModel]] = {}


def _publish_table(name: str, row: type[BaseModel]) -> type[SQLModel]:
    if name not in _TABLES:
        if not issubclass(row, SQLModel):
            raise TypeError(f"section row class {row.__name__} must be a SQLModel class to be published")
        _TABLES[name] = _table_class(name, row, publications="suite_publications")
    return _TABLES[name]


def suite_scope_key(report: SuiteReport) -> str:
    sc = report.scope
    ident = [sc.suite, sc.item_set, sorted(sc.runs), sorted(sc.models), sc.judge]
    return hashlib.sha256(json.dumps(ident).encode()).hexdigest()[:32]


def publish_suite(report: SuiteReport, suite: Suite, url: str | URL | None, *,
                  engine: Engine | None = None) -> PublishSummary:
    """Write the suite's sections as tables `<suite>_<section>` (or the section's own name) with the scope key
    and the check results, replacing that scope's earlier rows in one transaction."""
    target = url if isinstance(url, URL) else resolve_url(url)
    own = engine is None
    engine = engine or create_engine(target)
    key = suite_scope_key(report)
    tables = {s.name: _publish_table(s.table or f"{suite.name}_{s.name}", s.row) for s in suite.sections}
    try:
        SQLModel.metadata.create_all(engine, tables=[SuitePublication.__table__,  # type: ignore[attr-defined]
                                                     *(t.__table__ for t in tables.values())])  # type: ignore[attr-defined]
        counts: dict[str, int] = {}
        replaced = 0
        with Session(engine) as session, session.begin():
            for cls in tables.values():
                result = session.execute(delete(cls).where(cls.scope_key == key))  # type: ignore[attr-defined]
                replaced += result.rowcount or 0  # type: ignore[attr-defined]
            session.execute(delete(SuitePublication).where(SuitePublication.scope_key == key))  # type: ignore[arg-type]
            session.add(SuitePublication(
                scope_key=key, suite=suite.name, scope=report.scope.model_dump(mode="json"),
                checks=[{"name": c.name, "passed": c.passed, "summary": c.summary} for c in report.checks],
                code_version=__version__, published_at=datetime.now(UTC)))
            session.flush()
            for name, cls in tables.items():
                rows: Sequence[BaseModel] = report.sections.get(name, [])
                session.add_all([cls.model_validate({**r.model_dump(), "scope_key": key, "row_number": i})
                                 for i, r in enumerate(rows)])
                counts[str(cls.__tablename__)] = len(rows)
        return PublishSummary(url=masked(target), scope_key=key, rows=counts, replaced=replaced)
    finally:
        if own:
            engine.dispose()
