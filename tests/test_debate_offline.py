"""The offline debate roles: deterministic, answer-key-free, and they filter a fabricating extractor."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from lhl_platform.clause.debate.config import GENERIC, CategoryMeasure, DebateConfig, MeasuredProfile, calibrate
from lhl_platform.clause.debate.engine import read_outcomes, run_debate_partition
from lhl_platform.clause.debate.events import DebateOutcome
from lhl_platform.clause.debate.evidence import cue_fit, is_verbatim, locate
from lhl_platform.clause.debate.offline import OfflineDebateModel, answer
from lhl_platform.clause.debate.prompts import challenges_for, definition_text
from lhl_platform.clause.debate.roles import (
    Candidate,
    DebateJudgeOutput,
    DebateJudgeTask,
    SkepticOutput,
    SkepticTask,
    SupporterOutput,
    SupporterTask,
    VerifierOutput,
    VerifierReport,
    VerifierTask,
)
from lhl_platform.clause.debate.types import ChallengeKind, Position
from lhl_platform.clause.extraction.simulated import PROFILES, SimulatedExtractor
from lhl_platform.clause.extraction.task import ExtractTask
from lhl_platform.corpus.demo import load_demo_corpus
from lhl_platform.domain.models import Extraction, outcome_of
from lhl_platform.domain.taxonomy import CATEGORY_OF, CLAUSE_TYPES, category_of
from lhl_platform.events.log import EventLog

TEXT = ("SUPPLY AGREEMENT\n"
        "This Supply Agreement is made on May 2, 2024 between Ferrum Components Inc. and Basalt Tools LLC.\n"
        "Seller's total liability in any contract year, except for liability for death or personal injury, shall "
        "not exceed the fees paid in that year.\n"
        "Buyer shall pay each invoice within thirty (30) days.\n"
        "This Agreement is governed by the laws of the State of Ohio.\n")
CAP = ("Seller's total liability in any contract year, except for liability for death or personal injury, shall "
       "not exceed the fees paid in that year.")
PAY = "Buyer shall pay each invoice within thirty (30) days."


def _common(clause: str) -> dict[str, object]:
    return {"contract_id": "c", "contract_text": TEXT, "clause_type": clause, "category": category_of(clause),
            "definition": definition_text(clause)}


def _skeptic(clause: str, quotes: tuple[str, ...]) -> SkepticOutput:
    calibration = GENERIC.categories[category_of(clause)]
    task = SkepticTask.model_validate({**_common(clause), "round": 1, "candidate": Candidate(
        present=bool(quotes), quotes=quotes), "challenges": challenges_for(category_of(clause), calibration,
                                                                            bool(quotes))})
    out = answer(task)
    assert isinstance(out, SkepticOutput)
    return out


def test_evidence_locates_a_corrupted_quote_at_its_verbatim_source():
    assert is_verbatim("Seller\u2019s total liability  in any\ncontract year", TEXT)
    changed = CAP.replace("death or personal injury", "death, personal injury or fraud")
    found = locate(changed, TEXT)
    assert found is not None and not found.verbatim and found.passage == CAP
    added = PAY.rstrip(".") + ", provided that the other party has first given prior written notice."
    found = locate(added, TEXT)
    assert found is not None and found.passage == PAY
    assert locate("Licensee may sublicense the software to any affiliate worldwide.", TEXT) is None
    assert cue_fit("Cap On Liability", CAP, TEXT) >= 1.0 and cue_fit("Cap On Liability", PAY, TEXT) == 0


def test_the_skeptic_flags_a_wrong_passage_as_structural_and_claims_absence():
    out = _skeptic("Cap On Liability", (PAY,))
    assert out.structural_error and out.claim is Position.ABSENT and not out.accepts


def test_the_skeptic_accepts_a_verbatim_fitting_quote():
    out = _skeptic("Cap On Liability", (CAP,))
    assert not out.structural_error and out.claim is Position.PRESENT and out.accepts


def test_the_skeptic_checks_values_modality_and_conditions_against_the_source():
    numeric = _skeptic("Cap On Liability", (CAP.replace("that year", "the prior 24 months"),))
    assert {f.kind for f in numeric.findings if f.problem} == {ChallengeKind.VALUE_VERBATIM}
    # A carve-out dropped from inside the clause (one dropped from the end leaves a verbatim sub-span, which
    # annotations legitimately are, and is not flagged).
    dropped = _skeptic("Cap On Liability", (CAP.replace(", except for liability for death or personal injury", ""),))
    assert ChallengeKind.CARVE_OUTS_CAPTURED in {f.kind for f in dropped.findings if f.problem}
    assert dropped.claim is Position.PRESENT and not dropped.structural_error


def test_the_supporter_quotes_the_verbatim_source_and_concedes_content_it_cannot_quote():
    corrupted = CAP.replace("that year", "the prior 24 months")
    skeptic = _skeptic("Cap On Liability", (corrupted,))
    task = SupporterTask.model_validate({
        **_common("Cap On Liability"), "round": 1, "candidate": Candidate(present=True, quotes=(corrupted,)),
        "findings": tuple(skeptic.findings), "skeptic_claim": skeptic.claim,
        "structural_error": skeptic.structural_error})
    out = answer(task)
    assert isinstance(out, SupporterOutput)
    assert out.position is Position.PRESENT and out.concedes and out.quotes == [CAP]


def test_the_verifier_searches_independently_and_reports_a_verbatim_quote():
    out = answer(VerifierTask.model_validate({**_common("Governing Law"), "quotes_under_review": ()}))
    assert isinstance(out, VerifierOutput)
    assert out.present and out.definition_fit and out.confidence == 1.0 and is_verbatim(out.quote, TEXT)
    missing = answer(VerifierTask.model_validate({**_common("Audit Rights"), "quotes_under_review": (PAY,)}))
    assert isinstance(missing, VerifierOutput) and not missing.present and missing.quote == ""


def test_the_judge_repairs_a_non_verbatim_quote_with_its_source_passage():
    corrupted = CAP.replace("that year", "the prior two years")
    report = VerifierReport(present=True, quote=CAP, definition_fit=True, confidence=1.0, rationale="")
    task = DebateJudgeTask.model_validate({
        **_common("Cap On Liability"), "baseline": Candidate(present=True, quotes=(corrupted,)),
        "candidate": Candidate(present=True, quotes=(corrupted,)), "transcript": (), "consensus": Position.PRESENT,
        "verifier": report})
    out = answer(task)
    assert isinstance(out, DebateJudgeOutput) and out.present and out.quotes == [CAP]


# The demo corpus: the debate filters a fabricating extractor --------------------------------------

def _inventor_baselines() -> tuple[list[Extraction], dict[tuple[str, str], bool]]:
    corpus = load_demo_corpus()
    simulator = SimulatedExtractor(PROFILES["inventor"], corpus.oracle, 1)
    baselines = []
    for contract in corpus.contracts:
        task = ExtractTask(contract_id=contract.contract_id, contract_text=contract.text, clause_types=CLAUSE_TYPES)
        for a in simulator.extract(task).clauses:
            baselines.append(Extraction(model="simulated-inventor", run=1, contract_id=contract.contract_id,
                                        clause_type=a.clause_type, present=a.present, quotes=tuple(a.quotes)))
    return baselines, {(r.contract_id, r.clause_type): r.present for r in corpus.oracle}


def _counts(decisions: list[tuple[str, str, bool]], truth: dict[tuple[str, str], bool]) -> Counter[str]:
    return Counter(outcome_of(truth[(c, t)], p).value for c, t, p in decisions)


def _measured(baselines: list[Extraction], truth: dict[tuple[str, str], bool]) -> MeasuredProfile:
    per: dict[str, Counter[str]] = {}
    for b in baselines:
        per.setdefault(CATEGORY_OF[b.clause_type], Counter())[
            outcome_of(truth[(b.contract_id, b.clause_type)], b.present).value] += 1
    def rate(k: int, n: int) -> float | None:
        return k / n if n else None  # undefined, never 0

    return MeasuredProfile(model="simulated-inventor", rdi=PROFILES["inventor"].declared_rdi, categories={
        category: CategoryMeasure(far=rate(c["FP"], c["FP"] + c["TN"]), frr=rate(c["FN"], c["FN"] + c["TP"]))
        for category, c in per.items()})


def _debate(tmp_path: Path, baselines: list[Extraction], config: DebateConfig) -> list[DebateOutcome]:
    log = EventLog(tmp_path / config.name.replace(":", "-"))
    summary = asyncio.run(run_debate_partition(log, "debate", "simulated-inventor", 1, load_demo_corpus().contracts,
                                               baselines, OfflineDebateModel(), config, concurrency=8))
    assert summary.decided == summary.instances == len(baselines) and not summary.failures
    return read_outcomes(log, "debate")


@pytest.mark.parametrize("calibrated", [False, True], ids=["generic", "calibrated"])
def test_the_offline_debate_lowers_the_inventors_false_positives_on_the_demo(tmp_path, calibrated):
    baselines, truth = _inventor_baselines()
    config = calibrate(_measured(baselines, truth)) if calibrated else GENERIC
    outcomes = _debate(tmp_path, baselines, config)
    base = _counts([(b.contract_id, b.clause_type, b.present) for b in baselines], truth)
    debate = _counts([(o.contract_id, o.clause_type, o.final_present) for o in outcomes], truth)
    assert base["FP"] >= 30                      # the inventor fabricates (41 on the demo)
    assert debate["FP"] <= base["FP"] // 4       # the debate removes most fabrications (4 remain)
    assert debate["FN"] <= base["FN"]            # without losing real clauses
    assert all(o.config_hash == config.hash and o.config == config for o in outcomes)
    removed = [o for o in outcomes if o.flipped and not o.final_present]
    assert removed and all(not truth[(o.contract_id, o.clause_type)] for o in removed)


def test_the_offline_debate_is_deterministic(tmp_path):
    baselines, _ = _inventor_baselines()
    few = [b for b in baselines if b.contract_id == baselines[0].contract_id]
    first = _debate(tmp_path / "a", few, GENERIC)
    second = _debate(tmp_path / "b", few, GENERIC)
    assert [o.model_dump(exclude={"calls", "reused_calls"}) for o in first] == \
        [o.model_dump(exclude={"calls", "reused_calls"}) for o in second]
