"""SQL models as assets: one asset per `sql/<layer>/*.sql` file (groups staging, intermediate, marts), built in
one pass (one DuckDB writer). The marts shown here are those of the default scope: the active corpus, every
audited run and model, the primary judge."""


from collections.abc import Iterator

from dagster import AssetExecutionContext, AssetKey, AssetSpec, MaterializeResult, multi_asset

from assets.corpus import clause_taxonomy, oracle
from assets.profiles import model_profiles
from lhl_platform.warehouse.build import SOURCES, SqlModel, build_warehouse, read_warehouse, sql_models
from resources import LhlHome

# Lineage: extractions[m|r] -> judge_verdicts[m|r] -> model_profiles[m|r] -> the SQL models.
_UPSTREAM = [model_profiles.key, oracle.key, clause_taxonomy.key]
MODELS = sql_models()


def _spec(model: SqlModel) -> AssetSpec:
    internal = [AssetKey(d) for d in model.depends_on if d not in SOURCES]
    return AssetSpec(model.name, deps=internal or _UPSTREAM, description=model.description, group_name=model.layer,
                     kinds={"duckdb", "sql"})


@multi_asset(specs=[_spec(m) for m in MODELS], can_subset=True,
             pool="lhl_warehouse", name="sql_models")
def sql_model_assets(context: AssetExecutionContext, lhl: LhlHome) -> Iterator[MaterializeResult]:
    home = lhl.home()
    # The whole projection is rebuilt from the events (it takes seconds); selection only limits what is reported.
    build_warehouse(home, force=True)
    selected = [m.name for m in MODELS if AssetKey(m.name) in context.selected_asset_keys]
    with read_warehouse(home) as con:
        for name in selected:
            rows = con.execute(f"select count(*) from {name}").fetchone()[0]  # type: ignore[index]
            yield MaterializeResult(asset_key=name, metadata={"rows": int(rows)})
