"""SQL models as assets: one asset per model of every suite (the generated staging models, each folder's
intermediate and marts; groups staging, intermediate, marts), built in one pass (one DuckDB writer). The marts
shown here are those of the default scope: the active corpus, every audited run and model, the primary judge. A
suite with a scope of its own has its scope tables (`<suite>_scope`, `_models`, `_runs`, `_items`) shown too, in
group `scope`, computed from its cells (and its judgments) by the same build."""


from collections.abc import Iterator
from graphlib import TopologicalSorter
from typing import Any

from dagster import (
    AssetExecutionContext,
    AssetKey,
    AssetsDefinition,
    AssetSpec,
    MaterializeResult,
    MetadataValue,
    multi_asset,
)

import lhl_platform.catalog  # noqa: F401  (every suite's SQL folder and event types, before the models are listed)
from lhl_platform.suites import suites
from lhl_platform.warehouse.build import SqlModel, build_warehouse, read_warehouse, sql_models, sql_packages
from lhl_platform.warehouse.models import source_names
from resources import LhlHome


def _writers() -> dict[str, list[AssetKey]]:
    """Per event type, the stages whose staging model reads what they recorded (`Stage.feeds`)."""
    writers: dict[str, list[AssetKey]] = {}
    for suite in suites():
        for stage in suite.stages:
            for event_type in stage.feeds:
                writers.setdefault(event_type, []).append(AssetKey(stage.name))
    return writers


def _specs(models: list[SqlModel]) -> list[AssetSpec]:
    from lhl_platform.events.kinds import registered_kinds

    writers = _writers()
    staged = {kind.staging: kind.name for kind in registered_kinds()}
    stages = {stage.name for suite in suites() for stage in suite.stages}

    def deps(model: SqlModel) -> list[AssetKey]:
        if model.name in staged:
            return writers.get(staged[model.name], [])
        # the source tables a stage of the same name records (the corpus's oracle, the taxonomy)
        return [AssetKey(d) for d in model.depends_on if d not in source_names() or d in stages]

    return [AssetSpec(m.name, deps=deps(m), description=m.description, group_name=m.layer, kinds={"duckdb", "sql"})
            for m in models] + _scope_specs()


def _in_order(specs: list[AssetSpec]) -> list[AssetSpec]:
    """Upstream first (a multi-asset yields its outputs in dependency order), the scope tables among the models."""
    by_key = {spec.key: spec for spec in specs}
    order = TopologicalSorter({k: {d.asset_key for d in s.deps} & set(by_key) for k, s in by_key.items()})
    return [by_key[key] for key in order.static_order()]


def _scope_specs() -> list[AssetSpec]:
    """The scope tables of the suites that have their own: resolved from the suite's cells (the item set recorded
    last, every model and run audited on it) and, for a judged suite, its judgments."""
    specs = []
    for package in sql_packages():
        scope = package.scope
        if scope is None:
            continue
        upstream = [AssetKey(scope.cells), *([AssetKey(scope.judgments)] if scope.judgments else [])]
        held = ("item set and judge", "models", "runs", "items")
        for table, what in zip(scope.tables, held, strict=True):
            specs.append(AssetSpec(table, deps=upstream, group_name="scope", kinds={"duckdb", "sql"},
                                   description=f"The {what} of the {scope.suite} suite's default scope, which its "
                                               "marts are computed in."))
    return specs


def build_sql_assets() -> AssetsDefinition:
    """One asset per SQL model of the suites registered now, built in one pass."""
    models = sql_models()
    specs = _in_order(_specs(models))

    @multi_asset(specs=specs, can_subset=True, pool="lhl_warehouse", name="sql_models")
    def sql_model_assets(context: AssetExecutionContext, lhl: LhlHome) -> Iterator[MaterializeResult]:
        home = lhl.home()
        # A refresh: only what the new events touch is recomputed (`lhl warehouse rebuild` rebuilds everything);
        # selection only limits what is reported.
        build_warehouse(home)
        selected = [s.key.to_user_string() for s in specs if s.key in context.selected_asset_keys]
        with read_warehouse(home) as con:
            figures = _figures(con, selected)
            for name, numbers in _headlines(con, selected).items():
                figures.setdefault(name, {}).update(numbers)
            for name in selected:
                rows = con.execute(f"select count(*) from {name}").fetchone()[0]  # type: ignore[index]
                yield MaterializeResult(asset_key=name, metadata={"rows": int(rows), **figures.get(name, {})})

    return sql_model_assets


def _headlines(con: Any, selected: list[str]) -> dict[str, dict[str, Any]]:
    """Each monitored suite's headline mart: its models' newest overall figures as numbers, which the UI plots
    materialization by materialization."""
    from lhl_platform.report.monitor import headline_figures, suite_monitor_report

    out: dict[str, dict[str, Any]] = {}
    for suite in suites():
        monitor = suite.monitor
        if monitor is not None and monitor.headline in selected:
            numbers = headline_figures(suite_monitor_report(con, suite))
            out[monitor.headline] = {k: MetadataValue.float(v) for k, v in numbers.items()}
    return out


def _figures(con: Any, selected: list[str]) -> dict[str, dict[str, Any]]:
    """The HTML report's figures for the marts they describe, as Markdown images with inline SVG data URIs (the
    UI's Markdown metadata renders `data:` images; nothing is fetched)."""
    from lhl_platform.clause.report.build import NothingInScope, report_from
    from lhl_platform.clause.report.figures import FIGURE_MARTS, mart_figures
    from lhl_platform.report.figures import data_uri

    if not set(FIGURE_MARTS.values()) & set(selected):
        return {}
    try:
        report = report_from(con)
    except NothingInScope:
        return {}
    return {mart: {title: MetadataValue.md(f"![{title}]({data_uri(svg)})") for title, svg in figures.items()}
            for mart, figures in mart_figures(report).items()}
