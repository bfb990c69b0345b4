"""The demo's report is a regression fixture: a refactor that moves any number fails here.

When a change is meant to move numbers (a new judge algorithm, a new prompt, a new simulated profile),
regenerate `tests/golden/demo_report.json` in the same commit and say why in its message:
`lhl demo` in a fresh home, then `lhl report --format json --resamples 500`, keeping the sections below.
"""

import json
from pathlib import Path

from orchestration.cli import main

GOLDEN = Path(__file__).parent / "golden" / "demo_report.json"
SECTIONS = ("scope", "leaderboard", "per_run", "typed_profiles", "gaps", "composite", "usage", "rdi", "debate_effects")


def test_the_demo_report_prints_the_same_numbers(demo_home, capsys):
    capsys.readouterr()
    assert main(["--home", str(demo_home), "report", "--format", "json", "--resamples", "500"]) == 0
    report = json.loads(capsys.readouterr().out)
    now = {k: report[k] for k in SECTIONS}
    now["scope"].pop("corpus_id")  # a content hash of the corpus files, checked elsewhere
    golden = json.loads(GOLDEN.read_text())
    for section in SECTIONS:
        assert now[section] == golden[section], section
