"""`lhl publish --suite NAME`: a suite's report in any SQLAlchemy database, one table per section (the section's
row class made a table class, as the clause report's are) plus `suite_publications`, one row per published scope
with its check results. Re-publishing a scope replaces its rows in one transaction. Its own module, so building
or rendering a report never loads SQLAlchemy."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, create_model
from pydantic import Field as PydanticField
from sqlalchemy import JSON, DateTime, delete
from sqlalchemy.engine import URL, Engine
from sqlmodel import Field as SqlField
from sqlmodel import Session, SQLModel, create_engine

from lhl_platform import __version__
from lhl_platform.report.monitor import report_sections
from lhl_platform.report.publish import PublishSummary, add_missing_columns, masked, resolve_url, table_class
from lhl_platform.report.suite_report import SuiteReport, judged_suite, with_judge
from lhl_platform.suites.contract import Suite


class SuitePublication(SQLModel, table=True):
    """One published scope of a suite's report."""

    __tablename__ = "suite_publications"

    scope_key: str = SqlField(primary_key=True, max_length=64)
    suite: str
    scope: dict[str, Any] = SqlField(sa_type=JSON)
    checks: list[dict[str, Any]] = SqlField(sa_type=JSON)
    code_version: str
    published_at: datetime = SqlField(sa_type=DateTime(timezone=True))
    judge_validated: bool | None = SqlField(default=None, description="the scope's judge passed (true) or failed "
                                            "(false) its validation; null: never validated, or no judge scores")
    systems: list[dict[str, Any]] | None = SqlField(default=None, sa_type=JSON, description="what each system is "
                                                    "(model, nature, provider, model_id), as the report names it")


_TABLES: dict[str, type[SQLModel]] = {}


def _publish_table(name: str, row: type[BaseModel], judged: bool = False) -> type[SQLModel]:
    """The section's table; a judged suite's leaderboard with its judge's validation, as in the JSON report."""
    if name not in _TABLES:
        if judged:
            row = create_model(f"{row.__name__}Judged", __base__=row, judge_validated=(
                bool | None, PydanticField(default=None, description="the scope's judge passed (true) or failed "
                                           "(false) its validation; null: never validated")))
        _TABLES[name] = table_class(name, row, publications="suite_publications")
    return _TABLES[name]


def suite_scope_key(report: SuiteReport) -> str:
    sc = report.scope
    ident: list[Any] = [sc.suite, sc.item_set, sorted(sc.runs), sorted(sc.models), sc.judge]
    if sc.gold_version is not None:  # each gold version of a reviewed suite is its own published scope
        ident.append(sc.gold_version)
    return hashlib.sha256(json.dumps(ident).encode()).hexdigest()[:32]


def publish_suite(report: SuiteReport, suite: Suite, url: str | URL | None, *,
                  engine: Engine | None = None) -> PublishSummary:
    """Write the suite's sections as tables `<suite>_<section>` (or the section's own name) with the scope key
    and the check results, replacing that scope's earlier rows in one transaction."""
    target = url if isinstance(url, URL) else resolve_url(url)
    own = engine is None
    engine = engine or create_engine(target)
    key = suite_scope_key(report)
    judged = judged_suite(suite)
    tables = {s.name: _publish_table(s.table or f"{suite.name}_{s.name}", s.row, judged and s.name == "leaderboard")
              for s in report_sections(suite)}
    try:
        created = [SuitePublication.__table__, *(t.__table__ for t in tables.values())]  # type: ignore[attr-defined]
        add_missing_columns(engine, created)
        SQLModel.metadata.create_all(engine, tables=created)
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
                code_version=__version__, published_at=datetime.now(UTC), judge_validated=report.judge_validated,
                systems=[n.model_dump(mode="json") for n in report.systems]))
            session.flush()
            for name, cls in tables.items():
                rows: Sequence[BaseModel] = report.sections.get(name, [])
                session.add_all([cls.model_validate({**with_judge(report, name, r.model_dump()), "scope_key": key,
                                                     "row_number": i})
                                 for i, r in enumerate(rows)])
                counts[str(cls.__tablename__)] = len(rows)
        return PublishSummary(url=masked(target), scope_key=key, rows=counts, replaced=replaced)
    finally:
        if own:
            engine.dispose()
