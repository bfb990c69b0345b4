"""Benchmark: the warehouse's own incremental runner against dbt-duckdb incremental models, on one home.

The issue asked for the machinery to be chosen by measurement. This script translates the clause suite's SQL
models into a dbt-duckdb project (the best-kept candidate: incremental models, `dagster-dbt` would show each as
an asset) and times both on the same home after the same 5-contract partition, interleaved:

- staging models are dbt `incremental` (append), reading only the event segment files they have not loaded yet
  (by file name), as our runner stages only segments committed since the last build;
- the instance-grain models our runner partitions by (model, run) are `incremental` with `delete+insert` on
  those keys, the partitions touched taken from the staging rows this invocation loaded;
- everything else (the default scope, resolved in SQL here, and the marts) is a table, rebuilt each run, as ours.

Both then hold the same marts (checked each round). Other suites' models are left out: the history is clause
outcomes, and their scope tables are resolved in Python. dbt needs its own environment (its dependencies are
not ours):

    python -m venv /tmp/dbt && /tmp/dbt/bin/pip install dbt-core==1.10.23 dbt-duckdb==1.10.1 duckdb==2.0.1
    python benchmarks/history_growth.py --steps 5 --keep /tmp/hg        # a home with 5 M instances
    python benchmarks/dbt_comparison.py /tmp/hg/history --dbt-python /tmp/dbt/bin/python [--repeats 3]

The home is changed (each round imports one more 5-contract partition of a model `watch`).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from history_growth import CONTRACTS, partition  # noqa: E402

import lhl_platform.catalog  # noqa: E402,F401  (registers every suite's SQL package)
from lhl_platform.domain.taxonomy import CATEGORY_OF, CLAUSE_TYPES  # noqa: E402
from lhl_platform.warehouse.models import macros_sql, sql_models  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# The staging tables whose rows name the (model, run) partitions an invocation touches.
STAGED_WITH_KEYS = ["stg_imports", "stg_extractions", "stg_verdicts", "stg_audit_scope"]
MARTS = ["leaderboard", "metric_cube", "per_run_metrics", "typed_profiles", "rdi", "composite_ranks",
         "contract_counts", "missing_summary", "rdi_units", "usage_costs"]


def _refs(sql: str, names: set[str]) -> str:
    def sub(m: re.Match[str]) -> str:
        word = m.group(2)
        return m.group(1) + ("{{ ref('" + word + "') }}" if word in names else word)
    return re.sub(r"(\b(?:from|join)\s+)([a-z_][a-z0-9_]*)", sub, sql, flags=re.IGNORECASE)


def generate_project(home: Path, out: Path) -> int:
    """Write the dbt project for the clause suite's models over this home's events; the number of models."""
    models = [m for m in sql_models() if m.package in ("", "common", "clause")]
    # recomputed per (model, run) key, as our runner does; its per-stream models are tables here
    partitioned = {m.name: m.partition_by for m in models
                   if m.layer != "staging" and m.partition_by and set(m.partition_by) <= {"model", "run"}}
    names = {m.name for m in models} | {"oracle", "clause_taxonomy", "scope", "scope_models", "scope_runs",
                                        "scope_contracts"}
    (out / "models").mkdir(parents=True, exist_ok=True)
    (out / "dbt_project.yml").write_text('name: lhl\nversion: "1.0"\nprofile: lhl\nmodel-paths: ["models"]\n'
                                         'macro-paths: ["macros"]\non-run-start:\n  - "{{ lhl_macros() }}"\n')
    (out / "profiles.yml").write_text(f"lhl:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
                                      f"      path: {out / 'warehouse.duckdb'}\n      threads: 2\n")
    (out / "macros").mkdir(exist_ok=True)
    statements = [s.strip() for s in re.sub(r"--[^\n]*", "", macros_sql()).split(";") if s.strip()]
    body = "\n".join("{% do run_query(" + repr(s) + ") %}" for s in statements)
    dirty = "\n    union all ".join(f"select {{{{ cols }}}} from {{{{ ref('{t}') }}}} "
                                    "where _batch = '{{ invocation_id }}'" for t in STAGED_WITH_KEYS)
    (out / "macros" / "lhl.sql").write_text("{% macro lhl_macros() %}\n" + body + "\n{% endmacro %}\n\n"
                                            "{% macro dirty(cols) %}\n  (select distinct {{ cols }} from (\n    "
                                            + dirty + "\n  ))\n{% endmacro %}\n")
    events = home / "events"
    for m in models:
        folder = out / "models" / m.layer
        folder.mkdir(exist_ok=True)
        sql = re.sub(r"--[^\n]*\n", "\n", m.sql)
        if m.layer == "staging":
            sql = sql.replace("from events where", f"from read_parquet('{events}/*/*.parquet', filename = true, "
                                                   "union_by_name = true) where")
            sql = sql.replace("select p.*, stream, seq, time", "select p.*, stream, seq, time, _file, _batch")
            sql = sql.replace("as p, stream, seq, time",
                              "as p, stream, seq, time, filename as _file, '{{ invocation_id }}' as _batch")
            sql = sql.rstrip().rstrip(")") + ("\n{% if is_incremental() %} and filename not in "
                                              "(select distinct _file from {{ this }}) {% endif %})")
            text = "{{ config(materialized='incremental') }}\n" + sql
        elif m.name in partitioned:
            keys = ", ".join(partitioned[m.name])
            hint = "".join(f"-- depends_on: {{{{ ref('{t}') }}}}\n" for t in STAGED_WITH_KEYS)
            text = hint + (f"{{{{ config(materialized='incremental', unique_key={list(partitioned[m.name])!r}, "
                           "incremental_strategy='delete+insert') }}\n"
                           f"select * from (\n{_refs(sql, names)}\n) x\n{{% if is_incremental() %}}\n"
                           f"where ({keys}) in {{{{ dirty('{keys}') }}}}\n{{% endif %}}\n")
        else:
            kind = "view" if m.stored_as == "view" else "table"
            text = f"{{{{ config(materialized='{kind}') }}}}\n" + _refs(sql, names)
        (folder / f"{m.name}.sql").write_text(text)
    sources = out / "models" / "sources"
    sources.mkdir(exist_ok=True)
    (sources / "oracle.sql").write_text(
        "{{ config(materialized='table') }}\nselect regexp_extract(filename, '([^/]+)/oracle\\.parquet$', 1) as "
        "corpus_id, contract_id, clause_type, category, present\n"
        f"from read_parquet('{home / 'corpora'}/*/oracle.parquet', filename = true)\n"
        if list((home / "corpora").glob("*/oracle.parquet")) else
        "{{ config(materialized='table') }}\nselect null::varchar as corpus_id, null::varchar as contract_id, "
        "null::varchar as clause_type, null::varchar as category, null::boolean as present where false\n")
    values = ", ".join(f"('{c}', '{CATEGORY_OF[c]}', {i})" for i, c in enumerate(CLAUSE_TYPES))
    (sources / "clause_taxonomy.sql").write_text("{{ config(materialized='table') }}\nselect * from (values "
                                                 f"{values}) t(clause_type, category, position)\n")
    # The default scope, in SQL (our runner resolves it in Python): the active corpus, every audited run and
    # model, all its contracts, the primary judge.
    scope = {
        "scope": "select corpus_id, corpus_name, null::varchar as subset, coalesce((select arg_max(name, time) "
                 "from {{ ref('stg_judge_primary_set') }}), 'rubric') as judge from {{ ref('int_corpora') }} "
                 "where is_active",
        "scope_models": "select distinct model from {{ ref('int_audit_scope') }} "
                        "where corpus_id = (select corpus_id from {{ ref('scope') }})",
        "scope_runs": "select distinct run::integer as run from {{ ref('int_audit_scope') }} "
                      "where corpus_id = (select corpus_id from {{ ref('scope') }})",
        "scope_contracts": "select contract_id from {{ ref('oracle') }} where corpus_id = (select corpus_id from "
                           "{{ ref('scope') }}) union select contract_id from {{ ref('int_audit_scope') }} "
                           "where corpus_id = (select corpus_id from {{ ref('scope') }})",
    }
    for name, sql in scope.items():
        (sources / f"{name}.sql").write_text("{{ config(materialized='table') }}\n" + sql + "\n")
    return len(list((out / "models").rglob("*.sql")))


def ours_refresh(home: Path, outcomes: Path | None) -> float:
    """Import the partition (if any), then time `build_warehouse` in a fresh process."""
    code = f"""
import time
import lhl_platform.catalog
from pathlib import Path
from lhl_platform.home import Home
from lhl_platform.clause.importer import import_outcomes
from lhl_platform.warehouse.build import build_warehouse
home = Home.resolve({str(home)!r})
if {str(outcomes or '')!r}:
    import_outcomes(home, Path({str(outcomes)!r}))
started = time.perf_counter()
build_warehouse(home)
print(time.perf_counter() - started)
"""
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT)
    return float(done.stdout.strip().splitlines()[-1])


def dbt_run(dbt_python: str, project: Path) -> tuple[float, float]:
    """`dbt run` in a fresh process: (time inside dbtRunner, wall time with dbt's start-up)."""
    code = f"""
import time
from dbt.cli.main import dbtRunner
started = time.perf_counter()
result = dbtRunner().invoke(["run", "--project-dir", {str(project)!r}, "--profiles-dir", {str(project)!r}, "--quiet"])
assert result.success, result.exception
print(time.perf_counter() - started)
"""
    started = time.perf_counter()
    done = subprocess.run([dbt_python, "-c", code], capture_output=True, text=True, cwd=project)
    if done.returncode:
        raise SystemExit(f"dbt run failed (see {project / 'logs' / 'dbt.log'})")
    return float(done.stdout.strip().splitlines()[-1]), time.perf_counter() - started


def differing_marts(home: Path, project: Path) -> list[str]:
    code = f"""
import duckdb
from lhl_platform.warehouse.store import Store
store = Store({str(home / 'warehouse')!r})
con = duckdb.connect()
con.execute("set file_search_path = '" + str(store.root) + "'")
con.execute("attach '" + str(store.root / store.current().catalog) + "' as ours (read_only)")
con.execute("attach '{project / 'warehouse.duckdb'}' as dbt (read_only)")
for t in {MARTS!r}:
    cols = ", ".join(f'round("{{r[0]}}", 9)' if r[1] == "DOUBLE" else f'"{{r[0]}}"'
                     for r in con.execute(f"describe ours.main.{{t}}").fetchall())
    n = con.execute(f"select count(*) from ((select {{cols}} from dbt.main.{{t}} except all select {{cols}} from "
                    f"ours.main.{{t}}) union all (select {{cols}} from ours.main.{{t}} except all "
                    f"select {{cols}} from dbt.main.{{t}}))").fetchone()[0]
    if n:
        print(f"{{t}}: {{n}} rows differ")
"""
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT)
    return done.stdout.strip().splitlines()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("home", type=Path, help="an lhl home with history (history_growth.py --keep DIR: DIR/history)")
    parser.add_argument("--dbt-python", required=True, help="a Python with dbt-core and dbt-duckdb installed")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    home = args.home.resolve()
    with tempfile.TemporaryDirectory(prefix="lhl-dbt-") as tmp:
        project = Path(tmp) / "project"
        print(f"dbt project: {generate_project(home, project)} models over {home}")
        print(f"ours, up to date first: {ours_refresh(home, None):.2f}s")
        inside, wall = dbt_run(args.dbt_python, project)
        print(f"dbt, first (full) run: {inside:.2f}s ({wall:.2f}s with start-up)")
        ours, dbt, dbt_wall = [], [], []
        for i in range(args.repeats):  # interleaved, so both see the same load
            outcomes = Path(tmp) / f"watch-{i}.parquet"
            partition(0, CONTRACTS[:5], run=900 + i).assign(model="watch").to_parquet(outcomes, index=False)
            ours.append(ours_refresh(home, outcomes))
            inside, wall = dbt_run(args.dbt_python, project)
            dbt.append(inside)
            dbt_wall.append(wall)
            print(f"  round {i + 1}: ours {ours[-1]:.2f}s, dbt {inside:.2f}s ({wall:.2f}s with start-up); marts: "
                  f"{'; '.join(differing_marts(home, project)) or 'the same'}", flush=True)
        o, d = statistics.median(ours), statistics.median(dbt)
        print(f"median refresh after one 5-contract partition: ours {o:.2f}s, dbt {d:.2f}s in process "
              f"({statistics.median(dbt_wall):.2f}s with start-up): dbt / ours {d / o:.1f}x")


if __name__ == "__main__":
    main()
