"""Calibration as data: a measured profile decides what the Skeptic presses on and how strict the gates are."""

from __future__ import annotations

import pytest

from lhl_platform.clause.debate.config import (
    GENERIC,
    CategoryCalibration,
    CategoryMeasure,
    DebateConfig,
    Direction,
    Emphasis,
    MeasuredProfile,
    calibrate,
    profile_from_rows,
)
from lhl_platform.clause.debate.prompts import DEBATE_PROMPT_VERSION, challenges_for, definition_text, role_messages
from lhl_platform.clause.debate.roles import Candidate, Challenge, SkepticTask, TranscriptEntry
from lhl_platform.clause.debate.types import ChallengeKind, Position, Role
from lhl_platform.domain.taxonomy import Category
from lhl_platform.providers.base import ModelRequest

N, OB, F, T = Category.NUMERIC, Category.OBLIGATION, Category.FACTUAL, Category.TEMPORAL

# A gpt-5.2-like backbone: fabricates obligations and facts most, invents conditions (RDI > 0).
PROFILE = MeasuredProfile(model="backbone", rdi=0.16, categories={
    N: CategoryMeasure(far=0.10, frr=0.20, hal_tp=0.70, rdi=0.10),
    OB: CategoryMeasure(far=0.20, frr=0.08, hal_tp=0.65, rdi=-0.08),
    F: CategoryMeasure(far=0.16, frr=0.05, hal_tp=0.44),
    T: CategoryMeasure(far=0.06, frr=0.12, hal_tp=0.30, rdi=0.0),
})


def test_high_far_categories_get_stronger_presence_challenges_and_a_stricter_addition_gate():
    config = calibrate(PROFILE)
    assert config.categories[OB].presence is Emphasis.HIGH and config.categories[T].presence is Emphasis.LOW
    strict, lenient = config.categories[OB].gate, config.categories[N].gate
    assert strict.addition_min_confidence > lenient.addition_min_confidence
    # Where fabrication dominates, a removal is easier (only a confident Verifier blocks it); where misses
    # dominate, any presence confirmation blocks it.
    assert strict.deletion_block_confidence > lenient.deletion_block_confidence
    assert all(c.gate.addition_requires_verifier and c.gate.addition_requires_consensus
               for c in config.categories.values())


def test_content_and_omission_emphasis_follow_hal_tp_and_frr():
    config = calibrate(PROFILE)
    assert config.categories[N].content is Emphasis.HIGH and config.categories[T].content is Emphasis.LOW
    assert config.categories[N].omission is Emphasis.HIGH and config.categories[F].omission is Emphasis.LOW


def test_rdi_sign_sets_the_direction_category_first_then_overall():
    config = calibrate(PROFILE)
    assert config.categories[N].direction is Direction.EXTRA       # category RDI +0.10
    assert config.categories[OB].direction is Direction.MISSING     # category RDI -0.08
    assert config.categories[T].direction is Direction.BALANCED    # category RDI 0
    assert config.categories[F].direction is Direction.EXTRA       # no category RDI: the overall +0.16


def test_an_unmeasured_profile_calibrates_to_normal_everything():
    config = calibrate(MeasuredProfile(categories={}))
    assert all(c == CategoryCalibration() for c in config.categories.values())


def test_generic_is_the_uncalibrated_ablation_with_symmetric_gates():
    assert GENERIC.name == "generic" and GENERIC.calibrated_from is None and GENERIC.max_rounds == 2
    for calibration in GENERIC.categories.values():
        assert (calibration.presence, calibration.content, calibration.direction) == (
            Emphasis.NORMAL, Emphasis.NORMAL, Direction.BALANCED)
        gate = calibration.gate
        assert gate.addition_min_confidence == gate.deletion_block_confidence
        assert gate.addition_requires_consensus and gate.deletion_requires_consensus


def test_the_config_hash_covers_everything_and_the_profile_travels_with_the_config():
    config = calibrate(PROFILE)
    assert config.calibrated_from == PROFILE and config.name == "calibrated:backbone"
    assert len(config.hash) == 16 and config.hash == DebateConfig.model_validate_json(config.model_dump_json()).hash
    assert config.hash != GENERIC.hash != calibrate(PROFILE, max_rounds=1).hash


def test_a_config_must_configure_every_category_and_at_most_two_rounds():
    with pytest.raises(ValueError, match="missing"):
        DebateConfig(name="partial", categories={N: CategoryCalibration()})
    with pytest.raises(ValueError):
        DebateConfig(name="long", max_rounds=3)


def test_profile_from_report_rows():
    rows = [{"category": "numeric", "far": 0.1, "frr": 0.2, "hal_tp": 0.7, "rdi": None, "model": "m"},
            {"category": "temporal", "far": 0.05, "frr": None, "hal_tp": 0.3, "rdi": -0.2}]
    profile = profile_from_rows(rows, model="m", rdi=0.01)
    assert profile.categories[N] == CategoryMeasure(far=0.1, frr=0.2, hal_tp=0.7)
    assert profile.categories[T].rdi == -0.2 and profile.rdi == 0.01


# Challenge sets and prompts ------------------------------------------------------------------------

def test_each_category_asks_its_own_typed_challenges():
    kinds = {c: {x.kind for x in challenges_for(c, CategoryCalibration(), True)} for c in Category}
    assert ChallengeKind.VALUE_VERBATIM in kinds[N]
    assert {ChallengeKind.MODAL_PRESERVED, ChallengeKind.CARVE_OUTS_CAPTURED} <= kinds[OB]
    assert ChallengeKind.STATED_NOT_INFERRED in kinds[T]
    assert ChallengeKind.FROM_DOCUMENT in kinds[F]
    assert all(ChallengeKind.PRESENCE in k for k in kinds.values())


def test_direction_raises_its_condition_challenge_and_low_emphasis_drops_a_challenge():
    extra = challenges_for(OB, CategoryCalibration(direction=Direction.EXTRA, content=Emphasis.LOW), True)
    by_kind = {c.kind: c.priority for c in extra}
    assert by_kind == {ChallengeKind.PRESENCE: Emphasis.NORMAL, ChallengeKind.NO_ADDED_CONDITIONS: Emphasis.HIGH}
    missing = {c.kind: c.priority for c in challenges_for(OB, CategoryCalibration(direction=Direction.MISSING), True)}
    assert missing[ChallengeKind.CARVE_OUTS_CAPTURED] is Emphasis.HIGH
    assert missing[ChallengeKind.NO_ADDED_CONDITIONS] is Emphasis.NORMAL


def test_an_absent_extraction_is_challenged_on_omission_only_unless_omission_is_low():
    assert [c.kind for c in challenges_for(N, CategoryCalibration(), False)] == [ChallengeKind.OMISSION]
    assert challenges_for(N, CategoryCalibration(omission=Emphasis.LOW), False) == ()


def _skeptic_task(**changes: object) -> SkepticTask:
    base = {"contract_id": "c1", "contract_text": "The laws of Ohio govern.", "clause_type": "Governing Law",
            "category": F, "definition": definition_text("Governing Law"), "round": 1,
            "candidate": Candidate(present=True, quotes=("The laws of Ohio govern.",)),
            "challenges": (Challenge(kind=ChallengeKind.PRESENCE, question="q", priority=Emphasis.NORMAL),),
            "transcript": ()}
    return SkepticTask.model_validate({**base, **changes})


def _key(task: SkepticTask) -> str:
    return ModelRequest(provider="p", model_id="m", prompt_version=DEBATE_PROMPT_VERSION, run=1,
                        messages=role_messages(task), task=task).key()


@pytest.mark.parametrize("change", [
    {"round": 2}, {"contract_id": "c2"}, {"candidate": Candidate(present=False)},
    {"challenges": (Challenge(kind=ChallengeKind.PRESENCE, question="q", priority=Emphasis.HIGH),)},
    {"transcript": (TranscriptEntry(round=1, role=Role.SUPPORTER, position=Position.PRESENT, note="n"),)},
    {"definition": "other"}, {"contract_text": "The laws of Texas govern."},
])
def test_every_field_of_a_role_task_is_in_its_messages_so_the_request_key_changes(change):
    assert _key(_skeptic_task(**change)) != _key(_skeptic_task())


def test_messages_share_a_system_prompt_and_the_contract_across_roles_for_prefix_caching():
    system, contract, role = role_messages(_skeptic_task())
    assert (system.role, contract.role, role.role) == ("system", "user", "user")
    assert "Ohio" in contract.content and "ROLE: Skeptic" in role.content and "Skeptic" not in contract.content
    assert role_messages(_skeptic_task(round=2))[:2] == (system, contract)
