"""ContractScrub's headline is over every category or it is null (docs/method.md section 15, docs/formats.md
section 1): a system that misses a call (a whole category, a contract, one call) is listed with its coverage,
without overall figures and without a rank, in every format, and `lhl compare` refuses it in one line; and every
export imports: the gold written as findings (`lhl scrub export --as-findings`) reads back as a complete system
scoring 1.0 wherever a figure exists, while the release file's gold tuples are refused as findings in one line."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from lhl_platform.home import Home
from lhl_platform.scrub.categories import CATEGORY_KEYS
from lhl_platform.scrub.imports import findings_line
from lhl_platform.scrub.store import load_set
from tests.test_scrub_suite import demo_home, lhl

MISSING = "undefined_capitalized_terms"


def gold_lines(tmp: Path, home: Home, model: str, run: int = 1) -> list[str]:
    path = tmp / f"{model}-{run}.jsonl"
    assert lhl(home, "scrub", "export", str(path), "--as-findings", model, "--run", str(run)) == 0
    return path.read_text(encoding="utf-8").splitlines()


def import_lines(tmp: Path, home: Home, name: str, lines: list[str]) -> None:
    path = tmp / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert lhl(home, "import", "findings", str(path)) == 0


def category_of(line: str) -> str:
    return str(json.loads(line)["category"])


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    """The demo set; the rule-based scrubber audited through Dagster; and, imported: the gold as findings
    (`gold`), the gold without every undefined-capitalised-terms call (`eight`: 8 of 9 categories), the gold
    without one call (`one-short`), and the gold with one category answered empty (`empty-one`: complete)."""
    tmp = tmp_path_factory.mktemp("coverage")
    home = demo_home(tmp / "home")
    assert lhl(home, "scrub", "build", "--contracts", "4", "--seed", "0") == 0
    assert lhl(home, "models", "add", "rules", "--provider", "offline", "--model-id", "scrub-rules") == 0
    assert lhl(home, "audit", "--suite", "contractscrub", "--models", "rules") == 0
    gold = gold_lines(tmp, home, "gold")
    import_lines(tmp, home, "gold", gold)
    import_lines(tmp, home, "eight", [line.replace('"gold"', '"eight"', 1) for line in gold
                                      if category_of(line) != MISSING])
    import_lines(tmp, home, "one-short", [line.replace('"gold"', '"one-short"', 1) for line in gold[1:]])
    empty = [json.dumps({**json.loads(line), "model": "empty-one", "findings": []}) if category_of(line) == MISSING
             else line.replace('"gold"', '"empty-one"', 1) for line in gold]
    import_lines(tmp, home, "empty-one", empty)
    return home


def report_json(home: Home, capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    capsys.readouterr()
    assert lhl(home, "report", "--suite", "contractscrub", "--format", "json", *args) == 0
    return json.loads(capsys.readouterr().out)


HEADLINE = ("recall", "precision", "f1", "recall_ci_low", "recall_ci_high", "terms_only_recall",
            "terms_only_precision", "terms_only_f1")


def test_eight_of_nine_categories_is_null_overall_unranked_and_incomplete(home: Home, capsys) -> None:
    report = report_json(home, capsys, "--runs", "1")
    board = {r["model"]: r for r in report["leaderboard"]}
    eight = board["eight"]
    assert all(eight[f] is None for f in HEADLINE), eight  # never the mean of the 8 it answered (1.0)
    assert (eight["rank"], eight["complete"], eight["missing_calls"]) == (None, False, 4)
    assert eight["missing_categories"] == [MISSING]
    coverage = {r["model"]: r for r in report["coverage"]}["eight"]
    assert (coverage["calls_asked"], coverage["calls_answered"], coverage["missing_calls"]) == (36, 32, 4)
    assert coverage["unanswered_categories"] == [MISSING] and not coverage["ranked"]
    # Its per-category figures for the categories it has remain: the gold as findings, 1.0 where gold exists.
    cats = {r["category"]: r for r in report["by_category"] if r["model"] == "eight"}
    answered = [c for c in CATEGORY_KEYS if c != MISSING and cats[c]["gold"]]
    assert answered and all((cats[c]["recall"], cats[c]["precision"], cats[c]["f1"]) == (1.0, 1.0, 1.0)
                            for c in answered)
    assert (cats[MISSING]["gold"], cats[MISSING]["recall"]) == (0, None)  # nothing answered: nothing measured
    assert {(r["contract_id"], r["category"]) for r in report["missing"] if r["model"] == "eight"} == {
        (i.contract_id, MISSING) for i in load_set(home).items}
    check = next(c for c in report["checks"] if c["name"] == "calls_complete")
    assert not check["passed"] and "eight run 1" in check["summary"]


def test_only_complete_systems_are_ranked_by_overall_recall(home: Home, capsys) -> None:
    board = report_json(home, capsys, "--runs", "1")["leaderboard"]
    ranked = [r for r in board if r["rank"] is not None]
    assert {r["model"] for r in ranked} == {"gold", "empty-one", "rules"} and all(r["complete"] for r in ranked)
    assert [r["model"] for r in board][:3] == [r["model"] for r in sorted(ranked, key=lambda r: r["rank"])]
    by = {r["model"]: r for r in board}
    assert (by["gold"]["rank"], by["gold"]["recall"]) == (1, 1.0)
    assert by["empty-one"]["recall"] < 1.0 and by["empty-one"]["missing_categories"] == []  # an empty list answers
    order = sorted(ranked, key=lambda r: -r["recall"])
    assert [r["rank"] for r in order] == [1, 2, 3]
    # One call short is incomplete too: no overall figure, no rank, its one missing call named.
    short = by["one-short"]
    assert all(short[f] is None for f in HEADLINE) and short["rank"] is None and short["missing_calls"] == 1
    assert short["missing_categories"] == [CATEGORY_KEYS[0]]
    assert [r["model"] for r in board][3:] == ["eight", "one-short"]  # the unranked after the ranked, by name


def md_row(text: str, section: str, model: str) -> dict[str, str]:
    """A model's cells in a Markdown section by column label, over the section's tables (a wide one is split)."""
    lines = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0].splitlines()
    found: dict[str, str] = {}
    for i, line in enumerate(lines[:-1]):
        if not (line.startswith("|") and lines[i + 1].startswith("|---")):
            continue
        header = [c.strip() for c in line.strip("|").split("|")]
        row = next(r for r in lines[i + 2:] if r.startswith(f"| {model} "))
        cells = [c.strip().replace("\\_", "_") for c in row.strip("|").split("|")]  # Markdown escapes underscores
        found |= dict(zip(header, cells, strict=True))
    return found


def test_every_format_lists_the_incomplete_system_without_a_headline(home: Home, capsys, tmp_path: Path) -> None:
    scope = ("--runs", "1", "--models", "eight,gold")
    capsys.readouterr()
    assert lhl(home, "report", "--suite", "contractscrub", "--format", "md", *scope) == 0
    md = capsys.readouterr().out
    eight, gold = md_row(md, "Leaderboard", "eight"), md_row(md, "Leaderboard", "gold")
    assert (eight["rank"], eight["complete"], eight["recall"], eight["F1"]) == ("–", "no", "–", "–")
    assert eight["model"] == "eight (incomplete)"  # listed after the ranked systems, marked
    board = md.split("## Leaderboard\n", 1)[1]
    assert board.index("| gold ") < board.index("| eight (incomplete) ")
    shown = MISSING.replace("_", " ")  # a reader sees the category's label, the JSON its name
    assert eight["categories with a missing call"] == shown and (gold["rank"], gold["recall"]) == ("1", "100.0%")
    assert md_row(md, "Coverage", "eight")["categories never answered"] == shown
    assert lhl(home, "report", "--suite", "contractscrub", "--format", "table", *scope) == 0
    table = capsys.readouterr().out
    board = table.split("Leaderboard\n", 1)[1].split("\nPer category\n", 1)[0]
    (line,) = [x for x in board.splitlines() if x.strip().startswith("eight ")]
    assert MISSING in line and "1.000" not in line  # no headline figure on its leaderboard row
    assert board.index("\ngold ") < board.index("\neight ")  # after the ranked system
    html = tmp_path / "r.html"
    assert lhl(home, "report", "--suite", "contractscrub", "--format", "html", "--out", str(html), *scope) == 0
    board = html.read_text().split('<table data-table="leaderboard">', 1)[1].split("</table>", 1)[0]
    (row,) = [r for r in board.split("<tr>") if 'data-metric="model" data-value="eight"' in r]
    assert 'data-metric="recall" data-value=""' in row and 'data-metric="rank" data-value=""' in row
    assert 'data-metric="complete" data-value="False"' in row
    url = f"sqlite:///{tmp_path / 'pub.db'}"
    assert lhl(home, "publish", url, "--suite", "contractscrub", *scope) == 0
    with sqlite3.connect(tmp_path / "pub.db") as con:
        published = con.execute("select rank, complete, recall, f1, missing_categories from "
                                "contractscrub_leaderboard where model = 'eight'").fetchall()
        covered = con.execute("select calls_answered, missing_calls from contractscrub_coverage where model = "
                              "'eight'").fetchall()
    assert published == [(None, 0, None, None, json.dumps([MISSING]))] and covered == [(32, 4)]


def test_compare_refuses_an_incomplete_system_in_one_line(home: Home, capsys) -> None:
    capsys.readouterr()
    assert lhl(home, "compare", "eight", "gold", "--suite", "contractscrub", "--runs", "1", "--resamples", "50") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "eight is incomplete" in err and f"4 missing call(s) in {MISSING}" in err
    assert lhl(home, "compare", "gold", "one-short", "--suite", "contractscrub", "--runs", "1",
               "--resamples", "50") == 1
    assert "one-short is incomplete" in capsys.readouterr().err
    assert lhl(home, "compare", "empty-one", "gold", "--suite", "contractscrub", "--runs", "1", "--format", "json",
               "--resamples", "50") == 0  # two complete systems are paired as before
    paired = json.loads(capsys.readouterr().out)
    recall = paired["metrics"][0]
    assert paired["units"] == 4 and recall["b"] == 1.0 and recall["diff"] < 0


def test_the_exported_gold_imports_as_a_complete_system_scoring_one(home: Home, capsys) -> None:
    report = report_json(home, capsys, "--runs", "1", "--models", "gold")
    (row,) = report["leaderboard"]
    assert (row["complete"], row["rank"], row["missing_calls"], row["missing_categories"]) == (True, 1, 0, [])
    assert all(row[f] == 1.0 for f in ("recall", "precision", "f1", "terms_only_recall", "terms_only_precision",
                                       "terms_only_f1"))
    for section in ("by_category", "terms_only"):
        rows = report[section]
        assert all((r["recall"], r["precision"], r["f1"]) == ((1.0,) * 3 if r["gold"] else (None,) * 3)
                   for r in rows), section
        assert any(r["gold"] for r in rows)
    assert report["by_distance"] and all(r["recall"] == 1.0 for r in report["by_distance"])
    assert all(c["passed"] for c in report["checks"]), report["checks"]


def test_the_release_files_gold_is_refused_as_findings_in_one_line(home: Home, tmp_path: Path, capsys) -> None:
    exported = tmp_path / "set.jsonl"
    assert lhl(home, "scrub", "export", str(exported)) == 0
    item = json.loads(exported.read_text().splitlines()[0])
    category = "incorrect_section_references"
    tuples = [g for g in item["gold"] if g["category"] == category]
    assert tuples and all("distance" in g and "edit" in g for g in tuples)
    path = tmp_path / "verbatim.jsonl"
    path.write_text(findings_line("verbatim", 1, item["contract_id"], category, []).replace(
        '"findings":[]', '"findings":' + json.dumps(tuples)) + "\n")
    before = len(home.events.read())
    capsys.readouterr()
    assert lhl(home, "import", "findings", str(path)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "verbatim.jsonl: line 1: field findings[0].edit: gold provenance" in err
    assert "lhl scrub export FILE --as-findings NAME" in err and len(home.events.read()) == before
    capsys.readouterr()
    assert lhl(home, "scrub", "export", str(tmp_path / "x.jsonl"), "--as-findings", "has space") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "model" in err and "pattern" in err and not (tmp_path / "x.jsonl").exists()


def section_one() -> str:
    text = (Path(__file__).parents[1] / "docs" / "formats.md").read_text(encoding="utf-8")
    return text.split("## 1. ContractScrub", 1)[1].split("\n## ", 1)[0]


def keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def test_every_field_of_the_exports_and_the_report_is_documented(home: Home, tmp_path: Path, capsys) -> None:
    doc = section_one()
    exported = tmp_path / "set.jsonl"
    assert lhl(home, "scrub", "export", str(exported)) == 0
    release = {k for line in exported.read_text().splitlines() for k in keys(json.loads(line))}
    findings = {k for line in gold_lines(tmp_path, home, "doc") for k in keys(json.loads(line))}
    report = report_json(home, capsys, "--runs", "1")
    sections = {k for name in ("leaderboard", "coverage", "by_category") for k in keys(report[name])}
    undocumented = sorted(k for k in release | findings | sections if not re.search(rf'"{k}"', doc))
    assert not undocumented, f"docs/formats.md section 1 does not name: {undocumented}"


def test_a_system_not_audited_in_every_run_keeps_its_figures_but_is_not_ranked(home: Home, tmp_path: Path,
                                                                                 capsys) -> None:
    # (last: a second run in the default scope unranks the systems audited once; the tests above name run 1)
    import_lines(tmp_path, home, "twice", [line.replace('"gold"', '"twice"', 1)
                                           for run in (1, 2) for line in gold_lines(tmp_path, home, "gold", run)])
    report = report_json(home, capsys)
    by = {r["model"]: r for r in report["leaderboard"]}
    assert (by["twice"]["rank"], by["twice"]["runs"], by["twice"]["recall"]) == (1, 2, 1.0)
    rules = by["rules"]
    assert rules["complete"] and rules["recall"] is not None and rules["rank"] is None  # run 1 of runs 1, 2
    coverage = {r["model"]: r for r in report["coverage"]}["rules"]
    assert (coverage["runs_asked"], coverage["runs_covered"], coverage["ranked"]) == ([1, 2], [1], False)
    in_run_1 = {r["model"]: r for r in report_json(home, capsys, "--runs", "1")["leaderboard"]}
    assert in_run_1["rules"]["rank"] is not None and in_run_1["rules"]["recall"] == rules["recall"]
