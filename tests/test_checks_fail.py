"""Every data-quality check can fail: each test builds the defect it exists to catch."""

import shutil

import pytest

from lhl_platform.clause.checks import every_tp_judged, labels_in_domain, no_duplicate_instances
from lhl_platform.clause.expectations import validate_instance_rows
from lhl_platform.clause.importer import import_outcomes
from lhl_platform.domain.models import Usage
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.judging.events import VerdictEvent, VerdictRecorded
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ScopeRequest
from orchestration.cli import main
from tests.helpers import outcome, write_outcomes


def _contract(model: str, contract: str, first: str = "TN") -> list[dict[str, object]]:
    return [outcome(model, 1, contract, clause, first if i == 0 else "TN") for i, clause in enumerate(CLAUSE_TYPES)]


def test_an_instance_imported_twice_fails_the_duplicate_check_and_the_expectation_suite(tmp_path):
    home = Home.resolve(tmp_path / "h").ensure()
    import_outcomes(home, write_outcomes(tmp_path / "a.csv", _contract("m", "c1")))
    # A second file that repeats one instance of the first (another file, so another stream).
    import_outcomes(home, write_outcomes(tmp_path / "b.csv", [outcome("m", 1, "c1", CLAUSE_TYPES[0], "TN"),
                                                              *_contract("m", "c2")]))
    with read_warehouse(home) as con:
        duplicates = no_duplicate_instances(con)
        suite = validate_instance_rows(con.execute("select * from instance_rows").df())
    assert not duplicates.passed and "m/run 1: c1 / Document Name x2" in duplicates.summary
    assert not suite.passed and "unique" in suite.summary


@pytest.fixture
def demo_copy(demo_home, tmp_path) -> Home:
    home = Home.resolve(tmp_path / "demo")
    shutil.copytree(demo_home, home.root)
    return home


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
def test_a_label_outside_the_vocabulary_fails_labels_in_domain(demo_copy):
    home = demo_copy
    # A verdict written by an older or foreign writer: constructed without validation, so its label is bad.
    stream = "judge.model=lexical.run=1"
    with home.events.writer(stream) as writer:
        writer.append(VerdictEvent.RECORDED, "x", "foreign-verdict", VerdictRecorded.model_construct(
            model="lexical", run=1, contract_id=_a_tp(home), clause_type="Parties", verdict="maybe",
            mismatch_type="vibes", reason="", judge="rubric", judge_model_id="rubric", prompt_version="x",
            request_key="k", usage=Usage(), latency_s=0.0,
            params={}))
    with read_warehouse(home) as con:
        result = labels_in_domain(con)
    assert not result.passed and "maybe" in result.summary


def _a_tp(home: Home) -> str:
    with read_warehouse(home) as con:
        row = con.execute("""select contract_id from instance_outcomes
                             where model = 'lexical' and run = 1 and clause_type = 'Parties' and outcome = 'TP'
                             limit 1""").fetchone()
    assert row is not None
    return str(row[0])


def test_true_positives_the_reports_judge_never_labelled_fail_every_tp_judged(demo_copy):
    # The demo was judged by `rubric` only: a report in the scope of another judge has no verdicts.
    assert main(["--home", str(demo_copy.root), "models", "add", "surface", "--provider", "offline", "--model-id",
                 "overlap", "--role", "judge"]) == 0
    with read_warehouse(demo_copy, ScopeRequest(judge="surface")) as con:
        result = every_tp_judged(con)
    assert not result.passed
    assert "judge surface" in result.summary and "lexical/run 1:" in result.summary
