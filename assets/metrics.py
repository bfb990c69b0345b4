"""SQL models as assets: one asset per `sql/<layer>/*.sql` file (groups staging, intermediate, marts), built in
one pass (one DuckDB writer). The marts shown here are those of the default scope: the active corpus, every
audited run and model, the primary judge."""


from collections.abc import Iterator
from typing import Any

from dagster import AssetExecutionContext, AssetKey, AssetSpec, MaterializeResult, MetadataValue, multi_asset

from assets.corpus import clause_taxonomy, oracle
from assets.debate import debate_calibration, debate_outcomes, debate_verdicts
from assets.profiles import model_profiles
from lhl_platform.warehouse.build import SOURCES, SqlModel, build_warehouse, read_warehouse, sql_models
from resources import LhlHome

# Lineage: extractions[m|r] -> judge_verdicts[m|r] -> model_profiles[m|r] -> the SQL models.
_UPSTREAM = [model_profiles.key, oracle.key, clause_taxonomy.key]
MODELS = sql_models()


def _upstream(model: SqlModel) -> list[AssetKey]:
    """The assets whose events a staging model reads."""
    if model.name == "stg_debate_calibrations":
        return [debate_calibration.key]
    if model.name.startswith("stg_debate_"):
        return [debate_outcomes.key, debate_verdicts.key]
    return _UPSTREAM


def _spec(model: SqlModel) -> AssetSpec:
    internal = [AssetKey(d) for d in model.depends_on if d not in SOURCES]
    return AssetSpec(model.name, deps=internal or _upstream(model), description=model.description,
                     group_name=model.layer, kinds={"duckdb", "sql"})


@multi_asset(specs=[_spec(m) for m in MODELS], can_subset=True,
             pool="lhl_warehouse", name="sql_models")
def sql_model_assets(context: AssetExecutionContext, lhl: LhlHome) -> Iterator[MaterializeResult]:
    home = lhl.home()
    # The whole projection is rebuilt from the events (it takes seconds); selection only limits what is reported.
    build_warehouse(home, force=True)
    selected = [m.name for m in MODELS if AssetKey(m.name) in context.selected_asset_keys]
    with read_warehouse(home) as con:
        figures = _figures(con, selected)
        for name in selected:
            rows = con.execute(f"select count(*) from {name}").fetchone()[0]  # type: ignore[index]
            yield MaterializeResult(asset_key=name, metadata={"rows": int(rows), **figures.get(name, {})})


def _figures(con: Any, selected: list[str]) -> dict[str, dict[str, Any]]:
    """The HTML report's figures for the marts they describe, as Markdown images with inline SVG data URIs (the
    UI's Markdown metadata renders `data:` images; nothing is fetched)."""
    from lhl_platform.report.build import NothingInScope, report_from
    from lhl_platform.report.figures import FIGURE_MARTS, data_uri, mart_figures

    if not set(FIGURE_MARTS.values()) & set(selected):
        return {}
    try:
        report = report_from(con)
    except NothingInScope:
        return {}
    return {mart: {title: MetadataValue.md(f"![{title}]({data_uri(svg)})") for title, svg in figures.items()}
            for mart, figures in mart_figures(report).items()}
