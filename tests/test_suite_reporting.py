"""Every suite reports through its declared reporting (`lhl_platform.suites.reporting`): the clause suite its own,
the suites with a scope of their own the shared report of their sections, LexFlip none (refused in one line naming
where its results are); an option a suite does not take is refused in one line naming the suite and the option;
and no command forks on the suite."""

import re
from pathlib import Path

import pytest

import lhl_platform.catalog  # noqa: F401  (the application's suites registered)
from lhl_platform.clause.reporting import REPORTING as CLAUSE_REPORTING
from lhl_platform.insufficiency.verdict import VERDICT_RULE as INSUFFICIENCY_RULE
from lhl_platform.report.reporting import SectionReporting, reporting_of, scoped
from lhl_platform.scrub.verdict import VERDICT_RULE as SCRUB_RULE
from lhl_platform.suites import get_suite, suites
from lhl_platform.suites.reporting import Asked
from lhl_platform.warehouse.scope import ScopeRequest
from orchestration.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_each_suite_has_its_reporting_from_the_contract() -> None:
    assert reporting_of(get_suite("clause")) is CLAUSE_REPORTING
    for name, rule in (("contractscrub", SCRUB_RULE), ("insufficiency", INSUFFICIENCY_RULE)):
        reporting = reporting_of(get_suite(name))  # the shared report of its sections, its verdict by its own rule
        assert isinstance(reporting, SectionReporting) and reporting.verdict is rule
    with pytest.raises(LookupError, match="`judge_validation` section of `lhl report`"):
        reporting_of(get_suite("lexflip"))


def test_one_asked_scope_makes_each_suites_own_request() -> None:
    asked = Asked(runs=(1, 2), models=("a",), judge="rubric", subset="pair")
    _, request = scoped(get_suite("clause"), asked)
    assert request == ScopeRequest(subset="pair", runs=(1, 2), models=("a",), judge="rubric")
    _, request = scoped(get_suite("contractscrub"), Asked(runs=(1,), item_set="s", gold_version=2))
    assert request == ScopeRequest(suite="contractscrub", item_set="s", runs=(1,), gold_version=2)


@pytest.mark.parametrize(("suite", "asked", "flag", "instead"), [
    ("clause", Asked(item_set="x"), "--item-set", "--corpus, --subset"),
    ("clause", Asked(gold_version=2), "--gold-version", None),
    ("contractscrub", Asked(corpus="demo"), "--corpus", "--item-set"),
    ("insufficiency", Asked(subset="pair"), "--subset", "--item-set"),
    ("insufficiency", Asked(scheme="equal"), "--scheme", None),
    ("contractscrub", Asked(cluster=True), "--bootstrap contract", None),
])
def test_an_option_a_suite_does_not_take_is_refused_naming_both(suite: str, asked: Asked, flag: str,
                                                                 instead: str | None) -> None:
    with pytest.raises(ValueError) as refused:
        scoped(get_suite(suite), asked)
    message = str(refused.value)
    assert message.startswith(f"suite {suite} does not take {flag}: ") and "\n" not in message
    assert (f"takes {instead}" in message) if instead else "takes" not in message.split(":", 1)[1]


def test_the_command_line_refuses_in_one_line_before_building_anything(tmp_path: Path, capsys) -> None:
    home = str(tmp_path / "home")
    assert main(["--home", home, "models", "add", "m", "--provider", "offline", "--model-id", "lexical"]) == 0
    for argv, expected in (
            (["report", "--item-set", "x"], "suite clause does not take --item-set"),
            (["compare", "a", "b", "--suite", "contractscrub", "--corpus", "c"],
             "suite contractscrub does not take --corpus"),
            (["report", "--suite", "insufficiency", "--scheme", "equal"], "suite insufficiency does not take --scheme"),
            (["publish", "sqlite://", "--gold-version", "2"], "suite clause does not take --gold-version"),
            (["judge", "agree", "a", "b", "--subset", "s", "--suite", "insufficiency"],
             "suite insufficiency does not take --subset"),
            (["compare", "a", "b", "--suite", "lexflip"], "suite lexflip has no report of its own"),
            (["report", "--suite", "contractscrub", "--schema"], "suite contractscrub does not take --schema")):
        capsys.readouterr()
        code = main(["--home", home, *argv])
        err = capsys.readouterr().err
        assert code == 1 and err.count("\n") == 1 and expected in err, (argv, err)
    assert not (tmp_path / "home" / "warehouse").exists()  # refused before any build


def test_the_rows_schema_is_a_capability_of_the_suites_reporting() -> None:
    clause = get_suite("clause")
    schema = reporting_of(clause).rows_schema(clause)
    assert schema["title"] == "lhl result rows" and schema["$defs"] and schema["properties"]
    for name in ("contractscrub", "insufficiency"):
        suite = get_suite(name)
        with pytest.raises(ValueError) as refused:
            reporting_of(suite).rows_schema(suite)
        message = str(refused.value)
        assert message.startswith(f"suite {name} does not take --schema: ") and "\n" not in message


def test_every_registered_suite_either_reports_or_says_where_its_results_are() -> None:
    for suite in suites():
        try:
            reporting = reporting_of(suite)
        except LookupError as elsewhere:
            assert f"suite {suite.name}" in str(elsewhere)
            continue
        assert reporting.options <= {"corpus", "subset", "item_set", "gold_version", "scheme", "cluster", "rows_schema"}


def test_no_command_forks_on_the_suite() -> None:
    forks = [f"{path.relative_to(ROOT)}:{n}" for folder in ("orchestration", "lhl_platform")
             for path in sorted((ROOT / folder).rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if re.search(r"\bsuite is (not )?None\b", line)]
    assert forks == []
