"""`lhl demo`'s follow-ups (`Demo.follow_ups`): a suite declares the partitioned jobs its demo runs after every
suite's partitions, and the demo launches them as every launcher does. The clause suite's is its debate, launched
as `lhl debate` launches it."""

from __future__ import annotations

import pytest

from lhl_platform.clause.audit_hooks import DEMO_BACKBONE, DEMO_SUBSET, DEMO_SUBSET_SIZE, demo_subset
from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import save_corpus
from lhl_platform.corpus.subsets import stored_subsets
from lhl_platform.domain.models import ModelSpec
from lhl_platform.home import Home
from lhl_platform.registry import add_model
from lhl_platform.suites import get_suite, suites
from lhl_platform.suites.contract import FollowUp
from orchestration.cli.audit import follow_up_launches
from orchestration.cli.debate import debate_launches


def _home(tmp_path) -> Home:
    home = Home.resolve(tmp_path / "home")
    add_model(home, ModelSpec(name=DEMO_BACKBONE, provider="offline", model_id="simulated:inventor"))
    return home


def _shown(launch):
    return launch.job, launch.run_config, launch.tags, launch.partition_key


def test_the_clause_demo_follows_up_with_the_debate_lhl_debate_launches(tmp_path):
    """The calibration, then one debate per run the demo audited: the jobs, run config, tags and partitions that
    `lhl debate --backbone sim-inventor --subset demo-debate` gives them."""
    home, suite = _home(tmp_path), get_suite("clause")
    assert suite.demo is not None and suite.demo.every_run
    ours = [launch for follow in suite.demo.follow_ups for launch in follow_up_launches(home, suite, follow, [1, 2])]
    theirs = debate_launches(home, DEMO_BACKBONE, [1, 2], DEMO_SUBSET, "calibrated")
    assert [_shown(launch) for launch in ours] == [_shown(launch) for launch in theirs]
    assert [launch.partition_key for launch in ours] == [DEMO_BACKBONE, f"{DEMO_BACKBONE}|1", f"{DEMO_BACKBONE}|2"]


def test_every_declared_follow_up_is_a_partitioned_job_of_its_suite_and_any_other_is_refused(tmp_path):
    declared = [(s, f) for s in suites() if s.demo is not None for f in s.demo.follow_ups]
    assert declared, "the clause suite declares its debate"
    for suite, follow in declared:
        assert any(j.name == follow.job and j.partitioning != "none" for j in suite.jobs), (suite.name, follow.job)
    home, suite = _home(tmp_path), get_suite("clause")
    for job in ("corpus", "insufficiency_partition"):  # run once (`Demo.then`); another suite's
        with pytest.raises(LookupError, match=job):
            follow_up_launches(home, suite, FollowUp(job, (DEMO_BACKBONE,)), [1])


def test_the_debate_subset_is_drawn_from_the_active_corpus_once(tmp_path):
    home = _home(tmp_path)
    save_corpus(home, load_master_layout(DEMO_DIR), source=str(DEMO_DIR))
    line = demo_subset(home)
    assert DEMO_SUBSET in line and DEMO_BACKBONE in line
    subset = stored_subsets(home)[DEMO_SUBSET]
    assert len(subset.contract_ids) == DEMO_SUBSET_SIZE
    demo_subset(home)
    assert stored_subsets(home) == {DEMO_SUBSET: subset}
