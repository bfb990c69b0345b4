"""Coverage a user can reason about (issue 22), as a user meets it: command sequences on the demo corpus or on a
small import, asserting what each command says and computes.

1. an unknown judge, model or subset is an error naming it in every command; a judge without verdicts gives null
   figures, which compare refuses and publish publishes with the failing check;
2. a partial system (a subset debate) never shrinks the others' matched cells;
3. one coverage statement per system, read by the header, the leaderboard and the checks;
4. a subset report says "N of M subset contracts";
5. a debate counts only instances with a baseline, and says how many lack one before it starts;
6. re-judging calls only the judge unless --extract-missing;
7. imports cover every contract of the import, so persistent gaps appear;
8. the smaller points (--contracts capped, subset list, import messages, the first ETA, pinned versions).
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from orchestration.cli import main
from tests.helpers import outcome, write_outcomes

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, home, *argv):
    """Run one `lhl` command; returns (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = main(["--home", str(home), *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def report_json(capsys, home, *argv):
    code, out, err = run(capsys, home, "report", "--format", "json", "--resamples", "50", *argv)
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def demo_copy(demo_home, tmp_path):
    home = tmp_path / "demo"
    shutil.copytree(demo_home, home)
    return home


@pytest.fixture(scope="module")
def lex6_home(demo_home, tmp_path_factory):
    """The demo plus lex6 (the lexical model) audited on 6 of its 12 contracts in run 1: built once, copied by
    the tests that start from it (`lex6_copy`)."""
    home = tmp_path_factory.mktemp("lex6") / "demo"
    shutil.copytree(demo_home, home)
    assert main(["--home", str(home), "models", "add", "lex6", "--provider", "offline", "--model-id", "lexical"]) == 0
    assert main(["--home", str(home), "audit", "--models", "lex6", "--runs", "1", "--contracts", "6"]) == 0
    return home


@pytest.fixture
def lex6_copy(lex6_home, tmp_path):
    home = tmp_path / "demo"
    shutil.copytree(lex6_home, home)
    return home


# 1. Names and judges ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, named", [
    (["report", "--judge", "gpt-judge"], "'gpt-judge'"),
    (["report", "--models", "lexcal"], "'lexcal'"),
    (["report", "--subset", "s120"], "'s120'"),
    (["compare", "lexical", "sim-omitter", "--judge", "nope"], "'nope'"),
    (["compare", "lexcal", "lexical"], "'lexcal'"),
    (["publish", "sqlite:///unused.db", "--judge", "nope"], "'nope'"),
    (["judge", "agree", "rubric", "nope"], "'nope'"),
    (["judge", "primary", "nope"], "'nope'"),
    (["judge", "validate", "--judge", "nope"], "'nope'"),
    (["audit", "--models", "lexical", "--judge", "nope", "--dry-run"], "'nope'"),
    (["audit", "--models", "lexcal", "--dry-run"], "'lexcal'"),
    (["debate", "--backbone", "sim-inventor", "--subset", "demo-debate", "--judge", "nope", "--dry-run"], "'nope'"),
    (["debate", "--backbone", "sim-inventor", "--subset", "s8", "--dry-run"], "'s8'"),
])
def test_an_unknown_name_is_a_one_line_error_naming_it(demo_home, capsys, tmp_path, argv, named):
    argv = [a.replace("unused.db", str(tmp_path / "unused.db")) for a in argv]
    code, out, err = run(capsys, demo_home, *argv)
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and err.startswith("lhl: ") and named in err, err
    assert "CliError" not in err and "Traceback" not in err
    if "judge" in " ".join(argv) and named == "'nope'":
        assert "rubric" in err  # the judges it could have meant, the built-in one included
    assert not (tmp_path / "unused.db").exists()


def test_a_judge_without_verdicts_gives_null_figures_that_compare_refuses_and_publish_flags(demo_copy, capsys,
                                                                                            tmp_path):
    assert run(capsys, demo_copy, "models", "add", "surface", "--provider", "offline", "--model-id", "overlap",
               "--role", "judge")[0] == 0
    report = report_json(capsys, demo_copy, "--judge", "surface")
    for row in report["leaderboard"]:
        assert (row["hal_tp"], row["hal_gen"], row["jeq"], row["rdi"]) == (None, None, None, None), row["model"]
        assert row["far"] is not None and row["tp"] > 0  # detection was measured; content was not
    assert all(r["value"] is None for r in report["statistics"]["rate_intervals"]
               if r["metric"] in ("hal_tp", "hal_gen", "jeq") and r["denominator"] > 0)

    code, out, err = run(capsys, demo_copy, "compare", "lexical", "sim-omitter", "--judge", "surface")
    assert code == 1 and out == "" and "labelled none of the true positives" in err

    url = f"sqlite:///{tmp_path / 'pub.db'}"
    code, out, err = run(capsys, demo_copy, "publish", url, "--judge", "surface", "--resamples", "50", "--strict")
    assert code == 1 and "not published (--strict)" in err and "every_tp_judged" in err
    assert not (tmp_path / "pub.db").exists()
    code, out, err = run(capsys, demo_copy, "publish", url, "--judge", "surface", "--resamples", "50")
    assert code == 0 and out.startswith("published scope") and "warning" in err and "every_tp_judged" in err
    with create_engine(url).connect() as con:
        checks = dict(con.execute(text("select name, passed from publication_checks")).all())
        hal_tp = con.execute(text("select hal_tp from leaderboard")).scalars().all()
    assert checks["every_tp_judged"] in (0, False) and checks["labels_in_domain"] in (1, True)
    assert hal_tp and all(v is None for v in hal_tp)


# 2.-5. A partial debate, one coverage statement, a subset's share, baselines first --------------------------------


def test_a_subset_debate_never_empties_the_default_report(demo_copy, capsys, tmp_path):
    assert run(capsys, demo_copy, "subset", "create", "s4", "--size", "4", "--seed", "3")[0] == 0
    code, out, err = run(capsys, demo_copy, "debate", "--backbone", "sim-omitter", "--runs", "1", "--subset", "s4")
    assert code == 0, err
    report = report_json(capsys, demo_copy)
    assert report["scope"]["matched_contracts"] == 12
    ranked = {c["model"] for c in report["composite"] if c["rank"] is not None}
    assert ranked == {"lexical", "sim-balanced", "sim-inventor", "sim-inventor+debate", "sim-omitter"}
    coverage = {c["model"]: c for c in report["coverage"]}
    partial = coverage["sim-omitter+debate"]
    assert (partial["ranked"], partial["contracts_covered"], partial["runs_covered"], partial["own_subset"]) == (
        False, 4, [1], "s4")
    assert all(coverage[m]["ranked"] for m in ranked)
    assert len(report["statistics"]["rank_stability"]) == 5 * len(ranked)

    code, text_report, _ = run(capsys, demo_copy, "report", "--resamples", "50")
    assert "matched:   12 contracts x runs 1, 2; cross-model figures rank the 5 of 6 systems" in text_report
    assert "its own scope: `lhl report --subset s4 --runs 1`" in text_report
    html = tmp_path / "r.html"
    assert run(capsys, demo_copy, "report", "--format", "html", "--out", str(html), "--resamples", "50")[0] == 0
    page = html.read_text()
    assert len(re.findall(r'data-metric="rank:equal" data-value="\d+"', page)) == 5
    assert 'data-table="coverage"' in page and "sim-omitter+debate (partial, not ranked)" in page

    url = f"sqlite:///{tmp_path / 'pub.db'}"
    assert run(capsys, demo_copy, "publish", url, "--resamples", "50")[0] == 0
    with create_engine(url).connect() as con:
        assert con.execute(text("select count(*) from composite_ranks")).scalar_one() == 25
        assert con.execute(text("select passed from publication_checks where name = 'comparable_scope'")
                           ).scalar_one() in (0, False)
        assert con.execute(text("select ranked from scope_coverage where model = 'sim-omitter+debate'")
                           ).scalar_one() in (0, False)

    # in the scope it covers, it is ranked beside the others
    narrow = report_json(capsys, demo_copy, "--subset", "s4", "--runs", "1")
    assert {c["model"] for c in narrow["coverage"] if c["ranked"]} == set(coverage)
    assert len({c["model"] for c in narrow["composite"] if c["rank"] is not None}) == 6


def test_a_partly_audited_subset_tells_one_story(lex6_copy, capsys):
    """lex6 is audited on 6 of the 12 contracts in run 1; subset s4 holds 2 of those 6 (seed 3). Its debate, the
    subset report, the leaderboard and the checks all say the same: 2 of 4 contracts, nothing missing."""
    demo_copy = lex6_copy
    assert run(capsys, demo_copy, "subset", "create", "s4", "--size", "4", "--seed", "3")[0] == 0

    code, dry, _ = run(capsys, demo_copy, "debate", "--backbone", "lex6", "--runs", "1", "--subset", "s4",
                       "--dry-run")
    assert code == 0
    assert ("run 1: 82 of the 164 instances of subset s4 have a baseline of lex6 and are debated; 82 lack one "
            "(2 of 4 contracts without any)") in dry
    assert "`lhl audit --models lex6 --runs 1 --subset s4` extracts them first" in dry
    row = next(line.split() for line in dry.splitlines() if line.startswith("  1 "))
    assert row[1:3] == ["82", "82"]  # instances debated, instances without a baseline
    code, out, _ = run(capsys, demo_copy, "debate", "--backbone", "lex6", "--runs", "1", "--subset", "s4")
    assert code == 0 and out.index("82 lack one") < out.index("Debate effects")  # said before, not after

    report = report_json(capsys, demo_copy, "--subset", "s4", "--runs", "1")
    coverage = {c["model"]: c for c in report["coverage"]}
    board = {r["model"]: r for r in report["leaderboard"]}
    debate = coverage["lex6+debate"]
    assert (debate["contracts_asked"], debate["contracts_covered"], debate["missing_rows"]) == (4, 2, 0)
    for model, c in coverage.items():  # the leaderboard and the coverage statement agree, row for row
        assert (board[model]["contracts"], board[model]["n"]) == (c["contracts_covered"], c["returned_rows"]), model
    code, table, _ = run(capsys, demo_copy, "report", "--subset", "s4", "--runs", "1", "--resamples", "50")
    assert "contracts: 4 of 4 subset s4 contracts covered" in table
    assert "lex6+debate: 2 of 4 subset s4 contracts; run 1; partial, not ranked" in table
    assert "[PASS] rows_complete: all" in table
    checks = [line for line in table.splitlines() if line.startswith("[FAIL] comparable_scope")]
    assert checks and "lex6+debate: 2 of 4 subset s4 contracts" in checks[0]


def test_a_subset_report_says_how_much_of_the_subset_is_covered(lex6_copy, capsys):
    demo_copy = lex6_copy  # lex6 audited on 6 of the 12 contracts in run 1
    code, table, _ = run(capsys, demo_copy, "report", "--models", "lex6", "--subset", "demo-debate", "--resamples",
                         "50")
    assert code == 0
    assert "contracts: 6 of 12 subset demo-debate contracts covered" in table
    assert "[PASS] rows_complete: all 246 instances present in the 6 covered of 12 subset contracts" in table
    assert "[FAIL] comparable_scope" in table and "6 of the 12 subset contracts are covered by no system" in table


# 6. Re-judging --------------------------------------------------------------------------------------------------


def test_re_judging_calls_only_the_judge_unless_asked_to_extract(lex6_copy, capsys):
    home = lex6_copy  # lex6 audited on 6 of the 12 contracts in run 1
    assert run(capsys, home, "models", "add", "surface", "--provider", "offline", "--model-id", "overlap",
               "--role", "judge")[0] == 0
    code, dry, _ = run(capsys, home, "audit", "--models", "lex6", "--runs", "1", "--judge", "surface", "--dry-run")
    assert code == 0 and "re-judging its recorded extractions, no extraction call" in dry
    assert "6 selected contracts are not extracted: --extract-missing would extract them (6 calls" in dry
    assert "total: 0 extraction calls" in dry
    code, out, _ = run(capsys, home, "audit", "--models", "lex6", "--runs", "1", "--judge", "surface")
    assert code == 0 and "re-judging its 6 recorded contracts, no extraction call" in out
    usage = {(u["model"], u["run"]): u for u in report_json(capsys, home, "--judge", "surface")["usage"]}
    assert usage[("lex6", 1)]["extraction_calls"] == 6 and usage[("lex6", 1)]["judge_calls"] > 0
    lex6 = next(c for c in report_json(capsys, home, "--models", "lex6")["coverage"])
    assert lex6["contracts_covered"] == 6
    code, dry, _ = run(capsys, home, "audit", "--models", "lex6", "--runs", "1", "--judge", "surface",
                       "--extract-missing", "--dry-run")
    assert code == 0 and "re-judging" not in dry and "total: 6 extraction calls" in dry


# 7. Imports -----------------------------------------------------------------------------------------------------


def _import_rows(skip):
    """30 contracts x 2 runs of models a and b, one TP per contract; `skip(model, run, i, clause)` drops a row."""
    rows = []
    for model in ("a", "b"):
        for run_ in (1, 2):
            for i in range(1, 31):
                for j, clause in enumerate(CLAUSE_TYPES):
                    if not skip(model, run_, i, j):
                        kind = "TP" if j == 0 else "TN"
                        rows.append(outcome(model, run_, f"C{i}", clause, kind,
                                            *(("supported", "none") if kind == "TP" else ())))
    return rows


def test_an_import_shows_persistent_gaps(tmp_path, capsys):
    """a lacks 5 single rows in run 1; b lacks contract C7 in both runs and C3 in run 2."""
    def skip(model, run_, i, j):
        if model == "a":
            return run_ == 1 and i <= 5 and j == 1
        return i == 7 or (i == 3 and run_ == 2)

    home = tmp_path / "h"
    code, out, err = run(capsys, home, "import", "outcomes", str(write_outcomes(tmp_path / "o.csv",
                                                                               _import_rows(skip))))
    assert code == 0, err
    report = report_json(capsys, home)
    assert {(r["model"], r["run"]): r["missing_rows"] for r in report["per_run"]} == {
        ("a", 1): 5, ("a", 2): 0, ("b", 1): 41, ("b", 2): 82}
    summary = {m["model"]: m for m in report["statistics"]["missing_summary"]}
    assert summary["b"]["contracts_persistent"] == 1 and summary["b"]["persistent_fraction"] == pytest.approx(0.5)
    assert summary["a"]["persistent_fraction"] == 0.0
    persistent = [m for m in report["statistics"]["missing_by_contract"] if m["persistent"]]
    assert [(m["model"], m["contract_id"]) for m in persistent] == [("b", "C7")]
    assert all(c["contracts_covered"] == 30 and c["ranked"] for c in report["coverage"])


def test_an_import_covers_the_subset_named_at_import(tmp_path, capsys):
    home = tmp_path / "h"
    first = write_outcomes(tmp_path / "first.csv", _import_rows(lambda m, r, i, j: m == "b" or r == 2 or i > 10))
    assert run(capsys, home, "import", "outcomes", str(first))[0] == 0
    listed = tmp_path / "ids.txt"
    listed.write_text("\n".join(f"C{i}" for i in range(1, 13)) + "\n")
    assert run(capsys, home, "subset", "create", "s12", "--contracts", str(listed))[0] == 0
    rows = _import_rows(lambda m, r, i, j: m == "a" or r == 2 or i > 10)  # b: C1-C10 only, of the 12 named
    code, out, err = run(capsys, home, "import", "outcomes", str(write_outcomes(tmp_path / "b.csv", rows)),
                         "--subset", "s12")
    assert code == 0 and "covers subset s12" in out, err
    coverage = {c["model"]: c for c in report_json(capsys, home, "--models", "b")["coverage"]}
    assert (coverage["b"]["contracts_covered"], coverage["b"]["missing_rows"]) == (12, 2 * 41)
    outside = write_outcomes(tmp_path / "outside.csv", [outcome("c", 1, "C20", CLAUSE_TYPES[0], "TN")])
    code, _, err = run(capsys, home, "import", "outcomes", str(outside), "--subset", "s12")
    assert code == 1 and "row 1: contract_id 'C20' is not in subset 's12'" in err


def test_import_errors_name_the_row_without_pydantic_prefixes(tmp_path, capsys):
    good = write_outcomes(tmp_path / "o.csv", [outcome("a", 1, "C1", CLAUSE_TYPES[0], "TN"),
                                               outcome("a", 1, "C2", CLAUSE_TYPES[0], "TN")])
    bad = tmp_path / "bad.csv"
    bad.write_text(good.read_text().replace(CLAUSE_TYPES[0], "Nonsense Clause", 1))
    code, _, err = run(capsys, tmp_path / "h", "import", "outcomes", str(bad))
    assert code == 1 and "row 1: clause_type: unknown clause type 'Nonsense Clause'" in err
    assert "Value error" not in err
    cut = tmp_path / "cut.csv"
    cut.write_bytes(good.read_bytes()[:-12])
    code, _, err = run(capsys, tmp_path / "h", "import", "outcomes", str(cut))
    assert code == 1 and "row 2: expected 8 columns, got" in err and "cut short" in err


# 8. The smaller points ------------------------------------------------------------------------------------------


def test_contracts_beyond_the_corpus_are_refused_and_subsets_listed(demo_home, capsys):
    code, out, err = run(capsys, demo_home, "audit", "--models", "lexical", "--contracts", "9999", "--dry-run")
    assert code == 1 and "--contracts 9999 is more than the 12 contracts" in err
    code, out, _ = run(capsys, demo_home, "subset", "list")
    assert code == 0 and re.search(r"^demo-debate\s+12 contracts\s+\(seed 0\)$", out, re.MULTILINE)


def test_the_first_eta_comes_from_the_measured_rate(monkeypatch):
    import io

    from lhl_platform import progress
    from lhl_platform.progress import ProgressBar, Tick

    now = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    bar = ProgressBar("x", out=io.StringIO(), quiet_s=0)
    now[0] = 102.5  # setup took 2.5 s before the first unit finished
    assert bar.line(Tick(1, 41, 1, 10, 10, 0, 0)).endswith("ETA ...")
    now[0] = 102.6  # then units take 0.05 s each: 38 left take 1.9 s, not the 100 s counting setup gave
    assert bar.line(Tick(3, 41, 3, 30, 30, 0, 0)).endswith("ETA 2s")


def test_every_direct_dependency_is_pinned_exactly():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values()
                                                for r in extra)]
    loose = [r for r in requirements if not re.fullmatch(r"[A-Za-z0-9_.\-]+(\[[a-z,]+\])?==[0-9][0-9A-Za-z.]*", r)]
    assert loose == []
    versions = {}
    for r in requirements:
        name, version = re.sub(r"\[.*\]", "", r).split("==")
        assert versions.setdefault(name, version) == version, f"{name} pinned twice to different versions"
    assert versions["dagster"] == versions["dagster-webserver"]
    assert versions["dagster-postgres"] == "0." + str(int(versions["dagster"].split(".")[1]) + 16) + "." + \
        versions["dagster"].split(".")[2]  # dagster 1.X.Y ships with its libraries 0.(X+16).Y
