"""The command-line contract, end to end."""

import json

import pytest

from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from orchestration.cli import main
from tests.helpers import outcome, write_outcomes

METRIC_KEYS = {"model", "runs", "n", "tp", "fp", "fn", "tn", "supported", "contradicted", "n_missing_condition",
               "n_extra_condition", "far", "frr", "acc", "hal_tp", "hal_gen", "jeq", "rdi", "rdi_ci_low",
               "rdi_ci_high", "missing_rows"}


def _run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_demo_prints_leaderboard_profiles_rdi_and_composite(demo_home, capsys):
    code, out, _ = _run(capsys, "--home", str(demo_home), "report")
    assert code == 0
    for heading in ("Leaderboard", "Typed HalTP by category", "Risk Direction Index", "Composite rank", "Checks"):
        assert heading in out
    assert "sim-inventor" in out and "[PASS] rows_complete" in out


def test_report_json_has_exactly_the_spec_shape(demo_home, capsys):
    code, out, _ = _run(capsys, "--home", str(demo_home), "report", "--format", "json", "--resamples", "300")
    assert code == 0
    report = json.loads(out)
    # The five metric sections, the scope they were computed in, tokens and cost per model and run, the RDI
    # table with its shares, mean and SD across runs, and per-clause-type profiles.
    assert set(report) == {"verdict", "suite", "scope", "leaderboard", "per_run", "typed_profiles", "gaps", "composite",
                           "usage", "rdi", "run_summary", "clause_profiles", "debate_effects", "debate_by_category",
                           "provenance", "statistics", "judge_validation", "coverage", "cost", "judge_heldout",
                           "checks", "trend", "systems"}
    # what each system is: the demo's are offline algorithms and calibration tools, none a provider's model
    assert {s["model"]: s["nature"] for s in report["systems"]} == {
        "lexical": "algorithm", "sim-inventor": "simulated", "sim-omitter": "simulated", "sim-balanced": "simulated",
        "sim-inventor+debate": "simulated"}
    assert set(report["scope"]) == {"corpus_id", "corpus_name", "subset", "runs", "judge", "models", "contracts",
                                    "matched_contracts"}
    assert {(u["model"], u["run"]) for u in report["usage"]} == {(r["model"], r["run"]) for r in report["per_run"]}
    # the four demo models and the demo's debate system, ranked beside its base on the same contracts
    assert {r["model"] for r in report["leaderboard"]} == {"lexical", "sim-inventor", "sim-omitter", "sim-balanced",
                                                           "sim-inventor+debate"}
    assert report["scope"]["matched_contracts"] == report["scope"]["contracts"] == 12
    assert set(report["leaderboard"][0]) == METRIC_KEYS | {"contracts", "coverage_differs", "judge_validated"}
    # the demo validates its judge (rubric), which passes in-sample and fails held out: every row says so
    assert {r["judge_validated"] for r in report["leaderboard"]} == {False}
    assert report["verdict"]["caveats"][0]["kind"] == "judge_failed" or any(
        c["kind"] == "judge_failed" for c in report["verdict"]["caveats"])
    assert set(report["per_run"][0]) == METRIC_KEYS | {"run"}
    assert set(report["typed_profiles"][0]) == METRIC_KEYS | {"category"}
    assert set(report["gaps"][0]) == {"model", "gap", "max_category", "min_category"}
    assert set(report["composite"][0]) == {"scheme", "model", "score", "rank"}
    assert len(report["composite"]) == 5 * 5
    assert all(0 <= r["far"] <= 1 for r in report["leaderboard"])
    rows = {r["model"]: r for r in report["leaderboard"]}
    assert rows["sim-inventor"]["rdi"] > 0 > rows["sim-omitter"]["rdi"]


def test_report_is_reproducible_for_a_seed_and_offers_cluster_bootstrap(demo_home, capsys):
    args = ("--home", str(demo_home), "report", "--format", "json", "--resamples", "200", "--seed", "5")
    first, second = _run(capsys, *args)[1], _run(capsys, *args)[1]
    assert first == second
    cluster = json.loads(_run(capsys, *args, "--bootstrap", "contract")[1])
    assert cluster["leaderboard"][0]["rdi"] == json.loads(first)["leaderboard"][0]["rdi"]


def test_report_csv_and_markdown_to_file(demo_home, tmp_path, capsys):
    assert main(["--home", str(demo_home), "report", "--format", "csv", "--out", str(tmp_path / "r.csv")]) == 0
    lines = (tmp_path / "r.csv").read_text().splitlines()
    # the verdict first, then the leaderboard, per-run and typed-profile rows of the demo's 5 systems, then the
    # cost section's rows
    assert lines[1].startswith("verdict,sim-inventor+debate,") and lines[0].endswith(",part,statement")
    metric = [ln for ln in lines[1:] if not ln.startswith(("cost_", "verdict,"))]
    assert lines[0].startswith("table,model,run,category") and len(metric) == 5 + 10 + 20
    assert sum(ln.startswith("cost_per_correct,") for ln in lines) == 5
    code, out, _ = _run(capsys, "--home", str(demo_home), "report", "--format", "md")
    assert code == 0 and "## Leaderboard" in out and "|---|" in out


def test_verify_passes_after_the_demo(demo_home, capsys):
    code, out, _ = _run(capsys, "--home", str(demo_home), "verify")
    assert code == 0 and "intact" in out


def test_judge_one_pair_and_many(tmp_path, capsys):
    code, out, _ = _run(capsys, "--home", str(tmp_path), "judge", "--clause-type", "Governing Law",
                        "--truth", "governed by the laws of the State of Delaware",
                        "--extracted", "governed by the laws of the State of Delaware")
    assert code == 0 and json.loads(out) == {"verdict": "supported", "mismatch_type": "none",
                                             "reason": json.loads(out)["reason"]}
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n".join([
        json.dumps({"id": "a", "clause_type": "Cap On Liability", "truth": "shall not exceed $1,000,000",
                    "extracted": "shall not exceed $5,000,000"}),
        json.dumps({"id": "b", "clause_type": "Non-Compete", "truth": "shall not compete within 50 miles",
                    "extracted": "shall not compete"}),
        "{not json",
        json.dumps({"id": "d", "clause_type": "Force Majeure", "truth": "x", "extracted": "x"}),
    ]))
    code, out, err = _run(capsys, "--home", str(tmp_path), "judge", "--pairs", str(pairs))
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x.get("mismatch_type") for x in lines[:2]] == ["numeric", "missing_condition"]
    assert [x.get("id") for x in lines[:2]] == ["a", "b"]
    assert "line 3" in lines[2]["error"] and "unknown clause type" in lines[3]["error"]
    assert code == 1 and "2 of 4 pairs" in err


def test_import_rejects_an_invalid_row_by_number_and_writes_nothing(tmp_path, capsys):
    rows = [outcome("m", 1, "c1", c, "TN") for c in CLAUSE_TYPES]
    rows[7]["verdict"] = "supported"  # a verdict on a TN
    path = write_outcomes(tmp_path / "bad.csv", rows)
    code, _, err = _run(capsys, "--home", str(tmp_path / "h"), "import", "outcomes", str(path))
    assert code == 1 and "row 8" in err and err.count("\n") == 1
    assert not (tmp_path / "h" / "events").exists() or not list((tmp_path / "h" / "events").glob("import*"))


def test_import_then_report_and_reimport_is_idempotent(tmp_path, capsys):
    rows = [outcome("m", 1, "c1", c, "TN") for c in CLAUSE_TYPES]
    path = write_outcomes(tmp_path / "ok.csv", rows)
    first = _run(capsys, "--home", str(tmp_path), "import", "outcomes", str(path))[1]
    assert first.startswith("imported 41 rows (41 new")
    assert "(0 new, 41 already recorded)" in _run(capsys, "--home", str(tmp_path), "import", "outcomes", str(path))[1]
    report = json.loads(_run(capsys, "--home", str(tmp_path), "report", "--format", "json")[1])
    assert report["leaderboard"][0]["n"] == 41


def test_models_add_validates_names_and_providers(tmp_path, capsys):
    code, _, err = _run(capsys, "--home", str(tmp_path), "models", "add", "bad|name", "--provider", "offline",
                        "--model-id", "lexical")
    assert code == 1 and "name" in err
    code, _, err = _run(capsys, "--home", str(tmp_path), "models", "add", "x", "--provider", "offline",
                        "--model-id", "oracle")
    assert code == 1 and "does not exist" in err
    assert _run(capsys, "--home", str(tmp_path), "models", "add", "lex", "--provider", "offline",
                "--model-id", "lexical")[0] == 0
    assert "lex" in _run(capsys, "--home", str(tmp_path), "models", "list")[1]
    assert _run(capsys, "--home", str(tmp_path), "models", "remove", "lex")[0] == 0
    assert "lex " not in _run(capsys, "--home", str(tmp_path), "models", "list")[1]


def test_audit_a_subset_through_dagster(tmp_path, capsys):
    from lhl_platform.corpus.demo import DEMO_DIR

    home = str(tmp_path)
    assert main(["--home", home, "ingest", "cuad", str(DEMO_DIR)]) == 0
    assert main(["--home", home, "models", "add", "lex", "--provider", "offline", "--model-id", "lexical"]) == 0
    assert main(["--home", home, "subset", "create", "five", "--size", "5", "--seed", "1"]) == 0
    assert main(["--home", home, "audit", "--models", "lex", "--runs", "1", "--subset", "five"]) == 0
    capsys.readouterr()
    report = json.loads(_run(capsys, "--home", home, "report", "--format", "json")[1])
    assert report["leaderboard"][0]["n"] == 5 * 41
    # the suite's items job ran first (the clause suite's corpus job): the contracts asset shows the active corpus
    from dagster import AssetKey

    from lhl_platform.corpus.store import active_corpus_id
    from lhl_platform.home import Home
    from orchestration.launch import instance_for

    instance = instance_for(Home.resolve(home))
    try:
        event = instance.get_latest_materialization_event(AssetKey("contracts"))
    finally:
        instance.dispose()
    assert event is not None and event.asset_materialization is not None
    assert event.asset_materialization.metadata["corpus_id"].value == active_corpus_id(Home.resolve(home))
    code, _, err = _run(capsys, "--home", home, "audit", "--models", "nope")
    assert code == 1 and "not registered" in err


def test_an_explicit_item_filter_replaces_the_registered_ones(tmp_path):
    """A model registered with a subset, audited with `--contracts 2`, audits 2 contracts (and the other way round):
    the flags' filter is the one choice of items, whoever launches the run."""
    from lhl_platform.domain.models import ModelSpec
    from lhl_platform.home import Home
    from lhl_platform.registry import add_model
    from lhl_platform.suites import get_suite
    from orchestration.cli.audit import AuditOptions, suite_overrides
    from orchestration.runs import AUDIT_JOB, find_job, partition_launch

    home = Home.resolve(tmp_path).ensure()
    add_model(home, ModelSpec(name="by-subset", provider="offline", model_id="lexical",
                              params={"audit": {"subset": "s5"}}))
    add_model(home, ModelSpec(name="by-count", provider="offline", model_id="lexical",
                              params={"audit": {"contracts": 3}}))

    def extraction(model: str, **flags: object) -> dict:  # the run config `lhl audit` gives these flags
        options = AuditOptions(**flags)  # type: ignore[arg-type]
        config = suite_overrides(options, get_suite("clause"), find_job(AUDIT_JOB).stages)
        launched = partition_launch(home, AUDIT_JOB, model, 1, "cli", config=config)
        return launched.run_config["ops"]["extractions"]["config"]

    assert extraction("by-subset") == {"contracts": None, "subset": "s5"}
    assert extraction("by-subset", contracts=2) == {"contracts": 2, "subset": None}
    assert extraction("by-count", subset="pair") == {"contracts": None, "subset": "pair"}
    assert extraction("by-count", judge="rubric") == {"contracts": 3, "subset": None, "rejudge": True}


def test_extract_missing_completes_a_rejudging_or_is_refused(tmp_path, capsys):
    assert main(["--home", str(tmp_path), "models", "add", "lex", "--provider", "offline", "--model-id",
                 "lexical"]) == 0
    code, _, err = _run(capsys, "--home", str(tmp_path), "audit", "--models", "lex", "--extract-missing")
    assert code == 1 and err.count("\n") == 1 and "give it with --judge" in err


# Every suite takes every audit option, or refuses it in one line naming the suite and the option --------------

@pytest.fixture(scope="module")
def suites_home(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The demo corpus, a ContractScrub set of 4 contracts, the InsufficiencyBench items, an offline scrubber, and
    two stored subsets: `pair` holds two of the set's contracts, `outside` none of them."""
    from lhl_platform.corpus.demo import DEMO_DIR
    from lhl_platform.corpus.store import load_corpus
    from lhl_platform.home import Home
    from lhl_platform.scrub.store import load_set

    folder = tmp_path_factory.mktemp("suites-home")
    home = str(folder / "home")
    for argv in (["ingest", "cuad", str(DEMO_DIR)], ["scrub", "build", "--contracts", "4"], ["ingest", "insufficiency"],
                 ["models", "add", "rules", "--provider", "offline", "--model-id", "scrub-rules"]):
        assert main(["--home", home, *argv]) == 0
    in_set = sorted(i.contract_id for i in load_set(Home.resolve(home)).items)
    others = sorted({c.contract_id for c in load_corpus(Home.resolve(home)).contracts} - set(in_set))
    for name, ids in (("pair", [in_set[1], in_set[3]]), ("outside", others[:3])):
        (folder / name).write_text("\n".join(ids) + "\n")
        assert main(["--home", home, "subset", "create", name, "--contracts", str(folder / name)]) == 0
    return home


def test_contractscrub_audit_scores_exactly_the_contracts_asked(suites_home, capsys):
    from lhl_platform.home import Home
    from lhl_platform.scrub.events import ScrubEventType, ScrubScored

    assert main(["--home", suites_home, "audit", "--suite", "contractscrub", "--models", "rules",
                 "--contracts", "2"]) == 0
    capsys.readouterr()
    code, out, _ = _run(capsys, "--home", suites_home, "report", "--suite", "contractscrub", "--format", "json")
    report = json.loads(out)
    (coverage,) = report["coverage"]
    assert code == 0 and report["scope"]["items"] == 2
    assert (coverage["contracts"], coverage["calls_asked"], coverage["calls_answered"]) == (2, 18, 18)
    home = Home.resolve(suites_home)
    scored = {e.data_as(ScrubScored).contract_id for e in home.events.read("scrub.scores.model=rules.run=1")
              if e.type == ScrubEventType.SCORED}
    assert len(scored) == 2  # the first two contracts of the set by id, and nothing else scored


def test_a_suite_audit_option_it_cannot_honour_is_refused_in_one_line(suites_home, capsys):
    def refused(*argv: str) -> str:
        code, _, err = _run(capsys, "--home", suites_home, "audit", *argv)
        assert code == 1 and err.count("\n") == 1, err
        return err

    assert "suite contractscrub does not take --judge" in refused("--suite", "contractscrub", "--models", "rules",
                                                                  "--judge", "rubric")
    for option in (("--contracts", "2"), ("--subset", "pair")):
        err = refused("--suite", "insufficiency", "--models", "rules", *option)
        assert f"suite insufficiency does not take {option[0]}" in err and "--item-set" in err
    assert "--extract-missing" in refused("--suite", "contractscrub", "--models", "rules", "--extract-missing")
    assert "suite lexflip" in refused("--suite", "lexflip", "--models", "rules")
    assert "--item-set" in refused("--models", "rules", "--item-set", "x")  # the clause suite audits a corpus
    assert "give at most 4" in refused("--suite", "contractscrub", "--models", "rules", "--contracts", "9")
    assert "holds none of the 4 contracts" in refused("--suite", "contractscrub", "--models", "rules",
                                                      "--subset", "outside")


def test_a_suite_dry_run_takes_runs_contracts_subset_and_batch(suites_home, capsys):
    def rows(*argv: str) -> list[list[str]]:
        code, out, _ = _run(capsys, "--home", suites_home, "audit", "--suite", "contractscrub", "--models", "rules",
                            *argv, "--dry-run")
        assert code == 0 and "nothing is called" in out
        return [line.split() for line in out.splitlines() if line.startswith("rules ")]

    # runs 2 and 3 were never audited: 9 calls per contract and run
    assert [(r[1], r[4]) for r in rows("--runs", "2,3", "--contracts", "1")] == [("2", "9"), ("3", "9")]
    assert [(r[1], r[4]) for r in rows("--runs", "2", "--contracts", "3", "--batch")] == [("2", "27")]
    assert [r[4] for r in rows("--runs", "2", "--subset", "pair")] == ["18"]
    assert [r[4] for r in rows("--runs", "2", "--subset", "pair", "--contracts", "1")] == ["9"]


def test_a_queued_suite_audit_carries_its_item_filter_to_the_daemon(suites_home, capsys):
    from lhl_platform.home import Home
    from orchestration.launch import instance_for

    assert main(["--home", suites_home, "audit", "--suite", "contractscrub", "--models", "rules", "--runs", "4",
                 "--contracts", "1", "--queue"]) == 0
    assert "queued 1 contractscrub partition run(s)" in capsys.readouterr().out
    instance = instance_for(Home.resolve(suites_home))
    try:
        (queued,) = [r for r in instance.get_runs() if r.tags.get("lhl/run") == "4"]
    finally:
        instance.dispose()
    ops = queued.run_config["ops"]
    assert ops["scrub_findings"]["config"]["contracts"] == ops["scrub_scores"]["config"]["contracts"] == 1


def test_report_scheme_chooses_the_verdict_s_ranking_and_is_refused_where_it_cannot_apply(demo_home, capsys):
    code, out, _ = _run(capsys, "--home", str(demo_home), "report", "--format", "json", "--resamples", "20",
                        "--scheme", "halluc_only")
    report = json.loads(out)
    first = sorted((c for c in report["composite"] if c["scheme"] == "halluc_only" and c["rank"] == 1),
                   key=lambda c: c["model"])
    assert code == 0 and report["verdict"]["scheme"] == "halluc_only"
    assert report["verdict"]["best"] == [c["model"] for c in first]
    code, _, err = _run(capsys, "--home", str(demo_home), "report", "--scheme", "nope")
    assert code == 1 and err.strip().splitlines() == [
        "lhl: unknown composite scheme 'nope'; schemes: equal, fp_heavy, recall_heavy, halluc_only, detection_only"]
    code, _, err = _run(capsys, "--home", str(demo_home), "report", "--suite", "contractscrub", "--scheme", "equal")
    assert code == 1 and "--scheme chooses the clause suite's composite scheme" in err


# Suites own their models: another suite's offline system is refused in one line, nothing recorded -------------

def test_another_suite_s_offline_model_is_refused_naming_its_suite_and_nothing_is_recorded(tmp_path, capsys):
    from lhl_platform.home import Home
    from lhl_platform.suites.ownership import get_audited
    from orchestration.launch import instance_for

    home = str(tmp_path)
    for name, provider, model_id, *role in (("scrub-rules", "offline", "scrub-rules"), ("lex", "offline", "lexical"),
                                            ("gold-reader", "offline", "gold-reader"),
                                            ("api", "openai", "gpt-4.1"), ("j", "openai", "gpt-4.1", "judge")):
        extra = ["--role", role[0]] if role else []
        assert main(["--home", home, "models", "add", name, "--provider", provider, "--model-id", model_id,
                     *extra]) == 0
    capsys.readouterr()
    before = len(Home.resolve(home).events.read())
    for argv, owner in ((("--models", "scrub-rules"), "contractscrub"), (("--models", "lex", "--suite",
                                                                          "contractscrub"), "clause"),
                        (("--models", "gold-reader", "--suite", "contractscrub"), "insufficiency")):
        code, out, err = _run(capsys, "--home", home, "audit", *argv, "--runs", "1")
        assert code == 1 and err.count("\n") == 1 and out == "", err
        assert f"belongs to suite {owner}" in err and f"--suite {owner}" in err
    assert len(Home.resolve(home).events.read()) == before  # no run, no event
    instance = instance_for(Home.resolve(home))
    try:
        assert list(instance.get_runs()) == []
    finally:
        instance.dispose()
    # an API model fits every suite; an unknown name lists only the models the suite can audit
    for suite in ("clause", "contractscrub", "insufficiency"):
        assert get_audited(Home.resolve(home), "api", suite).name == "api"
    code, _, err = _run(capsys, "--home", home, "audit", "--models", "nope")
    assert code == 1 and "'nope'" in err and "api, lex)" in err
    for absent in ("scrub-rules", "gold-reader", " j", "rubric"):
        assert absent not in err
    code, _, err = _run(capsys, "--home", home, "audit", "--models", "j")
    assert code == 1 and "is a judge, not a model under test" in err


def test_an_audit_s_bad_value_is_named_before_a_missing_option(tmp_path, capsys):
    code, _, err = _run(capsys, "--home", str(tmp_path), "audit", "--max-cost", "-1")
    assert code == 1 and err.count("\n") == 1 and "--max-cost must be a positive amount of USD, not -1" in err
    code, _, err = _run(capsys, "--home", str(tmp_path), "audit", "--contracts", "0")
    assert code == 1 and "--contracts must be at least 1, not 0" in err
    code, _, err = _run(capsys, "--home", str(tmp_path), "audit")
    assert code == 1 and "needs --models" in err
