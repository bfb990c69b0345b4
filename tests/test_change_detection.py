"""Monitoring across audit rounds (docs/method.md, section 12), the same tests for every suite through the shared
code: one point per round and model with its interval; rounds drawn from fixed rates raise no alert; a sharp drop
of one model's figure raises exactly one alert, in the round it happened, naming that model, with from -> to and
the adjusted p-value; a detected change becomes the new normal; a partial round is drawn but never tested."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from lhl_platform.home import Home
from lhl_platform.monitoring.detect import Settings
from lhl_platform.monitoring.estimate import Stats, estimate, holm
from lhl_platform.report.monitor import mart_checks, read_monitor_report
from lhl_platform.suites import get_suite
from lhl_platform.warehouse.scope import ScopeRequest
from orchestration.cli import main
from tests import speed_tmpfs
from tests.helpers import outcome, write_outcomes

tmp_path = speed_tmpfs.tmp_path
tmp_path_factory = speed_tmpfs.tmp_path_factory
tmpfs_factory = speed_tmpfs.tmpfs_factory

MODELS = ("alpha", "beta", "gamma")
ROUNDS = 8
RATES = {"alpha": 0.85, "beta": 0.7, "gamma": 0.55}  # each model's fixed true rate in every round
DROPPED = 0.1  # beta's rate in the dropped category in the last round


def lhl(home: Home, *args: str) -> int:
    return main(["--home", str(home.root), *args])


# Each suite's rounds, written the way another pipeline would hand them over: `rate(model, run, category)` is the
# chance a present clause / gold tuple / gold element is found in that round.
Rate = Callable[[str, int, str], float]


def _scrub(home: Home, tmp: Path, rate: Rate, runs: range) -> None:
    contracts = [f"k{c}" for c in range(6)]
    categories = ("undefined_capitalized_terms", "unused_defined_terms")
    if not (tmp / "items.jsonl").exists():
        lines = []
        for c in contracts:
            gold = [{"category": cat, "term": f"Term {cat[:3]} {i}", "location": f"{i + 1}"}
                    for cat in categories for i in range(10)]
            lines.append(json.dumps({"contract_id": c, "text": f"Contract {c}. " + " ".join(g["term"] for g in gold),
                                     "gold": gold}))
        (tmp / "items.jsonl").write_text("\n".join(lines) + "\n")
        assert lhl(home, "ingest", "contractscrub", str(tmp / "items.jsonl")) == 0
    from lhl_platform.scrub.categories import CATEGORY_KEYS

    rows = []
    for model in MODELS:
        for run in runs:
            draw = random.Random(f"scrub|{model}|{run}")
            for c in contracts:
                for key in CATEGORY_KEYS:
                    found = [{"term": f"Term {key[:3]} {i}", "location": f"{i + 1}"} for i in range(10)
                             if key in categories and draw.random() < rate(model, run, key)]
                    rows.append(json.dumps({"model": model, "run": run, "contract_id": c, "category": key,
                                            "findings": found}))
    path = tmp / f"findings-{runs.start}.jsonl"
    path.write_text("\n".join(rows) + "\n")
    assert lhl(home, "import", "findings", str(path)) == 0


CLAUSES = {"Non-Compete": "obligation", "Cap On Liability": "numeric"}


def _clause(home: Home, tmp: Path, rate: Rate, runs: range) -> None:
    from lhl_platform.domain.taxonomy import CLAUSE_TYPES

    rows = []
    for model in MODELS:
        for run in runs:
            draw = random.Random(f"clause|{model}|{run}")
            for i in range(45):
                rows += [outcome(model, run, f"c{i:02d}", clause, "TN") for clause in CLAUSE_TYPES
                         if clause not in CLAUSES]  # every clause type has its row: a complete round
                for clause, category in CLAUSES.items():
                    if i % 3 == 0:  # an absent clause, never invented
                        rows.append(outcome(model, run, f"c{i:02d}", clause, "TN"))
                    elif draw.random() < rate(model, run, category):
                        rows.append(outcome(model, run, f"c{i:02d}", clause, "TP", "supported", "none"))
                    else:
                        rows.append(outcome(model, run, f"c{i:02d}", clause, "FN"))
    from lhl_platform.clause.importer import import_outcomes

    import_outcomes(home, write_outcomes(tmp / f"outcomes-{runs.start}.csv", rows))


def _insufficiency(home: Home, tmp: Path, rate: Rate, runs: range) -> None:
    from lhl_platform.insufficiency.selfbuilt import self_built_items

    if not (tmp / "ingested").exists():
        assert lhl(home, "ingest", "insufficiency") == 0
        (tmp / "ingested").write_text("")
    rows = []
    for model in MODELS:
        for run in runs:
            draw = random.Random(f"insufficiency|{model}|{run}")
            for item in self_built_items().items:
                gold = [e for e in item.missing_elements if e.required]
                found = [e.sub_tag for e in gold if draw.random() < rate(model, run, e.category.value)]
                rows.append(json.dumps({
                    "model": model, "run": run, "judge": "outside-judge", "item_id": item.item_id,
                    "identified_elements": found, "additional_claims": [], "claimed_anything_missing": bool(found),
                    "elements": [{"sub_tag": e.sub_tag, "explanation_matches": e.sub_tag in found,
                                  "fabricated": False} for e in gold]}))
    path = tmp / f"judgments-{runs.start}.jsonl"
    path.write_text("\n".join(rows) + "\n")
    assert lhl(home, "import", "judgments", str(path)) == 0


@dataclass(frozen=True)
class Case:
    suite: str
    write: Callable[[Home, Path, Rate, range], None]
    metric: str  # the figure the planted drop moves
    category: str | None  # where it is planted (None: every category, the overall figure)
    request: ScopeRequest
    lowered: bool = True  # the figure falls with the rate (FRR rises)


CASES = {
    "contractscrub": Case("contractscrub", _scrub, "recall", "undefined_capitalized_terms",
                          ScopeRequest(suite="contractscrub")),
    "clause": Case("clause", _clause, "frr", "obligation", ScopeRequest(), lowered=False),
    "insufficiency": Case("insufficiency", _insufficiency, "recall", None,
                          ScopeRequest(suite="insufficiency", judge="outside-judge")),
}


def steady(model: str, run: int, category: str) -> float:
    return RATES[model]


def dropped(model: str, run: int, category: str) -> float:
    case_category = _planted[0]
    if model == "beta" and run == ROUNDS and (case_category is None or category == case_category):
        return DROPPED
    return RATES[model]


_planted: list[str | None] = [None]


@pytest.fixture(scope="module", params=sorted(CASES))
def homes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Case, Home, Home]:
    """Per suite: a home of 8 steady rounds of 3 models, and one whose 8th round drops beta's figure sharply."""
    case = CASES[request.param]
    quiet = Home.resolve(tmp_path_factory.mktemp(f"{case.suite}-steady")).ensure()
    case.write(quiet, quiet.root, steady, range(1, ROUNDS + 1))
    _planted[0] = case.category
    shifted = Home.resolve(tmp_path_factory.mktemp(f"{case.suite}-drop")).ensure()
    case.write(shifted, shifted.root, dropped, range(1, ROUNDS + 1))
    return case, quiet, shifted


def test_each_round_of_each_model_is_one_point_with_its_interval(homes, capsys) -> None:
    case, quiet, _ = homes
    args = ["monitor", "--suite", case.suite, "--format", "json", "--metric", case.metric]
    if case.request.judge:
        args += ["--judge", case.request.judge]
    capsys.readouterr()
    assert lhl(quiet, *args) == 0
    body = json.loads(capsys.readouterr().out)
    overall = [p for p in body["points"] if p["category"] is None]
    assert sorted((p["model"], p["run"]) for p in overall) == sorted(
        (m, r) for m in MODELS for r in range(1, ROUNDS + 1))
    for p in overall:
        assert p["ci_low"] < p["value"] < p["ci_high"] and p["n"] >= 20 and p["at"] and not p["partial"]
    assert body["rounds"] == list(range(1, ROUNDS + 1)) and body["changes"] == []


def test_eight_unchanged_rounds_of_three_models_raise_no_alert(homes) -> None:
    case, quiet, _ = homes
    report = read_monitor_report(quiet, get_suite(case.suite), case.request)
    tested = [c for c in report.comparisons if c.p is not None]
    assert len({c.run for c in tested}) == ROUNDS - 1  # every round after the first is tested
    assert report.changes == [] and report.alerts == []


def test_a_sharp_drop_is_exactly_one_alert_naming_it(homes) -> None:
    case, _, shifted = homes
    report = read_monitor_report(shifted, get_suite(case.suite), case.request)
    (alert,) = report.alerts
    assert alert.run == ROUNDS and {c.model for c in alert.changes} == {"beta"}
    assert {c.category for c in alert.changes} <= {case.category, None}
    (hit,) = [c for c in alert.changes if c.metric == case.metric and c.category == case.category]
    assert hit.from_value is not None and hit.to_value is not None and hit.p_adjusted is not None
    moved = hit.from_value - hit.to_value if case.lowered else hit.to_value - hit.from_value
    assert moved > 0.4 and hit.p_adjusted <= report.settings.alpha and hit.p is not None and hit.p <= hit.p_adjusted
    assert hit.started == ROUNDS and hit.baseline_runs == [4, 5, 6, 7]  # the window, not all history
    assert "beta" in alert.summary and f"round {ROUNDS}" in alert.summary and "adjusted p" in alert.summary


def test_the_alert_is_the_failing_check_of_the_newest_round(homes) -> None:
    case, quiet, shifted = homes
    from lhl_platform.warehouse.build import read_warehouse

    check = next(c for c in mart_checks(get_suite(case.suite)) if c.name == "no_change_detected")
    with read_warehouse(quiet, case.request) as con:
        assert check.check(con).passed
    with read_warehouse(shifted, case.request) as con:
        failed = check.check(con)
    assert not failed.passed and failed.metadata["round"] == ROUNDS and failed.metadata["changes"] >= 1
    assert "beta" in failed.summary and f"lhl monitor --suite {case.suite}" in str(failed.metadata["report"])


def test_a_change_becomes_the_new_normal(homes, tmp_path: Path) -> None:
    import shutil

    case, _, dropped_home = homes
    _planted[0] = case.category
    # three more rounds at the new level, on a copy of the home's events (the module's homes stay as they are)
    shifted = Home.resolve(tmp_path / "later").ensure()
    shutil.rmtree(shifted.root)
    shutil.copytree(dropped_home.root, shifted.root, ignore=shutil.ignore_patterns("warehouse", "dagster", "cache"))

    def stays_low(model: str, run: int, category: str) -> float:
        return dropped(model, ROUNDS, category)

    case.write(shifted, shifted.root, stays_low, range(ROUNDS + 1, ROUNDS + 4))
    report = read_monitor_report(shifted, get_suite(case.suite), case.request)
    assert [a.run for a in report.alerts] == [ROUNDS]  # the three rounds after it, at the new level, raise none


def test_holm_holds_the_familywise_rate_and_a_rate_of_one_is_never_a_point() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5]
    from lhl_platform.monitoring.declaration import MonitorMetric

    one = estimate(MonitorMetric("recall", "Recall"), Stats(1, 1.0, 1.0))
    assert one.value == 1.0 and one.low is not None and one.low < 0.6 and one.high == 1.0
    assert estimate(MonitorMetric("recall", "Recall"), Stats(0, 0.0, 0.0)).value is None  # null, never 0


def test_unknown_metric_and_bad_settings_are_one_line(homes, capsys) -> None:
    case, quiet, _ = homes
    capsys.readouterr()
    assert lhl(quiet, "monitor", "--suite", case.suite, "--metric", "nope") != 0
    err = capsys.readouterr().err
    assert "--metric nope" in err and len(err.strip().splitlines()) == 1
    assert lhl(quiet, "monitor", "--suite", case.suite, "--alpha", "1.5") != 0
    assert "--alpha 1.5" in capsys.readouterr().err
    assert Settings().alpha == 0.01


@pytest.mark.parametrize("homes", ["contractscrub"], indirect=True)  # the check and metadata are shared code
def test_the_metrics_job_sends_one_alert_for_the_round_and_plots_the_headline(homes, receiver) -> None:
    """Through real Dagster: the metrics job (what `lhl schedule`'s recurring audits trigger) runs the check on the
    suite's mart, the webhook gets the round's one alert, and the headline mart carries each model's newest figures
    as numbers (the UI plots them over the materializations)."""
    from dagster import DagsterInstance

    from orchestration.definitions import defs
    from orchestration.launch import QUIET
    from resources import LhlHome

    _, _, shifted = homes
    url, bodies = receiver
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("metrics").execute_in_process(
            instance=instance, resources={"lhl": LhlHome(path=str(shifted.root), alerts=url)}, run_config=QUIET,
            raise_on_error=False)
        (check,) = [e for e in result.get_asset_check_evaluations() if e.check_name == "no_change_detected"
                    and e.asset_key.to_user_string() == "scrub_monitor"]
        assert not check.passed
        (sent,) = [b for b in bodies if b["check"] == "no_change_detected"]
        assert sent["asset"] == "scrub_monitor" and sent["figures"]["round"] == ROUNDS and "beta" in sent["summary"]
        assert "lhl monitor --suite contractscrub" in sent["figures"]["report"]
        from dagster import AssetKey

        event = instance.get_latest_materialization_event(AssetKey("scrub_leaderboard"))
        assert event is not None and event.asset_materialization is not None
        metadata = event.asset_materialization.metadata
    assert metadata["recall · beta"].value == pytest.approx(
        next(p.value for p in read_monitor_report(shifted, get_suite("contractscrub")).points
             if p.model == "beta" and p.run == ROUNDS and p.category is None and p.metric == "recall"))
    assert isinstance(metadata["recall · beta"].value, float)


def test_a_dead_webhook_is_retried_and_logged_never_raised(caplog) -> None:
    import logging

    from resources.alerts import Alert, WebhookHook

    alert = Alert(check="no_change_detected", asset="scrub_monitor", partition=None, summary="beta dropped")
    with caplog.at_level(logging.WARNING, logger="lhl.alerts"):
        WebhookHook("http://127.0.0.1:9/nothing-listens", timeout_s=1, attempts=3, pause_s=0.01).send(alert)
    (failed,) = [r.getMessage() for r in caplog.records if "could not deliver" in r.getMessage()]
    assert "after 3 attempt(s)" in failed
