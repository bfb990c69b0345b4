"""The judge's coverage is part of the scope (issue 26, items 1 and 6), as a user meets it.

1. Content figures (HalTP, HalGen, JEq, RDI and their intervals; pooled, per run, per category, in the composite,
   in `lhl compare`, in drift, in every format and in `lhl publish`) rest on the cells the scope's judge labelled;
   detection figures (FAR, FRR, Acc) keep every cell. A run the judge labelled none of is null, never 0, and
   drift never compares it. The coverage statement says what the judge labelled.
2. `lhl audit --dry-run` counts the judge calls that would really be made: the unjudged true positives.
3. A partial system is pointed to a scope that really ranks it (the README's vendor-x walkthrough and the example
   of docs/method.md, section 10).
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil

import pytest
from sqlalchemy import create_engine, text

from lhl_platform.clause.importer import import_outcomes
from lhl_platform.clause.report.build import build_report, build_report_with_checks
from lhl_platform.clause.report.compare import compare_models
from lhl_platform.corpus.subsets import save_subset
from lhl_platform.domain.models import Subset
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.warehouse.scope import ScopeRequest, coverage_statement
from orchestration.cli import main
from tests.helpers import outcome, write_outcomes

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def run(capsys, home, *argv):
    capsys.readouterr()
    code = main(["--home", str(home), *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def report_json(capsys, home, *argv):
    code, out, err = run(capsys, home, "report", "--format", "json", "--resamples", "50", *argv)
    assert code == 0, err
    return json.loads(out)


def _contract(model, run_, contract, kinds):
    """One contract's 41 rows: the first clause types get `kinds` (an outcome, or an outcome with its verdict and
    mismatch type), the rest are TN."""
    rows = []
    for i, clause in enumerate(CLAUSE_TYPES):
        kind = kinds[i] if i < len(kinds) else "TN"
        rows.append(outcome(model, run_, contract, clause, *((kind,) if isinstance(kind, str) else kind)))
    return rows


CONTRADICTED = ("TP", "contradicted", "missing_condition")
SUPPORTED = ("TP", "supported", "none")


def _home(tmp_path, rows, name="o.csv"):
    home = Home.resolve(tmp_path / "h").ensure()
    import_outcomes(home, write_outcomes(tmp_path / name, rows))
    return home


# 1. Content figures rest on the judge's cells ---------------------------------------------------------------


@pytest.fixture
def half_judged(tmp_path):
    """Models a and b on 10 contracts in runs 1 and 2; each contract has one contradicted TP (a dropped condition),
    one supported TP, one FP, one FN and 37 TN. b is judged in both runs; a's run 2 TPs carry no verdict: its judge
    labelled run 1 only (20 of its 40 TPs)."""
    rows = []
    for model in ("a", "b"):
        for run_ in (1, 2):
            for i in range(1, 11):
                judged = model == "b" or run_ == 1
                tps = [CONTRADICTED, SUPPORTED] if judged else ["TP", "TP"]
                rows += _contract(model, run_, f"c{i:02d}", [*tps, "FP", "FN"])
    return _home(tmp_path, rows)


def test_pooled_content_figures_rest_on_the_run_the_judge_labelled(half_judged):
    report, checks = build_report_with_checks(half_judged, resamples=200)
    per_run = {(r.model, r.run): r for r in report.per_run}
    run1, run2 = per_run[("a", 1)], per_run[("a", 2)]
    # run 1: 10 contradicted of 20 TPs; HalGen (10 + 10 FP) / (20 + 10); JEq 10 supported / (20 + 10 FN)
    assert (run1.hal_tp, run1.hal_gen, run1.jeq, run1.rdi) == pytest.approx((0.5, 2 / 3, 1 / 3, -1.0))
    # run 2: the judge saw none of it; detection is still measured there
    assert (run2.hal_tp, run2.hal_gen, run2.jeq, run2.rdi) == (None, None, None, None)
    assert run2.far == pytest.approx(10 / 380) and run2.tp == 20
    pooled = next(r for r in report.leaderboard if r.model == "a")
    assert (pooled.hal_tp, pooled.hal_gen, pooled.jeq, pooled.rdi) == pytest.approx((0.5, 2 / 3, 1 / 3, -1.0))
    assert (pooled.tp, pooled.far, pooled.frr) == (40, pytest.approx(20 / 760), pytest.approx(20 / 60))
    # b, judged in both runs, pools both
    b = next(r for r in report.leaderboard if r.model == "b")
    assert (b.tp, b.hal_tp, b.hal_gen) == (40, pytest.approx(0.5), pytest.approx(40 / 60))
    # per category: the TPs are factual clauses (Document Name, Parties), the FP and FN temporal ones (dates)
    typed = {r.category: r for r in report.typed_profiles if r.model == "a"}
    assert (typed["factual"].hal_tp, typed["factual"].hal_gen, typed["factual"].jeq) == pytest.approx((0.5, 0.5, 0.5))
    # no TP to label in temporal: its content rates take the 10 FPs and 10 FNs of the judged run, not all 20
    assert (typed["temporal"].hal_tp, typed["temporal"].hal_gen, typed["temporal"].jeq) == (None, 1.0, 0.0)
    rdi = next(r for r in report.rdi if r.model == "a" and r.category is None)
    assert (rdi.contradicted, rdi.rdi) == (10, pytest.approx(-1.0))

    intervals = {(r.model, r.run, r.category, r.metric): r for r in report.statistics.rate_intervals}
    assert (intervals[("a", None, None, "hal_tp")].numerator, intervals[("a", None, None, "hal_tp")].denominator) \
        == (10, 20)
    assert intervals[("a", None, None, "hal_gen")].denominator == 30
    assert intervals[("a", None, None, "jeq")].denominator == 30
    assert intervals[("a", None, None, "far")].denominator == 760  # detection over both runs
    assert intervals[("a", None, "temporal", "hal_gen")].denominator == 10
    for metric in ("hal_tp", "hal_gen", "jeq"):
        assert intervals[("a", 2, None, metric)].value is None and intervals[("a", 2, None, metric)].ci_low is None

    coverage = {c.model: c for c in report.coverage}
    assert (coverage["a"].true_positives, coverage["a"].judged_tp, coverage["a"].judged_runs) == (40, 20, [1])
    statement = coverage_statement(coverage["a"].model_dump(), None)
    assert statement.endswith("its imported verdicts labelled 20 of 40 true positives: run 1 of 1, 2"), statement
    assert coverage_statement(coverage["b"].model_dump(), None).endswith(
        "its imported verdicts labelled all 40 true positives")

    change = next(c for c in checks if c.name == "no_change_detected")
    assert "not compared, no figure in scope" in change.summary
    assert "a run 2 (" in change.summary and "HalTP" in change.summary
    assert change.metadata["not_compared"] == "a run 2"
    assert "+0.000" not in change.summary


def test_contract_resampling_draws_only_the_judged_cells(half_judged):
    report = build_report(half_judged, resamples=200, cluster=True)
    hal = next(r for r in report.statistics.rate_intervals
               if (r.model, r.run, r.category, r.metric) == ("a", None, None, "hal_tp"))
    # every drawn contract brings one contradicted of two judged TPs: the interval cannot leave 0.5
    assert (hal.value, hal.ci_low, hal.ci_high) == (0.5, 0.5, 0.5)


def test_the_composite_drops_content_metrics_the_judge_did_not_label_on_every_matched_cell(half_judged):
    report = build_report(half_judged, resamples=50)
    scores = {(c.scheme, c.model): c.score for c in report.composite}
    assert scores[("halluc_only", "a")] is None and scores[("halluc_only", "b")] is None
    assert scores[("detection_only", "a")] is not None
    assert all(r.stability is None for r in report.statistics.rank_stability if r.scheme == "halluc_only")


def test_compare_pairs_content_figures_on_the_cells_judged_for_both(half_judged):
    c = compare_models(half_judged, "a", "b", resamples=100)
    metrics = {m.metric: m for m in c.metrics}
    assert c.scope.paired_cells == 20  # both runs, for detection
    assert (metrics["hal_tp"].a, metrics["hal_tp"].b, metrics["hal_tp"].diff) == (0.5, 0.5, 0.0)
    assert metrics["hal_gen"].a == pytest.approx(2 / 3) and metrics["hal_gen"].b == pytest.approx(2 / 3)
    assert metrics["far"].a == pytest.approx(20 / 760)


def test_a_run_extended_after_judging_counts_only_the_contracts_the_judge_saw(tmp_path):
    """Run 1 of c: contracts 1-5 judged; 6-10 extracted later, their TPs unjudged and three FPs each; contract 11
    holds no TP (one FP), so the judge had nothing to label there and it belongs to the judged run."""
    rows = []
    for i in range(1, 12):
        if i <= 5:
            kinds = [CONTRADICTED, SUPPORTED]
        elif i <= 10:
            kinds = ["TP", "TP", "FP", "FP", "FP"]
        else:
            kinds = ["TN", "TN", "FP"]
        rows += _contract("c", 1, f"k{i:02d}", kinds)
    report = build_report(_home(tmp_path, rows), resamples=50)
    lb = report.leaderboard[0]
    assert lb.hal_tp == pytest.approx(5 / 10)
    assert lb.hal_gen == pytest.approx((5 + 1) / (10 + 1))  # k11's FP counts, k06-k10's do not
    assert lb.fp == 16 and lb.far == pytest.approx(16 / (16 + 11 * 41 - 20 - 16))
    statement = coverage_statement(report.coverage[0].model_dump(), None)
    assert statement.endswith("its imported verdicts labelled 10 of 20 true positives: 5 of the 10 contracts "
                              "with one"), statement


def test_every_format_and_publish_show_the_judged_figures(half_judged, capsys, tmp_path):
    home = half_judged.root
    code, table, _ = run(capsys, home, "report", "--resamples", "50")
    assert code == 0
    def rates(line):  # FAR, FRR, Acc, HalTP, HalGen, JEq in %, whatever marks stand beside them
        return re.findall(r"\b\d+\.\d\b", line)[:6]

    lines = table.splitlines()
    row = lines[next(i for i, line in enumerate(lines) if line.startswith("Leaderboard")) + 4]
    assert row.startswith("a ") and rates(row)[3:] == ["50.0", "66.7", "33.3"]  # run 1's, not 25.0 / 50.0 / 16.7
    assert "coverage:  a: 10 of 10 corpus contracts; runs 1, 2; ranked; its imported verdicts labelled 20 of 40" \
        in table
    code, md, _ = run(capsys, home, "report", "--format", "md", "--resamples", "50")
    assert code == 0 and "its imported verdicts labelled 20 of 40 true positives: run 1 of 1, 2" in md
    assert any(re.match(r"\| a \| \d+ \| 2 \|", line) and rates(line)[3:] == ["50.0", "66.7", "33.3"]
               for line in md.splitlines())  # model, rank, runs, ...

    code, out, _ = run(capsys, home, "report", "--format", "csv", "--resamples", "50")
    rows = {(r["table"], r["model"], r["run"]): r for r in csv.DictReader(io.StringIO(out))}
    assert float(rows[("leaderboard", "a", "")]["hal_tp"]) == 0.5
    assert rows[("per_run", "a", "2")]["hal_tp"] == "" and rows[("per_run", "a", "2")]["far"] != ""

    page = tmp_path / "r.html"
    assert run(capsys, home, "report", "--format", "html", "--out", str(page), "--resamples", "50")[0] == 0
    html = page.read_text()
    leaderboard = re.search(r'<table[^>]* data-table="leaderboard">.*?</table>', html, re.S).group(0)
    row_a = re.search(r'<tr data-model="a".*?</tr>', leaderboard, re.S).group(0)
    assert 'data-metric="hal_tp" data-value="0.5"' in row_a
    assert "labelled 20 of 40 true positives: run 1 of 1, 2" in html

    url = f"sqlite:///{tmp_path / 'pub.db'}"
    assert run(capsys, home, "publish", url, "--resamples", "50")[0] == 0
    with create_engine(url).connect() as con:
        assert con.execute(text("select hal_tp from leaderboard where model = 'a'")).scalar_one() == 0.5
        assert con.execute(text("select hal_tp from per_run_metrics where model = 'a' and run = 2")
                           ).scalar_one() is None
        assert con.execute(text("select judged_tp from scope_coverage where model = 'a'")).scalar_one() == 20


# 1 and 2. The real path: a second judge on one run of two ----------------------------------------------------


def _judge_calls(dry):
    """The judge calls of the dry run's row for lexical, run 1."""
    row = next(line.split() for line in dry.splitlines() if re.match(r"lexical +1 +\d", line))
    return int(row[7].replace(",", ""))


@pytest.fixture
def demo_copy(demo_home, tmp_path):
    home = tmp_path / "demo"
    shutil.copytree(demo_home, home)
    return home


def test_a_second_judge_on_one_run_scopes_every_content_figure_to_that_run(demo_copy, capsys):
    """`lexical` is audited in runs 1 and 2 and judged by `rubric` (the demo); `surface` then judges run 1."""
    home = demo_copy
    assert run(capsys, home, "models", "add", "surface", "--provider", "offline", "--model-id", "overlap",
               "--role", "judge")[0] == 0
    rubric = {r["run"]: r for r in report_json(capsys, home, "--models", "lexical")["per_run"]}
    code, dry, _ = run(capsys, home, "audit", "--models", "lexical", "--runs", "1", "--judge", "surface",
                       "--dry-run")
    assert code == 0
    assert _judge_calls(dry) == rubric[1]["tp"]  # the true positives, not every present clause
    assert f"judge calls: {rubric[1]['tp']} for the true positives of recorded extractions" in dry

    assert run(capsys, home, "audit", "--models", "lexical", "--runs", "1", "--judge", "surface")[0] == 0
    report = report_json(capsys, home, "--judge", "surface")
    per_run = {(r["model"], r["run"]): r for r in report["per_run"]}
    one, two = per_run[("lexical", 1)], per_run[("lexical", 2)]
    assert one["hal_tp"] is not None and one["tp"] == rubric[1]["tp"]
    assert (two["hal_tp"], two["hal_gen"], two["jeq"], two["rdi"]) == (None, None, None, None)
    pooled = next(r for r in report["leaderboard"] if r["model"] == "lexical")
    for metric in ("hal_tp", "hal_gen", "jeq", "rdi"):
        assert pooled[metric] == pytest.approx(one[metric]), metric
    assert pooled["hal_tp"] == pytest.approx(one["contradicted"] / one["tp"])
    assert pooled["far"] == pytest.approx(pooled["fp"] / (pooled["fp"] + pooled["tn"]))  # both runs

    coverage = next(c for c in report["coverage"] if c["model"] == "lexical")
    total = one["tp"] + two["tp"]
    assert (coverage["judged_tp"], coverage["true_positives"], coverage["judged_runs"]) == (one["tp"], total, [1])
    code, table, _ = run(capsys, home, "report", "--judge", "surface", "--resamples", "50")
    assert f"judge surface labelled {one['tp']} of {total} true positives: run 1 of 1, 2" in table
    change = next(line for line in table.splitlines() if "no_change_detected" in line)
    assert "lexical run 2" in change and "no figure in scope" in change and "+0.000" not in change

    # nothing left for surface to judge on run 1
    code, dry, _ = run(capsys, home, "audit", "--models", "lexical", "--runs", "1", "--judge", "surface",
                       "--dry-run")
    assert _judge_calls(dry) == 0


def test_a_dry_run_on_contracts_not_extracted_says_its_judge_calls_are_an_upper_bound(demo_home, capsys):
    code, dry, _ = run(capsys, demo_home, "audit", "--models", "lexical", "--runs", "9", "--contracts", "2",
                       "--dry-run")
    assert code == 0
    assert "for the present clauses of contracts not extracted yet" in dry and "upper bound" in dry


# 3. A partial system is pointed to a scope that ranks it --------------------------------------------------------


def _own_scope(statement):
    """The scope a coverage statement names, as a ScopeRequest, or None."""
    found = re.search(r"its own scope: `lhl report (?:--subset (\S+) )?--runs ([\d,]+)`", statement)
    if not found:
        return None
    return ScopeRequest(subset=found.group(1), runs=tuple(int(r) for r in found.group(2).split(",")))


def _ranked_where_named(home, model):
    report = build_report(home, resamples=20)
    statement = coverage_statement(next(c for c in report.coverage if c.model == model).model_dump(), None)
    request = _own_scope(statement)
    assert request is not None, statement
    there = build_report(home, request, resamples=20)
    assert next(c for c in there.coverage if c.model == model).ranked, (statement, there.coverage)
    return request


def test_the_readme_walkthrough_ranks_vendor_x_in_the_scope_it_is_pointed_to(demo_copy, capsys, tmp_path):
    """README: the demo, then `lhl import outcomes docs/examples/outcomes.csv` for vendor-x (run 1) over a stored
    subset pub5 of five demo contracts holding the file's two."""
    listed = tmp_path / "pub5.txt"
    extra = ["03_brightledger_consulting_services", "04_ferrum_components_supply", "05_lumen_castell_joint_development"]
    listed.write_text((ROOT / "docs/examples/contracts.txt").read_text() + "\n".join(extra) + "\n")
    assert run(capsys, demo_copy, "subset", "create", "pub5", "--contracts", str(listed))[0] == 0
    assert run(capsys, demo_copy, "import", "outcomes", str(ROOT / "docs/examples/outcomes.csv"), "--subset",
               "pub5")[0] == 0
    code, table, _ = run(capsys, demo_copy, "report", "--resamples", "20")
    assert "vendor-x: 5 of 12 corpus contracts; run 1 of 1, 2" in table
    assert "its own scope: `lhl report --subset pub5 --runs 1`" in table
    code, narrow, _ = run(capsys, demo_copy, "report", "--subset", "pub5", "--runs", "1", "--resamples", "20")
    assert "cross-model figures rank the 6 of 6 systems" in narrow
    assert _ranked_where_named(Home.resolve(demo_copy), "vendor-x") == ScopeRequest(subset="pub5", runs=(1,))


def test_the_method_section_10_example_names_a_ranking_scope_for_each_partial_system(tmp_path):
    """A and B on 50 contracts in runs 1 and 2; C on 30 of them in both runs; D on 8 of them in run 1."""
    ids = [f"c{i:02d}" for i in range(1, 51)]
    both = [r for m in ("A", "B") for run_ in (1, 2) for c in ids for r in _contract(m, run_, c, [SUPPORTED, "FP"])]
    home = _home(tmp_path, both, "ab.csv")
    import_outcomes(home, write_outcomes(tmp_path / "c.csv", [
        r for run_ in (1, 2) for c in ids[:30] for r in _contract("C", run_, c, [SUPPORTED])]))
    import_outcomes(home, write_outcomes(tmp_path / "d.csv", [r for c in ids[:8] for r in
                                                              _contract("D", 1, c, [SUPPORTED, "FP", "FP"])]))
    save_subset(home, Subset(name="s30", contract_ids=tuple(ids[:30])))
    save_subset(home, Subset(name="s8", contract_ids=tuple(ids[:8])))
    report = build_report(home, resamples=20)
    assert {c.model for c in report.coverage if c.ranked} == {"A", "B"} and report.scope.matched_contracts == 50
    assert _ranked_where_named(home, "C") == ScopeRequest(subset="s30", runs=(1, 2))
    assert _ranked_where_named(home, "D") == ScopeRequest(subset="s8", runs=(1,))


def test_a_subset_where_another_system_covers_what_the_partial_one_lacks_is_never_named(tmp_path):
    """A covers c01-c20 and B c01-c10 with c21-c30 (both maximal: the matched cells are c01-c10); X covers c01-c04
    in run 1. pub5 holds X's contracts and c25, which B covers: in `--subset pub5 --runs 1` B alone would be
    maximal and X not ranked, so pub5 is not X's scope; pub4 (just X's contracts) is."""
    rows = [r for c in range(1, 21) for r in _contract("A", 1, f"c{c:02d}", [SUPPORTED])]
    rows += [r for c in [*range(1, 11), *range(21, 31)] for r in _contract("B", 1, f"c{c:02d}", [SUPPORTED])]
    home = _home(tmp_path, rows, "ab.csv")
    import_outcomes(home, write_outcomes(tmp_path / "x.csv", [r for c in range(1, 5)
                                                              for r in _contract("X", 1, f"c{c:02d}", ["FP"])]))
    save_subset(home, Subset(name="pub5", contract_ids=("c01", "c02", "c03", "c04", "c25")))
    report = build_report(home, resamples=20)
    x = next(c for c in report.coverage if c.model == "X")
    assert not x.ranked and not x.own_scope
    assert "no stored subset of its contracts ranks it" in coverage_statement(x.model_dump(), None)
    there = build_report(home, ScopeRequest(subset="pub5", runs=(1,)), resamples=20)
    assert not next(c for c in there.coverage if c.model == "X").ranked  # why pub5 must not be named
    save_subset(home, Subset(name="pub4", contract_ids=("c01", "c02", "c03", "c04")))
    assert _ranked_where_named(home, "X") == ScopeRequest(subset="pub4", runs=(1,))
