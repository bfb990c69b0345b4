"""The typed result model: every SQL mart has one SQLModel row class, with the same columns and types."""

import json
import types
import typing
from pathlib import Path

import pytest

from lhl_platform.clause.report.build import build_report
from lhl_platform.clause.report.marts import COMPUTED, MARTS
from lhl_platform.home import Home
from lhl_platform.report.marts import is_derived
from lhl_platform.warehouse.build import read_warehouse, sql_models
from orchestration.cli import main

# DuckDB column types and the Python type a row class must declare for them.
DUCKDB_TYPES = {"VARCHAR": str, "BOOLEAN": bool, "DOUBLE": float, "FLOAT": float, "INTEGER": int, "BIGINT": int,
                "HUGEINT": int, "SMALLINT": int, "TINYINT": int, "UBIGINT": int, "UINTEGER": int}


def _python_type(duck: str) -> object:
    if duck.endswith("[]"):
        return list[_python_type(duck[:-2])]  # type: ignore[misc]
    if duck.startswith("DECIMAL"):
        return float
    return DUCKDB_TYPES.get(duck, duck)


def _declared(annotation: object) -> object:
    """The declared type without its `None` option (nullability is not part of the contract)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return args[0] if len(args) == 1 else annotation
    return annotation


def contract_problems(con, table: str, cls) -> list[str]:
    columns = {name: kind for name, kind, *_ in con.execute(f"describe {table}").fetchall()}
    fields = {name: f for name, f in cls.model_fields.items() if not is_derived(cls, name)}
    problems = [f"{table}.{c} is a column but not a field of {cls.__name__}" for c in columns if c not in fields]
    problems += [f"{cls.__name__}.{f} is a field but not a column of {table}" for f in fields if f not in columns]
    for name, kind in columns.items():
        if name in fields and _declared(fields[name].annotation) != _python_type(kind):
            problems.append(f"{table}.{name} is {kind} but {cls.__name__}.{name} is {fields[name].annotation}")
    return problems


@pytest.fixture
def warehouse(demo_home):
    with read_warehouse(Home.resolve(demo_home)) as con:
        yield con


def test_every_mart_has_exactly_one_row_class():
    files = {m.name for m in sql_models(("marts",), packages={"clause", "lexflip"})}  # the clause report's marts
    assert sorted(files - set(MARTS)) == [], "SQL marts without a row class in lhl_platform/clause/report/marts.py"
    assert sorted(set(MARTS) - files) == [], "row classes for marts that do not exist"
    assert len(set(MARTS.values())) == len(MARTS)


@pytest.mark.parametrize("mart", sorted(MARTS))
def test_mart_columns_and_types_match_the_class(warehouse, mart):
    assert contract_problems(warehouse, mart, MARTS[mart]) == []


def test_a_column_added_in_sql_but_not_in_the_class_fails(warehouse):
    warehouse.execute("create or replace temp table leaderboard_plus as "
                      "select *, 1.5 as brand_new, cast(runs as varchar) as runs_text from leaderboard")
    problems = contract_problems(warehouse, "leaderboard_plus", MARTS["leaderboard"])
    assert any("brand_new is a column but not a field" in p for p in problems)
    warehouse.execute("create or replace temp table leaderboard_retyped as "
                      "select * replace (cast(n as varchar) as n) from leaderboard")
    assert any("leaderboard_retyped.n is VARCHAR" in p for p in contract_problems(
        warehouse, "leaderboard_retyped", MARTS["leaderboard"]))


def test_report_json_sections_are_the_row_classes_fields_in_order(demo_home):
    report = json.loads(build_report(Home.resolve(demo_home), resamples=50).model_dump_json())
    for section, mart in (("leaderboard", "leaderboard"), ("per_run", "per_run_metrics"), ("rdi", "rdi"),
                          ("typed_profiles", "typed_profiles"), ("composite", "composite_ranks"),
                          ("clause_profiles", "clause_profiles"), ("usage", "usage_costs")):
        assert list(report[section][0]) == list(MARTS[mart].model_fields), section
    stats = report["statistics"]
    assert list(stats["rate_intervals"][0]) == list(COMPUTED["rate_intervals"].model_fields)
    assert list(stats["rank_stability"][0]) == list(COMPUTED["rank_stability"].model_fields)


def test_report_schema_is_generated_from_the_classes(tmp_path, capsys):
    assert main(["--home", str(tmp_path), "report", "--schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"].endswith("2020-12/schema")
    assert set(schema["properties"]) == set(MARTS) | set(COMPUTED)
    for name, prop in schema["properties"].items():
        ref = prop["items"]["$ref"].split("/")[-1]
        assert ref in schema["$defs"], name
    leaderboard = schema["$defs"][MARTS["leaderboard"].__name__]
    assert leaderboard["properties"]["rdi_ci_low"].get("derived") is True
    assert "derived" not in leaderboard["properties"]["hal_tp"]
    assert set(leaderboard["required"]) >= {"model", "hal_tp", "coverage_differs"}
    out = tmp_path / "schema.json"
    assert main(["--home", str(tmp_path), "report", "--schema", "--out", str(out)]) == 0
    assert json.loads(Path(out).read_text()) == schema
