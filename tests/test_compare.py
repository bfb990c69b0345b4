"""`lhl compare A B`: paired differences with contract-cluster intervals, on synthetic outcomes."""

import json

import numpy as np
import pytest

from lhl_platform.clause.importer import import_outcomes
from lhl_platform.clause.report.compare import NothingToCompare, compare_models
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.warehouse.scope import ScopeRequest
from orchestration.cli import main
from tests.helpers import outcome, write_outcomes

PRESENT = CLAUSE_TYPES[:12]  # present in every contract; the other 29 types are absent


def _contract(model, run, contract, rng, p_contradicted, p_fp=0.05, p_fn=0.1):
    rows = []
    for clause in CLAUSE_TYPES:
        if clause in PRESENT:
            if rng.random() < p_fn:
                rows.append(outcome(model, run, contract, clause, "FN"))
            elif rng.random() < p_contradicted:
                rows.append(outcome(model, run, contract, clause, "TP", "contradicted",
                                    rng.choice(["scope", "missing_condition", "extra_condition"])))
            else:
                rows.append(outcome(model, run, contract, clause, "TP", "supported", "none"))
        else:
            rows.append(outcome(model, run, contract, clause, "FP" if rng.random() < p_fp else "TN"))
    return rows


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """Models over 40 contracts and two runs: `careful` contradicts 10% of found clauses and `sloppy` 45%.
    `twin-b` has exactly `twin-a`'s outcomes, each contract's moved to the next contract: the same totals (no
    difference at all) but different contracts, so the paired resamples still vary. `partial` has run 1 only, on
    the first 25 contracts (imported on its own: an import covers every contract it names)."""
    rng = np.random.default_rng(7)
    rows, partial = [], []
    for i in range(1, 41):
        cid, next_cid = f"k{i:02d}", f"k{i % 40 + 1:02d}"
        for run in (1, 2):
            rows += _contract("careful", run, cid, rng, 0.10)
            rows += _contract("sloppy", run, cid, rng, 0.45)
            twin = _contract("twin-a", run, cid, rng, 0.30)
            rows += twin + [{**r, "model": "twin-b", "contract_id": next_cid} for r in twin]
        if i <= 25:
            partial += _contract("partial", 1, cid, rng, 0.30)
    tmp = tmp_path_factory.mktemp("compare")
    h = Home.resolve(tmp / "home").ensure()
    import_outcomes(h, write_outcomes(tmp / "outcomes.csv", rows))
    import_outcomes(h, write_outcomes(tmp / "partial.csv", partial))
    return h


def _metrics(comparison):
    return {m.metric: m for m in comparison.metrics}


def test_a_known_difference_has_an_interval_that_excludes_zero(home):
    c = compare_models(home, "sloppy", "careful", resamples=1000, seed=1)
    hal = _metrics(c)["hal_tp"]
    assert hal.a > 0.35 and hal.b < 0.2
    assert hal.diff == pytest.approx(hal.a - hal.b)
    assert 0 < hal.ci_low < hal.diff < hal.ci_high
    assert _metrics(c)["hal_gen"].ci_low > 0 and _metrics(c)["jeq"].ci_high < 0  # more errors, fewer right
    # the same comparison the other way round mirrors it
    back = _metrics(compare_models(home, "careful", "sloppy", resamples=1000, seed=1))["hal_tp"]
    assert back.diff == pytest.approx(-hal.diff)
    assert back.ci_high < 0


def test_no_difference_has_an_interval_that_includes_zero(home):
    c = compare_models(home, "twin-a", "twin-b", resamples=1000, seed=1)
    for m in c.metrics:
        assert m.diff == pytest.approx(0, abs=1e-12)
        assert m.ci_low is not None and m.ci_low < 0 < m.ci_high, m  # a real spread around 0, not [0, 0]


def test_pairing_uses_only_the_cells_both_have(home):
    c = compare_models(home, "partial", "careful", resamples=200)
    assert (c.scope.paired_cells, c.scope.paired_contracts) == (25, 25)
    # careful's rates on the paired cells only: run 1 of k01..k25, not its 80 cells
    alone = compare_models(home, "careful", "sloppy", ScopeRequest(runs=(1,)), resamples=200)
    assert alone.scope.paired_cells == 40 and alone.scope.runs == [1]
    paired_fp = _metrics(c)["far"].b
    assert paired_fp is not None and paired_fp != _metrics(alone)["far"].a


def test_compare_json_table_and_markdown(home, capsys):
    args = ["--home", str(home.root), "compare", "sloppy", "careful", "--resamples", "300"]
    assert main([*args, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"a", "b", "scope", "metrics", "judge_validated"} and (out["a"], out["b"]) == ("sloppy",
                                                                                                     "careful")
    assert [m["metric"] for m in out["metrics"]] == ["hal_tp", "hal_gen", "far", "frr", "acc", "jeq", "rdi"]
    assert all(set(m) == {"metric", "a", "b", "diff", "ci_low", "ci_high"} for m in out["metrics"])
    assert out["scope"]["models"] == ["careful", "sloppy"] and out["scope"]["paired_cells"] == 80
    assert main(args) == 0
    table = capsys.readouterr().out
    assert "hal_tp" in table and "separated" in table and "yes" in table
    assert main([*args, "--format", "md"]) == 0
    assert "| metric | sloppy | careful |" in capsys.readouterr().out


def test_compare_errors_are_one_line(home, capsys):
    assert main(["--home", str(home.root), "compare", "careful", "careful"]) == 1
    assert "two different models" in capsys.readouterr().err
    assert main(["--home", str(home.root), "compare", "careful", "nobody"]) == 1
    assert "unknown model 'nobody'" in capsys.readouterr().err
    with pytest.raises(NothingToCompare):
        compare_models(home, "partial", "careful", ScopeRequest(runs=(2,)))
