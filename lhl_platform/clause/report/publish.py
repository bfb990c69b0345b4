"""`lhl publish URL` for the clause suite: its report's tables, with their scope and provenance, in any SQLAlchemy
database.

Each report section is written through its row class (`marts.py`) as a table of the mart's name
(`leaderboard`, `per_run_metrics`, `typed_profiles`, ...; computed rows as `rate_intervals` and
`rank_stability`), with two more columns: `scope_key`, which identifies the scope the rows were computed in,
and `row_number`, the row's position in the report. The table `publications` holds one row per published
scope: the scope itself, the code version, the bootstrap settings and the provenance; `publication_checks` holds
the report's check results for it, and `scope_coverage` every system's coverage of it.

Re-publishing a scope replaces its rows: the old rows of that scope are deleted and the new ones inserted in
one transaction, so a reader sees either the old publication or the new one, never both or a mix. Other scopes'
rows are left alone. The URL and its credentials are handled as for every suite (`report/publish.py`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel
from pydantic import Field as PydanticField
from sqlalchemy import JSON, DateTime, delete
from sqlalchemy.engine import URL, Engine
from sqlmodel import Field, Session, SQLModel, create_engine

from lhl_platform.clause.report.marts import COMPUTED, MARTS, LeaderboardRow
from lhl_platform.clause.report.render import judge_validated
from lhl_platform.clause.report.rows import Report
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.report.publish import PublishSummary, add_missing_columns, masked, resolve_url, table_class

# Report section -> table name (the mart's name, or the computed table's).
SECTION_TABLES: dict[str, str] = {
    "leaderboard": "leaderboard", "per_run": "per_run_metrics", "typed_profiles": "typed_profiles",
    "gaps": "category_gaps", "composite": "composite_ranks", "usage": "usage_costs", "rdi": "rdi",
    "run_summary": "run_summary", "clause_profiles": "clause_profiles", "debate_effects": "debate_effects",
    "debate_by_category": "debate_by_category",
    "provenance.sources": "provenance", "statistics.rate_intervals": "rate_intervals",
    "statistics.run_spread": "run_spread", "statistics.missing_summary": "missing_summary",
    "statistics.missing_by_contract": "missing_by_contract",
    "statistics.clause_type_means": "clause_type_means", "statistics.rank_stability": "rank_stability",
    "coverage": "scope_coverage",
}


class Publication(SQLModel, table=True):
    """One published scope: what it covers, what computed it, and when."""

    __tablename__ = "publications"

    scope_key: str = Field(primary_key=True, max_length=64)
    corpus_id: str | None
    corpus_name: str | None
    subset: str | None
    runs: list[int] = Field(sa_type=JSON)
    judge: str
    models: list[str] = Field(sa_type=JSON)
    contracts: int
    matched_contracts: int
    code_version: str
    bootstrap_unit: str
    resamples: int
    seed: int
    level: float
    provenance: list[dict[str, Any]] = Field(sa_type=JSON)
    published_at: datetime = Field(sa_type=DateTime(timezone=True))
    judge_validated: bool | None = Field(default=None, description="the scope's judge passed (true) or failed "
                                         "(false) held-out validation; null: no held-out result")
    systems: list[dict[str, Any]] | None = Field(default=None, sa_type=JSON, description="what each system is "
                                                 "(model, nature, provider, model_id), as the report names it")


class PublishedLeaderboardRow(LeaderboardRow):
    """A leaderboard row as published: with its judge's validation, as in `lhl report --format json`."""

    judge_validated: bool | None = PydanticField(
        default=None, description="the judge behind HalTP, HalGen, JEq and RDI passed (true) or failed (false) its "
                                  "held-out validation; null: no held-out result")


class PublishedCheck(SQLModel, table=True):
    """One check result of a published scope, written with its rows: a reader of the tables sees what the report's
    checks said about them (a partial system, missing rows, an unjudged TP) without the home."""

    __tablename__ = "publication_checks"

    scope_key: str = Field(primary_key=True, max_length=64, foreign_key="publications.scope_key")
    row_number: int = Field(primary_key=True)
    name: str
    passed: bool
    description: str
    summary: str
    check_metadata: dict[str, Any] = Field(sa_type=JSON)


_ROWS: dict[str, type[BaseModel]] = {**MARTS, **COMPUTED, "leaderboard": PublishedLeaderboardRow}
TABLES: dict[str, type[SQLModel]] = {table: table_class(table, _ROWS[table])
                                     for table in dict.fromkeys(SECTION_TABLES.values())}


def scope_key(report: Report) -> str:
    """Equal for equal scopes (corpus, subset, runs, judge, models); the bootstrap settings are not part of it."""
    sc = report.scope
    ident = [sc.corpus_id, sc.subset, sorted(sc.runs), sc.judge, sorted(sc.models)]
    return hashlib.sha256(json.dumps(ident).encode()).hexdigest()[:32]


def _section_rows(report: Report, section: str) -> list[BaseModel]:
    value: Any = report
    for part in section.split("."):
        value = getattr(value, part, None)
        if value is None:
            return []
    return list(value)


def publish(report: Report, url: str | URL | None, *, engine: Engine | None = None,
            checks: Sequence[CheckOutcome] = ()) -> PublishSummary:
    """Write the report's tables for its scope, and the check results computed with it (`publication_checks`),
    replacing that scope's earlier rows in one transaction."""
    target = url if isinstance(url, URL) else resolve_url(url)
    own = engine is None
    engine = engine or create_engine(target)
    key = scope_key(report)
    sc = report.scope
    boot = report.statistics.bootstrap if report.statistics else None
    try:
        tables = [Publication.__table__, PublishedCheck.__table__,  # type: ignore[attr-defined]
                  *(t.__table__ for t in TABLES.values())]  # type: ignore[attr-defined]
        add_missing_columns(engine, tables)
        SQLModel.metadata.create_all(engine, tables=tables)
        status = judge_validated(report)
        counts: dict[str, int] = {}
        replaced = 0
        with Session(engine) as session, session.begin():
            children: list[type[SQLModel]] = [*TABLES.values(), PublishedCheck]
            for table in children:  # children first, then the publication they belong to
                result = session.execute(delete(table).where(table.scope_key == key))  # type: ignore[attr-defined]
                replaced += result.rowcount or 0  # type: ignore[attr-defined]
            session.execute(delete(Publication).where(Publication.scope_key == key))  # type: ignore[arg-type]
            session.add(Publication(
                scope_key=key, corpus_id=sc.corpus_id, corpus_name=sc.corpus_name, subset=sc.subset, runs=sc.runs,
                judge=sc.judge, models=sc.models, contracts=sc.contracts, matched_contracts=sc.matched_contracts,
                code_version=report.provenance.code_version if report.provenance else "",
                bootstrap_unit=boot.unit if boot else "", resamples=boot.resamples if boot else 0,
                seed=boot.seed if boot else 0, level=boot.level if boot else 0.0,
                provenance=[s.model_dump(mode="json") for s in (report.provenance.sources if report.provenance
                                                                else [])],
                published_at=datetime.now(UTC), judge_validated=status,
                systems=[n.model_dump(mode="json") for n in report.systems]))
            session.flush()
            for section, name in SECTION_TABLES.items():
                rows = _section_rows(report, section)
                table = TABLES[name]
                judged = {"judge_validated": status} if name == "leaderboard" else {}
                session.add_all([table.model_validate({**row.model_dump(), **judged, "scope_key": key,
                                                       "row_number": i})
                                 for i, row in enumerate(rows)])
                counts[name] = len(rows)
            session.add_all([PublishedCheck(scope_key=key, row_number=i, name=c.name, passed=c.passed,
                                            description=c.description, summary=c.summary,
                                            check_metadata=json.loads(json.dumps(c.metadata, default=str)))
                             for i, c in enumerate(checks)])
            counts[PublishedCheck.__tablename__] = len(checks)
        return PublishSummary(url=masked(target), scope_key=key, rows=counts, replaced=replaced)
    finally:
        if own:
            engine.dispose()


def read_published(url: str | URL, table: str, key: str | None = None) -> list[BaseModel]:
    """The rows of one published table (of one scope, or all), as the report's row objects in report order."""
    from sqlmodel import select

    target = url if isinstance(url, URL) else resolve_url(url)
    engine = create_engine(target)
    cls = TABLES[table]
    row_cls = _ROWS[table]
    try:
        with Session(engine) as session:
            query = select(cls)
            if key is not None:
                query = query.where(cls.scope_key == key)  # type: ignore[attr-defined]
            found = session.exec(query.order_by(cls.scope_key, cls.row_number)).all()  # type: ignore[attr-defined]
            fields = set(row_cls.model_fields)
            return [row_cls.model_validate({k: v for k, v in r.model_dump().items() if k in fields}) for r in found]
    finally:
        engine.dispose()
