"""A suite's declaration loads nothing heavy (issue #27): its stages name their functions and config classes as
references ("package.module:name", `lhl_platform.suites.refs`), imported when first read, and the event payload
modules the warehouse stages import no builder or scorer. Each check runs in a fresh interpreter and reads what it
loaded (sys.modules), never a timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What each suite's stages (and only they) need: loaded when a stage runs, never by looking the suite up.
STAGE_CODE = {
    "clause": ("lhl_platform.clause.stages", "lhl_platform.clause.audit", "lhl_platform.clause.debate_stages",
               "lhl_platform.clause.extraction.engine", "lhl_platform.clause.debate.engine"),
    "lexflip": ("lhl_platform.lexflip.stages", "lhl_platform.lexflip.validate"),
    "insufficiency": ("lhl_platform.insufficiency.stages",),
    "contractscrub": ("lhl_platform.scrub.stages",),
}
# A payload module's imports stop short of these: the builder, verifier and scorer of ContractScrub.
NOT_FOR_PAYLOADS = ("lhl_platform.scrub.build", "lhl_platform.scrub.verify", "lhl_platform.scrub.scoring",
                    "lhl_platform.scrub.inject", "lhl_platform.scrub.document")

# Declares every suite, looks one up, then reads one stage's references; prints what was loaded at each step.
PROBE = """
import json, sys
import lhl_platform.catalog
declared = sorted(sys.modules)
from lhl_platform.suites import get_suite
suite = get_suite(sys.argv[1])
looked_up = sorted(sys.modules)
stage = suite.stages[-1 if sys.argv[1] == "clause" else 0]
kinds = [callable(stage.run), stage.config.__name__]
print(json.dumps({"declared": declared, "looked_up": looked_up, "resolved": sorted(sys.modules), "kinds": kinds,
                  "stage": stage.name}))
"""


def _probe(suite: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", PROBE, suite], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def clause_probe() -> dict[str, Any]:
    return _probe("clause")


def test_declaring_the_suites_imports_no_stage_code_nor_the_scrub_builder_or_scorer(
        clause_probe: dict[str, Any]) -> None:
    declared = set(clause_probe["declared"])
    assert {m for code in STAGE_CODE.values() for m in code} & declared == set()
    assert set(NOT_FOR_PAYLOADS) & declared == set()


@pytest.mark.parametrize("suite", ["clause", "contractscrub", "insufficiency", "lexflip"])
def test_looking_a_suite_up_imports_none_of_its_stages_until_one_is_read(suite: str,
                                                                          clause_probe: dict[str, Any]) -> None:
    probe = clause_probe if suite == "clause" else _probe(suite)
    assert set(STAGE_CODE[suite]) & set(probe["looked_up"]) == set()
    # Reading a stage's function resolves its reference: the stage's module is imported then, and it is callable.
    assert STAGE_CODE[suite][0] in probe["resolved"]
    assert probe["kinds"][0] is True and probe["kinds"][1]


def test_every_stage_reference_resolves_to_a_function_and_a_config_class() -> None:
    from pydantic import BaseModel

    from lhl_platform.suites import suites

    for suite in suites():
        for stage in suite.stages:
            assert callable(stage.run), (suite.name, stage.name)
            assert isinstance(stage.config, type) and issubclass(stage.config, BaseModel), (suite.name, stage.name)
        assert suite.plan is None or callable(suite.plan), suite.name


def test_a_reference_that_names_nothing_is_refused_in_one_line() -> None:
    from lhl_platform.suites.contract import Stage

    with pytest.raises(ValueError, match="a reference is 'package.module:name', not 'lhl_platform.clause.stages'"):
        Stage("x", "a stage", "lhl_platform.clause.stages")
    stage = Stage("x", "a stage", "lhl_platform.suites.contract:no_such_stage")  # refused when first read
    with pytest.raises(LookupError, match="^cannot resolve lhl_platform.suites.contract:no_such_stage: "
                                          "lhl_platform.suites.contract has no no_such_stage$"):
        stage.run  # noqa: B018
