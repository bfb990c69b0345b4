"""Publishing mechanics every suite's `lhl publish` shares: the database URL (from the argument or the environment,
a password from the environment), its masked form, a SQLModel table class made from a report's row class, and
the columns an earlier version's tables lack. What a suite publishes is its own: the clause suite's tables are
`lhl_platform/clause/report/publish.py`, every other suite's `suite_publish.py`.

Credentials are used, never kept: the URL (with its password, if any) is taken at run time from the argument or
`LHL_PUBLISH_URL`, a password can also come from `LHL_PUBLISH_PASSWORD` (or, for PostgreSQL, from libpq's own
`PGPASSWORD` / `PGPASSFILE`), and nothing of the URL is written to the home or printed unmasked.
"""

from __future__ import annotations

import os
import types
import typing
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from sqlalchemy import JSON, BigInteger, Integer, Table, inspect
from sqlalchemy.engine import URL, Engine, make_url
from sqlmodel import Field, SQLModel

PASSWORD_ENV = "LHL_PUBLISH_PASSWORD"
URL_ENV = "LHL_PUBLISH_URL"


def table_class(name: str, row: type[BaseModel], publications: str = "publications") -> type[SQLModel]:
    """A table class for one row class: its fields (lists and mappings as JSON columns) plus the scope key and the
    row's position."""
    keys: dict[str, Any] = {
        "scope_key": Field(primary_key=True, max_length=64, foreign_key=f"{publications}.scope_key"),
        "row_number": Field(primary_key=True),
    }
    namespace: dict[str, Any] = {"__tablename__": name, "__module__": __name__}
    namespace["__annotations__"] = {**{n: f.annotation for n, f in row.model_fields.items()},
                                    "scope_key": str, "row_number": int}
    for field, info in row.model_fields.items():
        bare = info.annotation
        if typing.get_origin(bare) in (typing.Union, types.UnionType):
            bare = next((a for a in typing.get_args(bare) if a is not type(None)), bare)
        namespace[field] = (Field(default=info.default, description=info.description, sa_type=JSON)
                            if typing.get_origin(bare) in (list, dict)
                            else Field(default=info.default, description=info.description))
    namespace.update(keys)
    # named for its table: two suites' row classes may share a name
    title = "".join(part.title() for part in name.split("_"))
    cls: type[SQLModel] = type(f"{title}Table", (SQLModel,), namespace, table=True)
    for column in cls.__table__.columns:  # type: ignore[attr-defined]
        if isinstance(column.type, Integer) and not column.primary_key:
            column.type = BigInteger()  # token counts outgrow 32 bits
    return cls


def resolve_url(url: str | None) -> URL:
    """The database URL from the argument or the environment, with a password from the environment when the URL
    has a user but no password. A bare `postgresql://` uses the psycopg (3) driver."""
    text = url or os.environ.get(URL_ENV)
    if not text:
        raise ValueError(f"give the database URL as an argument or in {URL_ENV}")
    parsed = make_url(text)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.username and parsed.password is None and os.environ.get(PASSWORD_ENV):
        parsed = parsed.set(password=os.environ[PASSWORD_ENV])
    return parsed


def masked(url: URL) -> str:
    return url.render_as_string(hide_password=True)


class PublishSummary(BaseModel):
    url: str
    scope_key: str
    rows: dict[str, int]
    replaced: int


def add_missing_columns(engine: Engine, tables: Sequence[Table]) -> list[str]:
    """Add to tables published by an earlier version the nullable columns they lack (`create_all` creates missing
    tables, never missing columns), so a database published before a field was added takes the new rows; the
    earlier rows hold null there. Returns the `table.column` names added."""
    found = inspect(engine)
    preparer = engine.dialect.identifier_preparer
    added = []
    with engine.begin() as connection:
        for table in tables:
            if not found.has_table(table.name):
                continue
            present = {c["name"] for c in found.get_columns(table.name)}
            for column in table.columns:
                if column.name in present or not column.nullable or column.primary_key:
                    continue
                connection.exec_driver_sql(f"ALTER TABLE {preparer.format_table(table)} ADD COLUMN "
                                           f"{preparer.format_column(column)} {column.type.compile(engine.dialect)}")
                added.append(f"{table.name}.{column.name}")
    return added
