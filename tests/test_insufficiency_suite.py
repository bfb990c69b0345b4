"""InsufficiencyBench as a suite of the platform: the three calibration responders answer the self-built set and
the offline cue judge judges them, through `lhl audit --suite insufficiency` (Dagster partitions, the call engine,
events); the marts score exactly as `scoring.py`; the report follows docs/formats.md section 2 in every format; imports
are validated whole and atomic; missing responses and judgments are named; an unvalidated judge is flagged;
`lhl compare`, `lhl judge agree`, `lhl publish` and the Dagster code location take the suite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from lhl_platform.events.payloads import ModelCall
from lhl_platform.home import Home
from lhl_platform.insufficiency.calibration import judge_responses, respond
from lhl_platform.insufficiency.events import ResponseRecorded
from lhl_platform.insufficiency.items import dump_items
from lhl_platform.insufficiency.offline_judge import MODEL_ID as CUE_JUDGE
from lhl_platform.insufficiency.offline_judge import answer as cue_judge
from lhl_platform.insufficiency.responders import (
    GOLD_READER,
    INDISCRIMINATE_HEDGING,
    PREMATURE_CLOSURE,
    gold_reader,
    indiscriminate_hedging,
    premature_closure,
)
from lhl_platform.insufficiency.scoring import category_recall, leaderboard, score_judgments
from lhl_platform.insufficiency.selfbuilt import self_built_items
from orchestration.cli import main
from tests import speed_tmpfs

tmp_path = speed_tmpfs.tmp_path  # homes on tmpfs (Dagster's SQLite commits)
tmpfs_factory = speed_tmpfs.tmpfs_factory  # not tmp_path_factory: conftest's session demo_home uses that

RESPONDERS = (GOLD_READER, INDISCRIMINATE_HEDGING, PREMATURE_CLOSURE)
# docs/formats.md section 2, the JSON contract of `lhl report --suite insufficiency --format json`.
LEADERBOARD_FIELDS = ["model", "judge", "variants", "base_items", "f2", "f2_ci_low", "f2_ci_high", "precision",
                      "recall", "hedge_rate", "f2_given_hedge", "expl_acc", "safety", "over_flag", "complete", "cells",
                      "judged", "rank", "coverage"]
CATEGORY_FIELDS = ["model", "category", "gold", "hits", "recall"]


def lhl(home: Home, *args: str) -> int:
    return main(["--home", str(home.root), *args])


def report_json(home: Home, capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    capsys.readouterr()
    assert lhl(home, "report", "--suite", "insufficiency", "--format", "json", *args) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def home(tmpfs_factory: pytest.TempPathFactory) -> Home:
    home = Home.resolve(tmpfs_factory.mktemp("insufficiency")).ensure()
    for name in RESPONDERS:
        assert lhl(home, "models", "add", name, "--provider", "offline", "--model-id", name) == 0
    assert lhl(home, "audit", "--suite", "insufficiency", "--models", ",".join(RESPONDERS)) == 0
    return home


def _calls(home: Home) -> list[ModelCall]:
    return [e.data_as(ModelCall) for e in home.events.read() if e.type == "model.call"]


def test_every_call_is_a_model_call_event_with_its_stage_system_and_item_and_a_rerun_repeats_none(home: Home) -> None:
    items = self_built_items()
    calls = _calls(home)
    answers = [c for c in calls if c.stage == "insufficiency-responses"]
    assert len(answers) == 3 * len(items.items)
    assert {(c.system, c.item) for c in answers} == {(m, i.item_id) for m in RESPONDERS for i in items.items}
    judged = [c for c in calls if c.stage in ("insufficiency-identify", "insufficiency-explain")]
    # two calls per variant response, one per base response (a base item has no gold to explain)
    assert len(judged) == 3 * (2 * len(items.variants()) + len(items.bases()))
    assert {c.model for c in judged} == {CUE_JUDGE} and {c.audit_run for c in judged} == {1}
    responses = [e.data_as(ResponseRecorded) for e in home.events.read() if e.type == "insufficiency.response"]
    assert len(responses) == 3 * len(items.items) and all(r.response.strip() for r in responses)
    assert lhl(home, "audit", "--suite", "insufficiency", "--models", ",".join(RESPONDERS)) == 0
    assert len(_calls(home)) == len(calls)  # resumed from the recorded calls and events
    assert lhl(home, "verify") == 0


def test_the_json_report_follows_the_contract_and_labels_the_self_built_set(home: Home, capsys) -> None:
    report = report_json(home, capsys)
    assert report["suite"] == "insufficiency"
    assert {"suite", "scope", "leaderboard", "by_category"} <= set(report)
    assert report["scope"]["judge"] == CUE_JUDGE and report["scope"]["models"] == sorted(RESPONDERS)
    assert report["scope"]["items"] == len(self_built_items().items)
    # the contract's fields in order (the report may add the judge's validation beside them)
    assert all([k for k in row if k != "judge_validated"] == LEADERBOARD_FIELDS for row in report["leaderboard"])
    assert all(list(row) == CATEGORY_FIELDS for row in report["by_category"])
    (item_set,) = report["item_set"]
    assert item_set["self_built"] is True and item_set["provenance"] == "self-built"
    assert {c["name"]: c["passed"] for c in report["checks"]} == {
        "responses_complete": True, "judgments_complete": True, "comparable_scope": True, "judge_validated": False,
        "no_change_detected": True}
    # the cue judge passes the shipped set its rules were written from, and fails the held-out set: the gate
    (validation,) = report["judge_validation"]
    assert validation["judge"] == CUE_JUDGE and validation["validated"] and validation["passed"] is False
    assert validation["gate"] == "held_out" and validation["in_sample_passed"] is True


def test_the_marts_score_exactly_as_the_domain_scoring_on_the_self_built_set(home: Home, capsys) -> None:
    """The SQL (means of per-item values, per-category pooled recall) against scoring.py on the same answers."""
    items = self_built_items()
    answer = {GOLD_READER: gold_reader(items), INDISCRIMINATE_HEDGING: indiscriminate_hedging,
              PREMATURE_CLOSURE: premature_closure}
    judgments = [j for m in RESPONDERS
                 for j in judge_responses(items, respond(items, answer[m], model=m), cue_judge, judge_name=CUE_JUDGE)]
    expected = {f.model: f.leaderboard_row().model_dump(mode="json") for f in leaderboard(items, judgments, runs=[1])}
    report = report_json(home, capsys)
    got = {r["model"]: r for r in report["leaderboard"]}
    assert set(got) == set(expected)
    for model, row in expected.items():
        for field, value in row.items():
            assert got[model][field] == (pytest.approx(value) if isinstance(value, float) else value), (model, field)
    assert report["by_category"] == [r.model_dump(mode="json") for r in category_recall(items, judgments)]
    # and per item: the units mart against score_item
    from lhl_platform.warehouse.build import read_warehouse

    with read_warehouse(home) as con:
        units = {(m, u): (tp, fp, fn, f2, p) for m, u, tp, fp, fn, f2, p in con.execute(
            "select model, unit, tp, fp, fn, f2, precision from insufficiency_units").fetchall()}
    for s in score_judgments(items, judgments):
        tp, fp, fn, f2, p = units[(s.model, s.item_id)]
        assert (tp, fp, fn) == (s.tp, s.fp, s.fn)
        assert f2 == pytest.approx(s.f2) if s.f2 is not None else f2 is None
        assert p == pytest.approx(s.precision) if s.precision is not None else p is None


def test_the_calibration_responders_rank_as_the_seed_describes(home: Home, capsys) -> None:
    board = {r["model"]: r for r in report_json(home, capsys)["leaderboard"]}
    gold, hedge, closure = board[GOLD_READER], board[INDISCRIMINATE_HEDGING], board[PREMATURE_CLOSURE]
    assert gold["f2"] > hedge["f2"] > closure["f2"] == 0.0
    assert gold["recall"] > hedge["recall"] > closure["recall"] == 0.0
    assert gold["precision"] > hedge["precision"] and closure["precision"] is None  # nothing inferred at all
    assert closure["expl_acc"] is None and gold["expl_acc"] == 1.0 > hedge["expl_acc"]  # generic asks explain nothing
    assert gold["safety"] >= hedge["safety"] > closure["safety"]
    # hedging as a fixed disposition: the indiscriminate hedger hedges everywhere and over-flags complete queries
    assert hedge["hedge_rate"] == 1.0 and hedge["over_flag"] == 1.0
    assert closure["hedge_rate"] == 0.0 and closure["over_flag"] == 0.0 and gold["over_flag"] == 0.0
    assert hedge["f2_ci_low"] <= hedge["f2"] <= hedge["f2_ci_high"]


def test_every_format_shows_the_suite_and_html_draws_the_f2_vs_over_flag_figure(home: Home, capsys,
                                                                                 tmp_path: Path) -> None:
    for fmt in ("table", "md"):
        capsys.readouterr()
        assert lhl(home, "report", "--suite", "insufficiency", "--format", fmt) == 0
        out = capsys.readouterr().out
        assert all(m in out for m in RESPONDERS) and "self-built" in out
    page = tmp_path / "report.html"
    assert lhl(home, "report", "--suite", "insufficiency", "--format", "html", "--out", str(page)) == 0
    html = page.read_text()
    assert "InsufficiencyBench" in html and "<svg" in html and "over-flag" in html and "self-built" in html


def test_compare_pairs_two_responders_over_the_items(home: Home, capsys) -> None:
    capsys.readouterr()
    # the cue judge fails held out: compared only when forced
    assert lhl(home, "compare", GOLD_READER, INDISCRIMINATE_HEDGING, "--suite", "insufficiency", "--format", "json",
               "--resamples", "200") == 1
    assert "failed held-out validation" in capsys.readouterr().err
    assert lhl(home, "compare", GOLD_READER, INDISCRIMINATE_HEDGING, "--suite", "insufficiency", "--format", "json",
               "--resamples", "200", "--force") == 0
    paired = json.loads(capsys.readouterr().out)
    assert paired["units"] == len(self_built_items().items)
    # the bootstrap draws base queries (a variant with its base), not items
    assert paired["cluster"] == "base_id" and paired["clusters"] == len(self_built_items().bases())
    f2 = next(m for m in paired["metrics"] if m["metric"] == "f2")
    assert f2["diff"] == pytest.approx(f2["a"] - f2["b"]) and f2["ci_low"] <= f2["diff"] <= f2["ci_high"]
    assert f2["ci_low"] > 0  # the gold reader beats the hedger on the same items


def test_publish_writes_the_sections_with_the_scope(home: Home, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'insufficiency.db'}"
    assert lhl(home, "publish", url, "--suite", "insufficiency") == 0
    with create_engine(url).connect() as con:
        models = [r[0] for r in con.execute(text("select model from insufficiency_leaderboard order by model"))]
        labels = con.execute(text("select provenance from insufficiency_item_set")).fetchall()
    assert models == sorted(RESPONDERS) and labels == [("self-built",)]


def test_imports_are_validated_whole_atomic_and_their_gaps_are_named(home: Home, capsys, tmp_path: Path) -> None:
    items = self_built_items()
    ids = [i.item_id for i in items.items]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"model": "elsewhere", "run": 1, "item_id": ids[0], "response": "An answer."}) + "\n"
                   + json.dumps({"model": "elsewhere", "run": 1, "item_id": "nope", "response": "x"}) + "\n")
    before = len(home.events.read())
    capsys.readouterr()
    assert lhl(home, "import", "responses", str(bad)) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "line 2" in err and "nope" in err
    assert len(home.events.read()) == before  # nothing of the file was written
    good = tmp_path / "responses.jsonl"
    good.write_text("".join(json.dumps({"model": "elsewhere", "run": 1, "item_id": i,
                                        "response": "Which state are you in?"}) + "\n" for i in ids[:-2]))
    assert lhl(home, "import", "responses", str(good)) == 0
    report = report_json(home, capsys)
    checks = {c["name"]: c for c in report["checks"]}
    assert not checks["responses_complete"]["passed"]
    assert f"elsewhere run 1 {ids[-1]}" in checks["responses_complete"]["summary"]
    assert not checks["judgments_complete"]["passed"]  # imported, not judged yet
    assert f"elsewhere lacks {len(ids)} of {len(ids)}" in checks["comparable_scope"]["summary"]
    coverage = {r["model"]: r for r in report["coverage"]}
    assert coverage["elsewhere"]["missing_responses"] == 2 and coverage["elsewhere"]["judged"] == 0
    board = {r["model"]: r for r in report["leaderboard"]}
    assert [r["rank"] for r in report["leaderboard"]] == [1, 2, 3, None]  # listed, not ranked, last
    assert board["elsewhere"]["f2"] is None and not board["elsewhere"]["complete"]
    # judged here, by the suite's default judge (the model that answered is not registered: nothing calls it)
    assert lhl(home, "insufficiency", "judge", "--models", "elsewhere") == 0
    report = report_json(home, capsys, "--models", "elsewhere")
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["judgments_complete"]["passed"] and not checks["responses_complete"]["passed"]
    (row,) = report["leaderboard"]
    assert row["variants"] + row["base_items"] == len(ids) - 2 == row["judged"] and row["cells"] == len(ids)
    # 2 items missing: null figures (not the means of what it has), listed with its coverage, not ranked
    assert row["complete"] is False and row["rank"] is None
    assert all(row[f] is None for f in ("f2", "f2_ci_low", "f2_ci_high", "precision", "recall", "hedge_rate",
                                        "f2_given_hedge", "expl_acc", "safety", "over_flag"))
    assert "incomplete, 2 missing: figures null, not ranked" in row["coverage"]
    assert all(r["recall"] is None for r in report["by_category"])
    for fmt in ("table", "md"):
        capsys.readouterr()
        assert lhl(home, "report", "--suite", "insufficiency", "--format", fmt, "--models", "elsewhere") == 0
        assert "incomplete, 2 missing" in capsys.readouterr().out
    checks = {c["name"]: c for c in report_json(home, capsys)["checks"]}  # beside the responders
    assert not checks["comparable_scope"]["passed"] and "elsewhere lacks 2 of" in checks["comparable_scope"]["summary"]
    # compared on the items both have, or refused
    capsys.readouterr()
    assert lhl(home, "compare", GOLD_READER, "elsewhere", "--suite", "insufficiency", "--format", "json",
               "--resamples", "50", "--force") == 0
    assert json.loads(capsys.readouterr().out)["units"] == len(ids) - 2


def test_imported_judgments_of_a_second_judge_give_agreement_and_are_flagged_unvalidated(home: Home, capsys,
                                                                                        tmp_path: Path) -> None:
    items = self_built_items()
    responses = respond(items, indiscriminate_hedging, model=INDISCRIMINATE_HEDGING)
    lines = []
    for n, j in enumerate(judge_responses(items, responses, cue_judge, judge_name="second-judge")):
        identified = list(j.identified_elements)[: -1 if n % 2 and j.identified_elements else None]
        lines.append(json.dumps({**j.model_dump(mode="json"), "identified_elements": identified}))
    file = tmp_path / "judgments.jsonl"
    file.write_text("\n".join(lines) + "\n")
    assert lhl(home, "import", "judgments", str(file)) == 0
    capsys.readouterr()
    assert lhl(home, "judge", "agree", CUE_JUDGE, "second-judge", "--suite", "insufficiency", "--models",
               INDISCRIMINATE_HEDGING, "--format", "json") == 0
    agreement = json.loads(capsys.readouterr().out)
    assert agreement["matched"] == len(items.variants())
    f2 = next(m for m in agreement["metrics"] if m["metric"] == "f2")
    assert f2["n"] == len(items.variants()) and 0 < f2["mean_abs_diff"] < 1 and f2["pearson_r"] is not None
    (spread,) = agreement["models"]
    assert spread["f2_shift"] < 0  # the second judge credits fewer identifications
    report = report_json(home, capsys, "--judge", "second-judge", "--models", INDISCRIMINATE_HEDGING)
    checks = {c["name"]: c for c in report["checks"]}
    assert not checks["judge_validated"]["passed"] and "not validated" in checks["judge_validated"]["summary"]
    assert report["leaderboard"][0]["judge"] == "second-judge"


def test_ingest_takes_the_published_format_labels_provenance_and_refuses_a_bad_line(home: Home, capsys,
                                                                                   tmp_path: Path) -> None:
    items = self_built_items()
    exported = tmp_path / "exported.jsonl"
    exported.write_text(dump_items(items.items))
    other = Home.resolve(tmp_path / "other").ensure()
    capsys.readouterr()
    assert lhl(other, "ingest", "insufficiency", str(exported)) == 0
    assert "self-built" in capsys.readouterr().out  # byte-identical to the shipped set: still self-built
    external = tmp_path / "external.jsonl"
    external.write_text(dump_items(items.items[:3]))  # q01 and its variants
    assert lhl(other, "ingest", "insufficiency", str(external)) == 0
    assert "external" in capsys.readouterr().out
    broken = tmp_path / "broken.jsonl"
    broken.write_text(dump_items(items.items[:1]).replace('"query"', '"user_question": "?", "query"'))
    assert lhl(other, "ingest", "insufficiency", str(broken)) == 1
    err = capsys.readouterr().err
    assert "line 1" in err and "'user_question' cannot be mapped" in err and err.count("\n") == 1


def test_the_suite_is_in_the_dagster_code_location_with_lineage(home: Home) -> None:
    from dagster import AssetKey

    from orchestration.definitions import definitions

    defs = definitions()
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert {"insufficiency_items", "insufficiency_responses", "insufficiency_judgments", "stg_insufficiency_response",
            "insufficiency_units", "insufficiency_leaderboard", "insufficiency_by_category"} <= keys
    assert defs.resolve_job_def("insufficiency_partition") is not None
    parents = {p.to_user_string() for p in graph.get(AssetKey("stg_insufficiency_response")).parent_keys}
    assert "insufficiency_responses" in parents


def test_the_demo_audits_the_suite_offline_beside_the_clause_suite(demo_home: Path, capsys) -> None:
    """`lhl demo` runs the three calibration responders under the cue judge; the clause report is untouched
    (tests/test_golden_report.py)."""
    report = report_json(Home.resolve(demo_home), capsys)
    assert report["scope"]["models"] == sorted(RESPONDERS) and report["scope"]["judge"] == CUE_JUDGE
    # every check passes but the judge's: the cue judge fails its held-out set, and the report says so
    assert [c["name"] for c in report["checks"] if not c["passed"]] == ["judge_validated"]
    board = {r["model"]: r for r in report["leaderboard"]}
    assert board[GOLD_READER]["f2"] == 1.0 and board[PREMATURE_CLOSURE]["f2"] == 0.0
    assert report["item_set"][0]["self_built"] is True


def test_a_home_without_the_suite_reports_an_empty_scope_with_nothing_flagged(tmp_path: Path, capsys) -> None:
    from lhl_platform.corpus.cuad import load_master_layout
    from lhl_platform.corpus.demo import DEMO_DIR
    from lhl_platform.corpus.store import save_corpus

    empty = Home.resolve(tmp_path / "clause-only").ensure()
    save_corpus(empty, load_master_layout(DEMO_DIR), source=str(DEMO_DIR))  # something to report, but no suite
    report = report_json(empty, capsys)
    assert report["leaderboard"] == [] and report["by_category"] == [] and report["scope"]["models"] == []
    assert all(c["passed"] for c in report["checks"]), report["checks"]


def test_a_judge_or_run_the_scope_does_not_hold_is_an_error_naming_what_it_holds(home: Home, capsys) -> None:
    capsys.readouterr()
    assert lhl(home, "report", "--suite", "insufficiency", "--judge", "nope") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'nope' has judged nothing" in err and CUE_JUDGE in err
    assert lhl(home, "report", "--suite", "insufficiency", "--runs", "7") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run 7 is not audited" in err and "audited: 1" in err
