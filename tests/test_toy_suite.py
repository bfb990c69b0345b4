"""A suite lands in its own modules plus one registration: the toy suite of `tests/toy_suite` (name the parties of
each contract) gets partitions, events, resume without repeated calls, usage and cost, marts, a report section in
every format, `lhl compare`, `lhl publish` and Dagster assets, with no edit of the platform."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import save_corpus
from lhl_platform.events.payloads import ModelCall
from lhl_platform.home import Home
from orchestration.cli import main

MODELS = ("toy-a", "toy-b")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home]:
    with registered_for_this_module():
        yield _audited_home(tmp_path_factory)


@contextmanager
def registered_for_this_module() -> Iterator[None]:
    """The one registration, in a catalog of this module's own: the toy suite's events, SQL and models stay out of
    the application's catalog the other test modules see (its modules are imported here, not when the tests are
    collected)."""
    from lhl_platform.catalog import catalog_with
    from lhl_platform.suites import register_suite

    with catalog_with():
        from tests.toy_suite.suite import SUITE

        register_suite(SUITE)
        yield


def _audited_home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.resolve(tmp_path_factory.mktemp("toy")).ensure()
    save_corpus(home, load_master_layout(DEMO_DIR), source=str(DEMO_DIR))
    for name, model_id in zip(MODELS, ("toy-between", "toy-capitals"), strict=True):
        assert main(["--home", str(home.root), "models", "add", name, "--provider", "offline", "--model-id", model_id,
                     "--input-price", "1", "--output-price", "2"]) == 0
    assert main(["--home", str(home.root), "audit", "--suite", "toy", "--models", ",".join(MODELS),
                 "--runs", "1"]) == 0
    return home


def _calls(home: Home) -> list[ModelCall]:
    return [e.data_as(ModelCall) for e in home.events.read() if e.type == "model.call"]


def test_the_toy_partitions_record_their_events_and_every_call_once(home: Home) -> None:
    calls = _calls(home)
    assert len(calls) == 2 * 12 and {c.stage for c in calls} == {"toy-parties"}
    named = [e for e in home.events.read() if e.type == "toy.named"]
    assert len(named) == 2 * 12
    # Re-running the partitions repeats no completed call (resume from the recorded calls and events).
    assert main(["--home", str(home.root), "audit", "--suite", "toy", "--models", ",".join(MODELS),
                 "--runs", "1"]) == 0
    assert len(_calls(home)) == len(calls)
    assert main(["--home", str(home.root), "verify"]) == 0


def test_the_toy_report_section_follows_the_suite_contract_with_usage_and_cost(home: Home, capsys) -> None:
    capsys.readouterr()
    assert main(["--home", str(home.root), "report", "--suite", "toy", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["suite"] == "toy" and report["scope"]["models"] == list(MODELS) and report["scope"]["items"] == 12
    board = {r["model"]: r for r in report["leaderboard"]}
    assert set(board) == set(MODELS) and all(r["contracts"] == 12 and r["calls"] == 12 for r in board.values())
    assert all(r["cost_usd"] > 0 for r in board.values())  # priced at the registered rates
    a = board["toy-a"]
    assert 0 < a["matched"] <= a["named"] and a["precision"] == pytest.approx(a["matched"] / a["named"])
    for fmt in ("table", "md", "html"):
        assert main(["--home", str(home.root), "report", "--suite", "toy", "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "toy-a" in out and "toy-b" in out
    assert main(["--home", str(home.root), "report", "--suite", "toy", "--models", "nope"]) == 1
    assert "'nope' is not audited" in capsys.readouterr().err


def test_the_toy_compare_pairs_the_two_models_on_their_shared_contracts(home: Home, capsys) -> None:
    capsys.readouterr()
    assert main(["--home", str(home.root), "compare", "toy-a", "toy-b", "--suite", "toy", "--format", "json",
                 "--resamples", "200"]) == 0
    paired = json.loads(capsys.readouterr().out)
    (precision,) = paired["metrics"]
    assert paired["units"] == 12 and precision["metric"] == "precision"
    assert precision["diff"] == pytest.approx(precision["a"] - precision["b"])
    assert precision["ci_low"] <= precision["diff"] <= precision["ci_high"]



def test_the_toy_commands_register_in_the_command_tree_and_run(home: Home, capsys) -> None:
    # A suite registered at run time (not declared in lhl_platform.catalog_commands) adds its commands whole.
    capsys.readouterr()
    with pytest.raises(SystemExit) as help_exit:
        main(["toy", "--help"])
    assert help_exit.value.code == 0 and "how many contracts a model named the parties of" in capsys.readouterr().out
    assert main(["--home", str(home.root), "toy", "named", "toy-a"]) == 0
    assert capsys.readouterr().out == "toy-a: parties named in 12 contracts\n"
    with pytest.raises(SystemExit) as error_exit:
        main(["--home", str(home.root), "toy", "named"])  # its own arguments are parsed
    assert error_exit.value.code == 2 and "model" in capsys.readouterr().err


def test_the_toy_publishes_its_sections_with_the_scope(home: Home, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'toy.db'}"
    assert main(["--home", str(home.root), "publish", url, "--suite", "toy"]) == 0
    with create_engine(url).connect() as con:
        rows = con.execute(text("select model, precision from toy_leaderboard order by model")).fetchall()
        scopes = con.execute(text("select suite from suite_publications")).fetchall()
    assert [r[0] for r in rows] == list(MODELS) and scopes == [("toy",)]


def test_the_toy_suite_is_in_the_dagster_code_location_with_lineage(home: Home) -> None:
    from orchestration.definitions import definitions

    defs = definitions()
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert {"toy_parties", "toy_scores", "stg_toy_named", "toy_cells", "toy_leaderboard"} <= keys
    assert defs.resolve_job_def("toy_partition") is not None

    def parents(name: str) -> set[str]:
        from dagster import AssetKey

        return {p.to_user_string() for p in graph.get(AssetKey(name)).parent_keys}

    assert "toy_parties" in parents("stg_toy_named") and "toy_units" in parents("toy_leaderboard")


def test_the_toy_suite_is_registered_in_its_own_catalog_only(home: Home) -> None:
    from lhl_platform.catalog import CATALOG
    from lhl_platform.registries import active
    from lhl_platform.suites import get_suite

    own = active()
    assert own is not CATALOG and get_suite("toy").name == "toy"
    assert "toy" in own.suites and "toy.named" in own.kinds and any(p.name == "toy" for p in own.packages)
    assert any(model_id.startswith("toy-") for _, model_id in own.offline)
    # the application's catalog holds none of it, and keeps its own code location
    assert "toy" not in CATALOG.suites and not [k for k in CATALOG.kinds if k.startswith("toy.")]
    assert not [p for p in CATALOG.packages if p.name == "toy"]
    assert not [m for _, m in CATALOG.offline if m.startswith("toy-")]
    assert set(own.suites) - set(CATALOG.suites) == {"toy"}
