"""Every number states its scope (corpus, contracts, runs, judge) and cross-model figures are matched."""

import json
import shutil

import pytest

from lhl_platform.clause.importer import import_outcomes
from lhl_platform.clause.report.build import NothingInScope, build_report, build_report_with_checks
from lhl_platform.corpus.subsets import save_subset
from lhl_platform.domain.models import ModelSpec, Subset
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.registry import add_model
from lhl_platform.warehouse.scope import ScopeError, ScopeRequest
from orchestration.cli import main
from tests.helpers import outcome, write_outcomes


def _contract(model, run, contract, kinds):
    """One contract's 41 rows: the first clause types get `kinds`, the rest are TN; TPs are supported."""
    rows = []
    for i, clause in enumerate(CLAUSE_TYPES):
        kind = kinds[i] if i < len(kinds) else "TN"
        rows.append(outcome(model, run, contract, clause, kind, *(("supported", "none") if kind == "TP" else ())))
    return rows


def _home(tmp_path, rows):
    home = Home.resolve(tmp_path / "h").ensure()
    import_outcomes(home, write_outcomes(tmp_path / "o.csv", rows))
    return home


@pytest.fixture
def wide_and_narrow(tmp_path):
    """`wide` covers 40 contracts, `narrow` (imported on its own) the first 20 of them. On those 20, wide is perfect
    and narrow misses one clause per contract; on the other 20, wide fabricates three clauses per contract."""
    wide, narrow = [], []
    for i in range(1, 41):
        cid = f"c{i:02d}"
        wide += _contract("wide", 1, cid, ["TP", "TP"] if i <= 20 else ["TP", "TP", "FP", "FP", "FP"])
        if i <= 20:
            narrow += _contract("narrow", 1, cid, ["TP", "FN"])
    home = _home(tmp_path, wide)
    import_outcomes(home, write_outcomes(tmp_path / "narrow.csv", narrow))
    return home


def test_a_partial_model_never_shrinks_the_matched_cells(wide_and_narrow):
    report, checks = build_report_with_checks(wide_and_narrow, resamples=50)
    # narrow covers half of what wide covers: it is partial, and the matched cells stay wide's 40 contracts
    assert report.scope.matched_contracts == 40 and report.scope.contracts == 40
    lb = {r.model: r for r in report.leaderboard}
    # the leaderboard keeps each model's own rows and marks the one whose coverage differs
    assert (lb["wide"].contracts, lb["wide"].n, lb["wide"].coverage_differs) == (40, 40 * 41, False)
    assert (lb["narrow"].contracts, lb["narrow"].n, lb["narrow"].coverage_differs) == (20, 20 * 41, True)
    coverage = {c.model: c for c in report.coverage}
    assert (coverage["narrow"].ranked, coverage["narrow"].contracts_covered, coverage["narrow"].contracts_missing,
            coverage["narrow"].missing_rows) == (False, 20, 20, 0)
    assert coverage["wide"].ranked and coverage["wide"].contracts_missing == 0
    assert {c.model for c in report.composite} == {"wide"}
    comparable = next(c for c in checks if c.name == "comparable_scope")
    assert not comparable.passed
    assert "narrow: 20 of 40 corpus contracts" in comparable.summary and "40 contracts" in comparable.summary


def test_a_partial_model_is_ranked_in_the_scope_it_covers(wide_and_narrow):
    save_subset(wide_and_narrow, Subset(name="first20", contract_ids=tuple(f"c{i:02d}" for i in range(1, 21))))
    report = build_report(wide_and_narrow, resamples=50)
    statement = next(c for c in statements(report) if c.startswith("narrow:"))
    assert "its own scope: `lhl report --subset first20 --runs 1`" in statement
    report = build_report(wide_and_narrow, ScopeRequest(subset="first20"), resamples=50)
    assert report.scope.matched_contracts == 20 and all(c.ranked for c in report.coverage)
    # On the 20 matched contracts: FAR 0 vs 0 (tie 1.5), FRR 0 vs 0.5, Acc 1 vs 40/41, HalGen 0 vs 0 (tie),
    # JEq 1 vs 0.5. wide ranks 1.5, 1, 1, 1.5, 1; narrow 1.5, 2, 2, 1.5, 2.
    score = {(c.scheme, c.model): c.score for c in report.composite}
    assert score[("equal", "wide")] == pytest.approx(6 / 5)
    assert score[("equal", "narrow")] == pytest.approx(9 / 5)
    assert score[("fp_heavy", "wide")] == pytest.approx((2 * 1.5 + 1 + 1 + 2 * 1.5 + 1) / 7)
    assert score[("detection_only", "narrow")] == pytest.approx((1.5 + 2 + 2) / 3)


def statements(report):
    from lhl_platform.warehouse.scope import coverage_statement

    return [coverage_statement(c.model_dump(), report.scope.subset) for c in report.coverage]


def test_a_model_with_no_outcome_in_scope_is_not_listed(wide_and_narrow):
    report = build_report(wide_and_narrow, ScopeRequest(models=("narrow",)), resamples=50)
    assert [r.model for r in report.leaderboard] == ["narrow"]
    assert report.scope.models == ["narrow"] and report.scope.matched_contracts == 20


def test_subset_and_run_scope_gives_the_shape_of_the_debate_table(tmp_path):
    # Three systems over 30 contracts and three runs; the table compares them on a stored subset, run 1.
    rows = []
    for model, kinds in (("gemma-base", ["TP", "FP", "FP"]), ("gpt-5.2", ["TP", "FP"]), ("gemma-debate", ["TP"])):
        for run in (1, 2, 3):
            for i in range(1, 31):
                rows += _contract(model, run, f"c{i:02d}", kinds)
    home = _home(tmp_path, rows)
    save_subset(home, Subset(name="t4", contract_ids=tuple(f"c{i:02d}" for i in range(1, 13))))
    report = build_report(home, ScopeRequest(subset="t4", runs=(1,)), resamples=50)
    assert (report.scope.subset, report.scope.runs, report.scope.contracts, report.scope.matched_contracts) == (
        "t4", [1], 12, 12)
    assert {r.model: (r.n, r.runs, r.fp) for r in report.leaderboard} == {
        "gemma-base": (12 * 41, 1, 24), "gpt-5.2": (12 * 41, 1, 12), "gemma-debate": (12 * 41, 1, 0)}
    ranks = {c.model: c.rank for c in report.composite if c.scheme == "fp_heavy"}
    assert ranks == {"gemma-debate": 1, "gpt-5.2": 2, "gemma-base": 3}
    assert len(report.per_run) == 3


def test_unknown_corpus_or_subset_is_a_clear_error(wide_and_narrow):
    with pytest.raises(ScopeError, match="not a stored corpus"):
        build_report(wide_and_narrow, ScopeRequest(corpus="nope"))
    with pytest.raises(ScopeError, match="no subset named"):
        build_report(wide_and_narrow, ScopeRequest(subset="nope"))


def test_report_with_models_registered_but_nothing_audited_says_so(tmp_path, capsys):
    home = Home.resolve(tmp_path / "h").ensure()
    add_model(home, ModelSpec(name="m", provider="offline", model_id="lexical"))
    with pytest.raises(NothingInScope):
        build_report(home)
    assert main(["--home", str(home.root), "report"]) == 1
    assert "nothing" in capsys.readouterr().err


def test_demo_and_cuad_in_one_home_never_meet(demo_home, cuad_dir, tmp_path, capsys):
    home = tmp_path / "both"
    shutil.copytree(demo_home, home)
    assert main(["--home", str(home), "report", "--format", "json", "--resamples", "100"]) == 0
    demo_only = json.loads(capsys.readouterr().out)
    assert main(["--home", str(home), "ingest", "cuad", str(cuad_dir)]) == 0
    assert main(["--home", str(home), "audit", "--models", "lexical", "--runs", "1,1", "--contracts", "20"]) == 0
    capsys.readouterr()
    assert main(["--home", str(home), "report", "--format", "json", "--resamples", "100"]) == 0
    cuad = json.loads(capsys.readouterr().out)
    assert cuad["scope"]["corpus_name"] == cuad_dir.name
    assert [(r["model"], r["n"], r["contracts"]) for r in cuad["leaderboard"]] == [("lexical", 820, 20)]
    demo_name = demo_only["scope"]["corpus_name"]
    assert main(["--home", str(home), "report", "--format", "json", "--resamples", "100", "--corpus", demo_name]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["leaderboard"] == demo_only["leaderboard"] and again["composite"] == demo_only["composite"]


def test_creating_the_same_subset_again_is_a_no_op_and_other_contracts_under_its_name_are_refused(tmp_path):
    home = Home.resolve(tmp_path / "home").ensure()
    same = Subset(name="s2", contract_ids=("c1", "c2"))
    assert save_subset(home, same) is True
    assert save_subset(home, Subset(name="s2", contract_ids=("c1", "c2"))) is False
    with pytest.raises(ValueError, match="already exists with other contracts"):
        save_subset(home, Subset(name="s2", contract_ids=("c1", "c3")))
    assert sum(1 for e in home.events.read("subsets") if e.type == "subset.created") == 1
