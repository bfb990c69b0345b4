"""docs/examples/: a small valid file for every command that takes one, each against data the repository ships (the
demo corpus's contract ids, the demo's ContractScrub set, the shipped InsufficiencyBench set), each imported here
into a fresh home as the README says, and each named by the README where its command is described."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.scrub.suite import DEMO_CONTRACTS, DEMO_SEED
from orchestration.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
README = (ROOT / "README.md").read_text(encoding="utf-8")
INDEX = (EXAMPLES / "README.md").read_text(encoding="utf-8")
FILES = sorted(p.name for p in EXAMPLES.iterdir() if p.name != "README.md")


def run(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def example(name: str) -> str:
    return str(EXAMPLES / name)


def test_the_examples_are_these_files():
    assert FILES == ["contracts.txt", "contractscrub_items.jsonl", "findings.jsonl", "judgments.jsonl",
                     "outcomes.csv", "pairs.jsonl", "responses.jsonl"]


@pytest.mark.parametrize("name", FILES)
def test_every_example_is_named_by_the_readme_and_the_examples_index(name):
    assert f"docs/examples/{name}" in README
    assert f"`{name}`" in INDEX


def test_the_outcomes_example_imports_its_82_rows_into_a_fresh_home(tmp_path, capsys):
    code, out, err = run(capsys, tmp_path, "import", "outcomes", example("outcomes.csv"))
    assert (code, err) == (0, "")
    assert "imported 82 rows (82 new, 0 already recorded)" in out
    code, out, _ = run(capsys, tmp_path, "report", "--format", "json", "--resamples", "50")
    (row,) = json.loads(out)["leaderboard"]
    # two demo contracts x 41 clause types: two misses, two fabrications, three contradicted true positives
    assert {k: row[k] for k in ("model", "n", "tp", "fp", "fn", "tn", "contradicted", "missing_rows")} == {
        "model": "vendor-x", "n": 82, "tp": 30, "fp": 2, "fn": 2, "tn": 48, "contradicted": 3, "missing_rows": 0}


def test_the_outcomes_and_the_contract_list_belong_to_the_demo_corpus(tmp_path, capsys):
    assert run(capsys, tmp_path, "ingest", "cuad", str(DEMO_DIR))[0] == 0
    code, out, err = run(capsys, tmp_path, "subset", "create", "demo-pair", "--contracts", example("contracts.txt"))
    assert (code, err) == (0, "") and "subset demo-pair: 2 contracts" in out
    code, out, err = run(capsys, tmp_path, "import", "outcomes", example("outcomes.csv"), "--contracts",
                         example("contracts.txt"))
    # every id is one of the demo corpus's, and every gt_present is its oracle's (no warning)
    assert (code, err) == (0, "")
    assert "imported 82 rows (82 new" in out and "covers the 2 contracts of" in out


def test_the_pairs_example_is_judged_line_by_line_by_the_offline_judge(tmp_path, capsys):
    code, out, err = run(capsys, tmp_path, "judge", "--pairs", example("pairs.jsonl"))
    assert (code, err) == (0, "")
    verdicts = [json.loads(line) for line in out.splitlines()]
    assert [(v["id"], v["verdict"], v["mismatch_type"]) for v in verdicts] == [
        ("tfc-reworded", "supported", "none"), ("cap-period", "contradicted", "temporal"),
        ("law-carve-out", "contradicted", "missing_condition")]


def test_the_findings_example_answers_every_call_of_the_example_scrub_set(tmp_path, capsys):
    code, out, err = run(capsys, tmp_path, "ingest", "contractscrub", example("contractscrub_items.jsonl"))
    assert (code, err) == (0, "") and "4 contracts" in out and "4 new items recorded" in out
    code, out, err = run(capsys, tmp_path, "import", "findings", example("findings.jsonl"))
    assert (code, err) == (0, "")
    assert "imported 36 calls of 1 (model, run) pair(s)" in out and "0 of 36 expected calls are absent" in out


def test_the_example_scrub_set_is_the_one_the_demo_builds(tmp_path, capsys):
    """So the findings example imports as well after `lhl demo` (whose active set this is)."""
    assert run(capsys, tmp_path, "ingest", "cuad", str(DEMO_DIR))[0] == 0
    assert run(capsys, tmp_path, "scrub", "build", "--contracts", str(DEMO_CONTRACTS), "--seed", str(DEMO_SEED))[0] == 0
    exported = tmp_path / "set.jsonl"
    assert run(capsys, tmp_path, "scrub", "export", str(exported))[0] == 0
    assert exported.read_bytes() == (EXAMPLES / "contractscrub_items.jsonl").read_bytes()


def test_the_responses_example_imports_4_responses_into_the_shipped_set(tmp_path, capsys):
    code, out, err = run(capsys, tmp_path, "import", "responses", example("responses.jsonl"))
    assert (code, err) == (0, "")
    assert "imported 4 responses into" in out and "insufficiency-self-built" in out and "nothing new" not in out


def test_the_judgments_example_imports_4_judgments_into_the_shipped_set(tmp_path, capsys):
    code, out, err = run(capsys, tmp_path, "import", "judgments", example("judgments.jsonl"))
    assert (code, err) == (0, "")
    assert "imported 4 judgments of vendor-judge into" in out and "nothing new" not in out
