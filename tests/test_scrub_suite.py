"""ContractScrub as a suite of the platform, end to end on a self-built set of 4 demo contracts: the build and its
events, one recorded call per (contract, category) through the call engine, resume without repeated calls, the
JSON contract of docs/formats.md section 1, the marts equal to `scoring.py`, the offline models, every report format,
`lhl compare`, `lhl publish`, imports validated whole and written atomically, an LLM's failures as missing calls
(an unparseable answer, a contract past the context window), change across rounds, and the Dagster assets."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import DEMO_DIR, load_demo_corpus
from lhl_platform.corpus.store import save_corpus
from lhl_platform.events.payloads import ModelCall
from lhl_platform.home import Home
from lhl_platform.scrub.build import DEMO_CONFIG, build_items
from lhl_platform.scrub.categories import CATEGORY_KEYS, TERM_CATEGORIES
from lhl_platform.scrub.events import ScrubFindingsFailed, ScrubFindingsRecorded, ScrubItemsBuilt, ScrubScored
from lhl_platform.scrub.imports import findings_line
from lhl_platform.scrub.items import export_items
from lhl_platform.scrub.scoring import recall_intervals, score
from lhl_platform.scrub.store import load_set
from orchestration.cli import main
from tests import speed_tmpfs
from tests.fakes import Reply, ScriptedServer

tmp_path = speed_tmpfs.tmp_path  # homes on tmpfs (Dagster's SQLite commits)
tmp_path_factory = speed_tmpfs.tmp_path_factory
tmpfs_factory = speed_tmpfs.tmpfs_factory

MODELS = {"rules": "scrub-rules", "perfect": "scrub-calibrated:perfect", "gpt55": "scrub-calibrated:paper-gpt-5.5",
          "omitter": "scrub-calibrated:omitter"}
LEADERBOARD = {"model", "rank", "complete", "runs", "contracts", "recall", "precision", "f1", "recall_ci_low",
               "recall_ci_high", "terms_only_recall", "terms_only_precision", "terms_only_f1", "missing_calls",
               "missing_categories", "cost_usd"}
BY_CATEGORY = {"model", "category", "gold", "tp", "fp", "fn", "recall", "precision", "f1"}


def lhl(home: Home, *args: str) -> int:
    return main(["--home", str(home.root), *args])


def demo_home(root: Path) -> Home:
    home = Home.resolve(root).ensure()
    save_corpus(home, load_master_layout(DEMO_DIR), source=str(DEMO_DIR))
    return home


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = demo_home(tmp_path_factory.mktemp("scrub"))
    assert lhl(home, "scrub", "build", "--contracts", "4", "--seed", "0") == 0
    for name, model_id in MODELS.items():
        assert lhl(home, "models", "add", name, "--provider", "offline", "--model-id", model_id) == 0
    assert lhl(home, "audit", "--suite", "contractscrub", "--models", ",".join(MODELS)) == 0
    return home


def report_json(home: Home, capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    capsys.readouterr()
    assert lhl(home, "report", "--suite", "contractscrub", "--format", "json", *args) == 0
    return json.loads(capsys.readouterr().out)


def recorded_answers(home: Home, model: str) -> dict:
    found = [e.data_as(ScrubFindingsRecorded) for e in home.events.read(f"scrub.findings.model={model}.run=1")
             if e.type == "scrub.findings_recorded"]
    return {(f.run, f.contract_id, f.category): f.findings for f in found}


def test_the_build_records_the_set_and_is_reproducible_to_the_byte(home: Home, tmp_path: Path) -> None:
    events = home.events.read("scrub.items")
    (built,) = [e.data_as(ScrubItemsBuilt) for e in events if e.type == "scrub.items_built"]
    assert built.seed == 0 and built.requested == 4 and built.provenance.startswith("self-built")
    assert built.report.items == 4 and sum(built.report.kept.values()) > 0
    assert sum(e.type == "scrub.item" for e in events) == 4
    expected = export_items(build_items(load_demo_corpus().contracts, 4, 0, corpus="demo_data",
                                        config=DEMO_CONFIG).items)
    assert lhl(home, "scrub", "export", str(tmp_path / "set.jsonl")) == 0
    assert (tmp_path / "set.jsonl").read_bytes() == expected
    # Building again records that the set is active again, and no item twice.
    assert lhl(home, "scrub", "build", "--contracts", "4", "--seed", "0") == 0
    again = home.events.read("scrub.items")
    assert sum(e.type == "scrub.item" for e in again) == 4 and sum(e.type == "scrub.items_built" for e in again) == 2
    assert load_set(home).item_set == built.item_set


def test_lhl_suites_lists_the_set_as_self_built(home: Home, capsys) -> None:
    capsys.readouterr()
    assert lhl(home, "suites") == 0
    out = capsys.readouterr().out
    assert f"item set {load_set(home).item_set}: 4 items (self-built; built from corpus demo_data, seed 0)" in out
    assert "lhl scrub build, lhl scrub export, lhl ingest contractscrub, lhl import findings" in out


def test_ingest_reads_the_release_format_whole_and_names_a_bad_line(home: Home, tmp_path: Path, capsys) -> None:
    exported = tmp_path / "set.jsonl"
    assert lhl(home, "scrub", "export", str(exported)) == 0
    lines = exported.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], lines[1], lines[2].replace('"location":', '"place":', 1)]) + "\n")
    before = len(home.events.read("scrub.items"))
    capsys.readouterr()
    assert lhl(home, "ingest", "contractscrub", str(bad)) == 1
    assert "bad.jsonl: line 3: field gold[" in capsys.readouterr().err
    assert len(home.events.read("scrub.items")) == before  # nothing recorded
    assert lhl(home, "ingest", "contractscrub", str(exported)) == 0  # the same bytes: the same set
    assert load_set(home).item_set == load_set(home, load_set(home).item_set).item_set
    assert export_items(load_set(home).items) == exported.read_bytes()


def test_every_call_is_a_model_call_of_the_stage_and_a_rerun_repeats_none(home: Home) -> None:
    calls = [e.data_as(ModelCall) for e in home.events.read() if e.type == "model.call"]
    scrub = [c for c in calls if c.stage == "scrub"]
    assert len(scrub) == len(MODELS) * 4 * 9
    assert {c.system for c in scrub} == set(MODELS) and all(c.subject.startswith(c.item + "/") for c in scrub)
    assert Counter(c.subject.split("/")[1] for c in scrub) == dict.fromkeys(CATEGORY_KEYS, len(MODELS) * 4)
    scored = [e for e in home.events.read() if e.type == "scrub.scored"]
    assert len(scored) == len(MODELS) * 36
    assert lhl(home, "audit", "--suite", "contractscrub", "--models", ",".join(MODELS)) == 0
    assert len([e for e in home.events.read() if e.type == "model.call"]) == len(calls)
    assert len([e for e in home.events.read() if e.type == "scrub.scored"]) == len(scored)
    assert lhl(home, "verify") == 0


def test_a_dry_run_of_the_suite_estimates_and_records_nothing(home: Home, capsys) -> None:
    before = len(home.events.read())
    capsys.readouterr()
    assert lhl(home, "audit", "--suite", "contractscrub", "--models", "rules", "--runs", "2", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "nothing is called" in out and "scrub_findings" in out and "36" in out  # 4 contracts x 9 categories
    assert len(home.events.read()) == before


def test_the_json_report_follows_suites_md(home: Home, capsys) -> None:
    report = report_json(home, capsys)
    assert report["suite"] == "contractscrub" and list(report)[:5] == ["verdict", "suite", "scope", "leaderboard",
                                                                         "by_category"]
    assert report["scope"]["models"] == sorted(MODELS) and report["scope"]["items"] == 4
    assert report["scope"]["item_set"] == load_set(home).item_set
    assert all(set(r) == LEADERBOARD for r in report["leaderboard"])
    assert all(set(r) == BY_CATEGORY for r in report["by_category"])
    assert len(report["by_category"]) == len(MODELS) * 9
    assert {r["model"] for r in report["leaderboard"]} == set(MODELS)
    assert all(r["runs"] == 1 and r["contracts"] == 4 and r["missing_calls"] == 0 for r in report["leaderboard"])
    assert all(r["complete"] and r["missing_categories"] == [] for r in report["leaderboard"])
    assert sorted(r["rank"] for r in report["leaderboard"]) == [1, 2, 3, 4]  # every model complete: all ranked
    assert all(r["cost_usd"] == 0 for r in report["leaderboard"])  # calls were recorded, priced at 0
    assert report["item_set"][0]["provenance"].startswith("self-built")
    sources = {r["category"]: r["gold_source"] for r in report["gold"]}
    assert sources["defined_terms"] == "derived by the definition parser" and sources["inconsistent_language"] == \
        "injected"
    assert all(c["passed"] for c in report["checks"]), report["checks"]


def test_the_marts_equal_scoring_py_on_the_built_set(home: Home, capsys) -> None:
    report = report_json(home, capsys)
    items = load_set(home).items
    for model in MODELS:
        answers = recorded_answers(home, model)
        expected = score(items, answers)
        row = next(r for r in report["leaderboard"] if r["model"] == model)
        assert row["recall"] == pytest.approx(expected.overall.recall)
        assert row["precision"] == pytest.approx(expected.overall.precision)
        assert row["f1"] == pytest.approx(expected.overall.f1)
        assert row["terms_only_recall"] == pytest.approx(expected.terms_only_overall.recall)
        assert row["terms_only_precision"] == pytest.approx(expected.terms_only_overall.precision)
        assert row["terms_only_f1"] == pytest.approx(expected.terms_only_overall.f1)
        (overall,) = [i for i in recall_intervals(items, answers, key=f"contractscrub|{model}") if i.category is None]
        assert (row["recall_ci_low"], row["recall_ci_high"]) == pytest.approx((overall.low, overall.high))
        cats = {r["category"]: r for r in report["by_category"] if r["model"] == model}
        for c in expected.by_category:
            got = cats[c.category]
            assert (got["gold"], got["tp"], got["fp"], got["fn"]) == (c.gold, c.tp, c.fp, c.fn), (model, c.category)
            for figure in ("recall", "precision", "f1"):
                assert got[figure] == pytest.approx(getattr(c, figure)), (model, c.category, figure)
        terms = {r["category"]: r for r in report["terms_only"] if r["model"] == model}
        assert list(terms) == [c.key for c in TERM_CATEGORIES]
        for c in expected.terms_only:
            assert (terms[c.category]["tp"], terms[c.category]["recall"]) == (c.tp, pytest.approx(c.recall))
        buckets = {r["bucket"]: r for r in report["by_distance"] if r["model"] == model}
        for b in expected.by_distance:
            if b.gold:
                assert (buckets[b.bucket]["gold"], buckets[b.bucket]["tp"]) == (b.gold, b.tp)
            else:
                assert b.bucket not in buckets  # no gold at that distance: no row, never a recall of 0


def test_the_gold_scores_itself_and_the_offline_models_rank_as_declared(home: Home, capsys) -> None:
    report = report_json(home, capsys)
    board = {r["model"]: r for r in report["leaderboard"]}
    perfect = [r for r in report["by_category"] if r["model"] == "perfect" and r["gold"]]
    assert perfect and all((r["recall"], r["precision"], r["f1"]) == (1.0, 1.0, 1.0) for r in perfect)
    assert (board["perfect"]["recall"], board["perfect"]["f1"]) == (1.0, 1.0)
    check = next(c for c in report["checks"] if c["name"] == "gold_scores_itself")
    assert check["passed"] and "perfect scores 1.0 through the marts" in check["summary"]
    assert board["omitter"]["recall"] < board["gpt55"]["recall"] < board["perfect"]["recall"]
    rules = {r["category"]: r for r in report["by_category"] if r["model"] == "rules"}
    # The rule-based scrubber reads the defined terms with the parser that derives their gold: 1.0 by construction.
    assert rules["defined_terms"]["recall"] == 1.0
    # A category without gold in the set has no recall (None, never 0).
    empty = [c for c, r in rules.items() if r["gold"] == 0]
    assert all(rules[c]["recall"] is None for c in empty)


def test_every_format_compare_and_publish(home: Home, capsys, tmp_path: Path) -> None:
    capsys.readouterr()
    for fmt in ("table", "md"):
        assert lhl(home, "report", "--suite", "contractscrub", "--format", fmt) == 0
        out = capsys.readouterr().out
        assert "Leaderboard" in out and "omitter" in out and "self-built" in out
    assert lhl(home, "report", "--suite", "contractscrub", "--format", "html", "--out", str(tmp_path / "r.html")) == 0
    page = (tmp_path / "r.html").read_text()
    assert "LegalHalluLens: ContractScrub" in page and "recall per category" in page
    # the leaderboard's recall with its intervals, and the recall per category
    assert page.count("<svg") == 3 and 'data-figure="leaderboard_intervals"' in page and 'data-figure="trend"' in page
    assert "<script" not in page
    capsys.readouterr()
    assert lhl(home, "compare", "omitter", "perfect", "--suite", "contractscrub", "--format", "json",
               "--resamples", "300") == 0
    paired = json.loads(capsys.readouterr().out)
    assert paired["units"] == 4 and [m["metric"] for m in paired["metrics"]] == ["recall", "precision", "f1",
                                                                                 "terms_only_recall"]
    recall = paired["metrics"][0]
    assert recall["b"] == 1.0 and recall["diff"] == pytest.approx(recall["a"] - 1.0)
    assert recall["ci_low"] <= recall["diff"] <= recall["ci_high"] < 0
    url = f"sqlite:///{tmp_path / 'pub.db'}"
    assert lhl(home, "publish", url, "--suite", "contractscrub") == 0
    engine = create_engine(url)
    with engine.connect() as con:
        rows = con.execute(text("select model, recall, recall_ci_low from contractscrub_leaderboard")).fetchall()
        cats = con.execute(text("select count(*) from contractscrub_by_category")).scalar()
    columns = {c["name"] for c in inspect(engine).get_columns("contractscrub_leaderboard")}
    assert {r[0] for r in rows} == set(MODELS) and cats == len(MODELS) * 9
    assert columns >= LEADERBOARD


def test_findings_imported_whole_and_atomically_a_line_absent_is_a_missing_call(home: Home, tmp_path: Path,
                                                                                capsys) -> None:
    items = load_set(home).items
    lines = [findings_line("vendor-x", 1, i.contract_id, c, [g for g in i.gold if g.category == c])
             for i in items[:2] for c in ("defined_terms", "unused_defined_terms")]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*lines[:2], lines[2].replace('"run":1', '"run":0')]) + "\n")
    capsys.readouterr()
    assert lhl(home, "import", "findings", str(bad)) == 1
    assert "bad.jsonl: line 3: field run:" in capsys.readouterr().err
    assert not (home.events.root / "scrub.imports").exists() or not home.events.read("scrub.imports")
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(lines) + "\n")
    assert lhl(home, "import", "findings", str(good)) == 0
    written = len(home.events.read("scrub.imports"))
    assert lhl(home, "import", "findings", str(good)) == 0  # the same file again: nothing new
    assert len(home.events.read("scrub.imports")) == written
    report = report_json(home, capsys, "--models", "vendor-x")
    (row,) = report["leaderboard"]
    assert row["missing_calls"] == 4 * 9 - len(lines) and row["cost_usd"] is None  # no call was recorded
    assert row["recall"] is None and row["rank"] is None and not row["complete"]  # incomplete: no headline
    cats = {r["category"]: r for r in report["by_category"]}
    assert cats["unused_defined_terms"]["recall"] == 1.0  # scored by the same code: the gold as findings
    assert report["usage"][0]["calls"] is None
    check = next(c for c in report["checks"] if c["name"] == "calls_complete")
    assert not check["passed"] and f"{4 * 9 - len(lines)} missing call(s): vendor-x run 1 " in check["summary"]
    missing = {(r["contract_id"], r["category"]) for r in report["missing"]}
    assert (items[0].contract_id, "inconsistent_language") in missing
    assert (items[0].contract_id, "defined_terms") not in missing and (items[3].contract_id, "defined_terms") in missing


def test_the_newest_run_is_monitored_for_change(home: Home, tmp_path: Path) -> None:
    from lhl_platform.report.monitor import read_monitor_report
    from lhl_platform.suites import get_suite
    from lhl_platform.warehouse.scope import ScopeRequest

    items = load_set(home).items
    lines = [findings_line("vendor-d", run, i.contract_id, c, [g for g in i.gold if g.category == c] if run == 1
                           else []) for run in (1, 2) for i in items for c in CATEGORY_KEYS]
    path = tmp_path / "drift.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert lhl(home, "import", "findings", str(path)) == 0
    report = read_monitor_report(home, get_suite("contractscrub"),
                                 ScopeRequest(suite="contractscrub", models=("vendor-d",)))
    recall = next(c for c in report.comparisons if (c.metric, c.category, c.run) == ("recall", None, 2))
    assert (recall.from_value, recall.to_value, recall.changed, recall.started) == (1.0, 0.0, True, 2)
    # a category of 4 contracts holds fewer than 20 gold tuples (and no prediction is no precision): reported,
    # never called a change
    by_category = [c for c in report.comparisons if c.category is not None and c.run == 2]
    assert by_category and all(c.untested in ("few units", "no figure") and not c.changed for c in by_category)


def test_an_llms_failures_are_recorded_failures_and_missing_calls(tmp_path: Path, monkeypatch, capsys) -> None:
    from lhl_platform.scrub.task import OUTPUTS, scrub_messages, scrub_task

    home = demo_home(tmp_path / "llm")
    assert lhl(home, "scrub", "build", "--contracts", "4", "--seed", "0") == 0
    items = load_set(home).items
    by_text = {i.text: i for i in items}
    category_of = {schema.__name__: c for c, schema in OUTPUTS.items()}
    # A context window that holds every contract's prompt but the longest one's (with 1,000 output tokens).
    sizes = sorted(((sum(len(m.content) for m in scrub_messages(scrub_task(c, i.contract_id, i.text))) // 4, i)
                    for i in items for c in CATEGORY_KEYS), key=lambda p: p[0])  # prompts may tie in size
    longest = sizes[-1][1]
    fits = max(n for n, i in sizes if i is not longest)
    window = max(fits + 1000, 1024)
    assert sizes[-1][0] + 1000 > window, "the demo set needs one contract longer than the others"

    def respond(seen) -> Reply:
        category = category_of[seen.body["response_format"]["json_schema"]["name"]]
        contract = seen.body["messages"][1]["content"].removeprefix("CONTRACT:\n<<<\n").removesuffix("\n>>>")
        gold = [{k: v for k, v in g.fields().items()} for g in by_text[contract].gold if g.category == category]
        content = "this is not JSON" if category == "inconsistent_language" else json.dumps({"findings": gold})
        message = {"role": "assistant", "content": content, "refusal": None}
        return Reply(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "gpt-test",
                           "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050}})

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    with ScriptedServer() as server:
        server.respond = respond
        params = json.dumps({"max_retries": 0, "timeout_s": 10, "reasoning_effort": "high", "max_output_tokens": 1000,
                             "context_window": window, "concurrency": 4})
        assert lhl(home, "models", "add", "gpt-test", "--provider", "openai", "--model-id", "gpt-test",
                   "--base-url", server.url + "/v1", "--params", params, "--input-price", "2",
                   "--output-price", "8") == 0
        assert lhl(home, "audit", "--suite", "contractscrub", "--models", "gpt-test") == 0
        seen = list(server.requests)
    assert seen and all(r.body["reasoning_effort"] == "high" and "temperature" not in r.body for r in seen)
    assert all(longest.text not in r.body["messages"][1]["content"] for r in seen)  # never sent, never truncated
    assert {r.body["response_format"]["json_schema"]["strict"] for r in seen} == {True}
    failed = [e.data_as(ScrubFindingsFailed) for e in home.events.read("scrub.findings.model=gpt-test.run=1")
              if e.type == "scrub.findings_failed"]
    too_long = {f.category for f in failed if f.contract_id == longest.contract_id}
    assert too_long == set(CATEGORY_KEYS) and all("prompt too long" in f.reason for f in failed
                                                  if f.contract_id == longest.contract_id)
    unparseable = [f for f in failed if f.contract_id != longest.contract_id]
    assert {f.category for f in unparseable} == {"inconsistent_language"} and len(unparseable) == 3
    assert all("unparseable" in f.reason for f in unparseable)
    scored = [e.data_as(ScrubScored) for e in home.events.read("scrub.scores.model=gpt-test.run=1")]
    assert len(scored) == 3 * 8 and all(s.tp == s.gold and s.fp == 0 for s in scored)  # never an empty list
    report = report_json(home, capsys)
    (row,) = report["leaderboard"]
    assert row["missing_calls"] == 9 + 3 and row["cost_usd"] > 0
    assert row["recall"] is None and row["missing_categories"] == list(CATEGORY_KEYS)  # incomplete: no headline
    assert all(r["recall"] == 1.0 for r in report["by_category"] if r["gold"])  # what it answered, it found
    reasons = {(r["contract_id"], r["category"]): r["reason"] for r in report["missing"]}
    assert len(reasons) == 12 and "prompt too long" in reasons[(longest.contract_id, "defined_terms")]
    (usage,) = report["usage"]
    assert usage["calls"] == 3 * 9 + 9 and usage["failed_calls"] == 3 + 9  # the context check costs no request
    assert usage["cost_per_contract_usd"] == pytest.approx(usage["cost_usd"] / 4)


def test_the_sql_categories_are_the_python_categories() -> None:
    from lhl_platform.warehouse.build import connect, macros_sql

    con = connect()
    con.execute(macros_sql())
    rows = con.execute("select category, has_terms from scrub_categories() order by position").fetchall()
    assert [r[0] for r in rows] == list(CATEGORY_KEYS)
    assert [r[0] for r in rows if r[1]] == [c.key for c in TERM_CATEGORIES]


def test_the_suite_is_in_the_dagster_code_location_with_lineage() -> None:
    from dagster import AssetKey

    from orchestration.definitions import definitions

    defs = definitions()
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert {"scrub_items", "scrub_findings", "scrub_scores", "stg_scrub_scored", "scrub_cells", "scrub_units",
            "scrub_leaderboard", "scrub_by_category", "scrub_by_distance"} <= keys
    assert defs.resolve_job_def("scrub_partition") is not None

    def parents(name: str) -> set[str]:
        return {p.to_user_string() for p in graph.get(AssetKey(name)).parent_keys}

    assert "scrub_scores" in parents("stg_scrub_scored") and "scrub_findings" in parents("scrub_scores")
    assert "scrub_by_category" in parents("scrub_leaderboard")


def test_a_batch_partition_records_what_an_interactive_one_records(tmp_path: Path, monkeypatch, capsys) -> None:
    from tests.fakes import ProviderFake

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("LHL_BATCH_POLL_SECONDS", "0.05")
    params = json.dumps({"max_retries": 1, "backoff_base_s": 0.01, "timeout_s": 20, "concurrency": 4})

    def answer(contract: str) -> dict:  # any category's schema takes a list of findings
        return {"findings": []}

    homes = {}
    with ProviderFake("openai", answer) as live, ProviderFake("openai", answer) as batched:
        for name, fake, extra in (("interactive", live, ()), ("batch", batched, ("--batch",))):
            home = demo_home(tmp_path / name)
            assert lhl(home, "scrub", "build", "--contracts", "4", "--seed", "0") == 0
            assert lhl(home, "models", "add", "m", "--provider", "openai", "--model-id", "gpt-test", "--base-url",
                       fake.base_url, "--params", params, "--input-price", "3", "--output-price", "15",
                       "--batch-input-price", "1.5", "--batch-output-price", "7.5") == 0
            assert lhl(home, "audit", "--suite", "contractscrub", "--models", "m", *extra) == 0
            homes[name] = home
        assert (live.batch_creates, len(live.interactive)) == (0, 36)
        assert (batched.batch_creates, batched.interactive) == (1, [])

    def recorded(home: Home) -> tuple[list, list]:
        events = home.events.read("scrub.findings.model=m.run=1")
        calls = [e.data_as(ModelCall) for e in events if e.type == "model.call"]
        found = sorted((f.contract_id, f.category, f.request_key) for f in
                       (e.data_as(ScrubFindingsRecorded) for e in events if e.type == "scrub.findings_recorded"))
        return found, calls

    found_i, calls_i = recorded(homes["interactive"])
    found_b, calls_b = recorded(homes["batch"])
    assert len(found_i) == 36 and found_b == found_i  # the same requests, the same answers
    assert all(c.batch_id is None for c in calls_i) and {c.batch_id for c in calls_b} == {"batch_1"}
    board_i = report_json(homes["interactive"], capsys)["leaderboard"][0]
    board_b = report_json(homes["batch"], capsys)["leaderboard"][0]
    assert {k: v for k, v in board_b.items() if k != "cost_usd"} == {k: v for k, v in board_i.items()
                                                                      if k != "cost_usd"}
    assert 0 < board_b["cost_usd"] < board_i["cost_usd"]  # batch prices


def test_a_judge_is_refused_for_a_suite_scored_without_one(home: Home, capsys) -> None:
    capsys.readouterr()
    assert lhl(home, "report", "--suite", "contractscrub", "--judge", "rubric") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "scored without a judge" in err
