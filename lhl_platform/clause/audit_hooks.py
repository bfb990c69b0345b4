"""What the clause suite's partition audit adds to running its job (`Suite.audit`, `suites/contract.py`), for the one
audit path of `lhl audit` and `lhl demo`: the active corpus recorded first, the selection checked against it, its
own dry-run estimate (extraction and judge calls, prompt cache and batch prices), what a re-judging does per
partition, and the extraction calls left when a spending limit stops it. Its demo readies the bundled corpus, and
follows its audit with the debate of the fabricating backbone over a seeded subset of it, calibrated from that audit.

Each gets the run config per stage the audit's flags set; the model's registered audit settings fill in the rest,
as they do for its launches (`stages.partition_settings`). Light: each loads what it runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lhl_platform.domain.models import ModelSpec
from lhl_platform.suites.contract import AuditHooks, Demo, FollowUp, ItemsJob, RunConfig

if TYPE_CHECKING:
    from lhl_platform.clause.stages import PartitionSettings
    from lhl_platform.domain.models import Contract
    from lhl_platform.home import Home

CORPUS_JOB = "corpus"  # the suite's items job (`clause/suite.py`)
JUDGES_JOB = "judges"  # LexFlip's judge validation on the dissociation suite (`lexflip/suite.py`)
DEBATE_JOB, CALIBRATE_JOB = "debate_partition", "debate_calibrate"  # the suite's debate jobs (`clause/suite.py`)
DEMO_BACKBONE = "sim-inventor"
DEMO_SUBSET = "demo-debate"
DEMO_SUBSET_SIZE = 12  # the whole demo corpus, so every demo system is compared on the same contracts
DEMO_SUBSET_SEED = 0


def corpus_shown(home: Home) -> Mapping[str, str] | None:
    """What the `contracts` asset records when it shows the active corpus; None when nothing is ingested (the
    corpus job then loads the demo corpus when asked)."""
    from lhl_platform.corpus.store import active_corpus_id

    try:
        return {"corpus_id": active_corpus_id(home)}
    except (RuntimeError, LookupError):
        return None


def _stage(config: RunConfig, stage: str) -> Mapping[str, Any]:
    return config.get(stage, {})


def settings(home: Home, model: str, config: RunConfig) -> PartitionSettings:
    """A partition's settings: the flags' values, the model's registered audit settings for the rest."""
    from lhl_platform.clause.stages import partition_settings

    extraction = _stage(config, "extractions")
    return partition_settings(home, model, judge=_stage(config, "judge_verdicts").get("judge"),
                              contracts=extraction.get("contracts"), subset=extraction.get("subset"),
                              rejudge=bool(extraction.get("rejudge")))


def selection(home: Home, models: Sequence[str], config: RunConfig) -> list[Contract]:
    """The contracts the audit selects (the first model's settings), or one line saying why they do not fit."""
    from lhl_platform.clause.audit import select_contracts

    first = settings(home, models[0], config)
    contracts = select_contracts(home, first.contracts, first.subset)
    asked = _stage(config, "extractions").get("contracts")
    if asked is not None and len(contracts) < asked:
        raise ValueError(f"--contracts {asked} is more than the {len(contracts)} contracts of the active corpus; give "
                         f"at most {len(contracts)}, or leave it out to audit all of them")
    return contracts


def check(home: Home, models: Sequence[str], runs: Sequence[int], config: RunConfig) -> list[str]:
    """The selection fits the active corpus (a judge asked for that is unfit is named by the audit command:
    `judges_on_dissociation`; the validations are LexFlip's, which no suite imports)."""
    selection(home, models, config)
    return []


def estimate(home: Home, models: Sequence[str], runs: Sequence[int], config: RunConfig) -> list[str]:
    from lhl_platform.clause.estimate import estimate_lines

    first = settings(home, models[0], config)
    return estimate_lines(home, models, runs, selection(home, models, config), first.judge, rejudge=first.rejudge)


def rejudging(home: Home, models: Sequence[str], runs: Sequence[int], config: RunConfig) -> list[str]:
    from lhl_platform.clause.estimate import rejudge_lines

    return rejudge_lines(home, models, runs, selection(home, models, config))


def left(home: Home, models: Sequence[str], runs: Sequence[int], config: RunConfig) -> int:
    """The extraction calls the audit still has to make: the selected contracts each partition has not recorded."""
    from lhl_platform.clause.estimate import recorded_contracts

    chosen = {c.contract_id for c in selection(home, models, config)}
    return sum(len(chosen - recorded_contracts(home, m, r)) for m in models for r in runs)


def demo_corpus(home: Home) -> str:
    """The bundled demo corpus made the active one (the audit records it through its corpus job)."""
    from lhl_platform.corpus.cuad import load_master_layout
    from lhl_platform.corpus.demo import DEMO_DIR
    from lhl_platform.corpus.store import save_corpus
    from lhl_platform.domain.taxonomy import CLAUSE_TYPES

    corpus = load_master_layout(DEMO_DIR)
    save_corpus(home, corpus, source=str(DEMO_DIR))
    return f"the bundled demo corpus ({len(corpus.contracts)} contracts x {len(CLAUSE_TYPES)} clause types) is active"


def demo_subset(home: Home) -> str:
    """The demo debate's subset of the active (demo) corpus, drawn and stored once: its seed makes it the same."""
    from lhl_platform.corpus.store import load_corpus
    from lhl_platform.corpus.subsets import draw_subset, save_subset, stored_subsets

    if DEMO_SUBSET not in stored_subsets(home):
        save_subset(home, draw_subset(load_corpus(home), DEMO_SUBSET, DEMO_SUBSET_SIZE, DEMO_SUBSET_SEED))
    return (f"debate: {DEMO_BACKBONE} over subset {DEMO_SUBSET} ({DEMO_SUBSET_SIZE} contracts, seed "
            f"{DEMO_SUBSET_SEED}), calibrated from its audit, offline roles")


AUDIT = AuditHooks(items=ItemsJob(CORPUS_JOB, "contracts", corpus_shown, what="the active corpus (contracts, oracle)"),
                   check=check, estimate=estimate, rejudging=rejudging, left=left, judges_on_dissociation=True)


DEMO = Demo(
    models=tuple((ModelSpec(name=name, provider="offline", model_id=model_id), what) for name, model_id, what in (
        ("lexical", "lexical", "cue-pattern extractor (a real baseline; the demo's plain drafting suits its cues)"),
        ("sim-inventor", "simulated:inventor", "calibration: invents conditions (declared RDI +0.16)"),
        ("sim-omitter", "simulated:omitter", "calibration: drops conditions (declared RDI -0.205)"),
        ("sim-balanced", "simulated:balanced", "calibration: over-eager detector, balanced direction"))),
    prepare=demo_corpus, every_run=True,
    then=(JUDGES_JOB,),  # the judges validated on the demo corpus's dissociation suite before the other suites run
    # as `lhl debate --backbone sim-inventor --subset demo-debate` runs it (calibrated, the primary judge): the
    # backbone's calibration from its audit, then the debate of each run it audited
    follow_ups=(FollowUp(CALIBRATE_JOB, (DEMO_BACKBONE,), {"debate_calibration": {"judge": None}},
                         prepare=demo_subset),
                FollowUp(DEBATE_JOB, (DEMO_BACKBONE,),
                         {"debate_outcomes": {"subset": DEMO_SUBSET, "config": "calibrated"},
                          "debate_verdicts": {"judge": None}})),
    full_report=True)
