"""Agreement of two judges on the same true positives: Cohen's kappa and the shift in RDI.

Kappa is checked against a hand computation; the RDI shift interval (paired contract-cluster
bootstrap) must exclude 0 when one judge systematically relabels missing conditions as extra
conditions, and include 0 when the judges agree.
"""

import random

import pytest

from lhl_platform.judging.agreement import AgreementRow, agreement, cohen_kappa


def row(contract, verdict_a, mismatch_a, verdict_b, mismatch_b, model="m", run=1, clause="Parties"):
    return {"model": model, "run": run, "contract_id": contract, "clause_type": clause, "verdict_a": verdict_a,
            "mismatch_a": mismatch_a, "verdict_b": verdict_b, "mismatch_b": mismatch_b}


S, C = "supported", "contradicted"
MISS, EXTRA, NUM = "missing_condition", "extra_condition", "numeric"

# Ten TPs. Binary table (rows A, columns B): [[4, 1], [2, 3]].
#   observed agreement 7/10; marginals A (5, 5), B (6, 4); chance (5*6 + 5*4) / 100 = 0.5
#   kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
# Direction over the 3 rows both call contradicted: (missing, missing), (extra, extra), (missing, numeric):
#   table [[1, 0, 1], [0, 1, 0], [0, 0, 0]]; observed 2/3; marginals A (2, 1, 0), B (1, 1, 1);
#   chance (2 + 1 + 0) / 9 = 1/3; kappa = (2/3 - 1/3) / (2/3) = 0.5
FIXTURE = [
    row("k1", S, "none", S, "none"), row("k2", S, "none", S, "none"), row("k3", S, "none", S, "none"),
    row("k4", S, "none", S, "none"), row("k5", S, "none", C, NUM),
    row("k6", C, MISS, S, "none"), row("k7", C, NUM, S, "none"),
    row("k8", C, MISS, C, MISS), row("k9", C, EXTRA, C, EXTRA), row("k10", C, MISS, C, NUM),
]


def test_kappas_equal_the_hand_computation():
    result = agreement(FIXTURE)
    assert result.n == 10 and result.excluded == 0
    assert result.confusion_binary.counts == ((4, 1), (2, 3))
    assert result.agreement_binary == pytest.approx(0.7)
    assert result.kappa_binary == pytest.approx(0.4)
    assert result.n_direction == 3
    assert result.confusion_direction.labels == ("missing_condition", "extra_condition", "other")
    assert result.confusion_direction.counts == ((1, 0, 1), (0, 1, 0), (0, 0, 0))
    assert result.kappa_direction == pytest.approx(0.5)


def test_kappa_is_null_when_undefined():
    all_supported = [row(f"k{i}", S, "none", S, "none") for i in range(5)]
    result = agreement(all_supported)
    assert result.kappa_binary is None  # chance agreement is 1
    assert result.kappa_direction is None and result.n_direction == 0  # nothing both called contradicted
    assert result.models[0].rdi_a is None and result.models[0].rdi_shift is None
    assert agreement([]).kappa_binary is None and agreement([]).n == 0


def test_rows_a_judge_left_unlabelled_are_excluded_and_blank_mismatch_reads_as_none():
    rows = [*FIXTURE, row("k11", C, MISS, "", ""), AgreementRow(**row("k12", S, "", S, ""))]
    result = agreement(rows)
    assert result.n == 11 and result.excluded == 1


def _contradictions(seed, relabel):
    """60 contracts x 2 runs x 4 contradicted TPs; judge B either copies A or turns A's missing into extra."""
    rng = random.Random(seed)
    rows = []
    for contract in range(60):
        for run in (1, 2):
            for clause in range(4):
                mismatch = rng.choice([MISS, MISS, EXTRA, NUM, "scope"])
                b = EXTRA if relabel and mismatch == MISS else mismatch
                rows.append(row(f"c{contract}", C, mismatch, C, b, run=run, clause=f"Parties{clause}"))
    return rows


def test_rdi_shift_interval_excludes_zero_when_one_judge_relabels_missing_as_extra():
    result = agreement(_contradictions(1, relabel=True), seed=0)
    (shift,) = result.models
    assert shift.contracts == 60 and shift.n == 480
    assert shift.rdi_shift == pytest.approx(shift.rdi_b - shift.rdi_a)
    assert shift.rdi_shift > 0.5
    assert 0 < shift.rdi_shift_ci_low < shift.rdi_shift < shift.rdi_shift_ci_high
    assert result.kappa_direction < 0.6


def test_rdi_shift_interval_includes_zero_when_judges_agree():
    result = agreement(_contradictions(2, relabel=False), seed=0)
    (shift,) = result.models
    assert shift.rdi_shift == 0
    assert shift.rdi_shift_ci_low <= 0 <= shift.rdi_shift_ci_high
    assert result.kappa_binary is None  # every row contradicted by both: chance agreement 1
    assert result.kappa_direction == pytest.approx(1.0)


def test_bootstrap_is_seeded_and_per_model():
    rows = _contradictions(3, relabel=True) + [{**r, "model": "other"} for r in _contradictions(4, relabel=False)]
    first, again = agreement(rows, seed=7), agreement(rows, seed=7)
    assert first == again
    by_model = {m.model: m for m in first.models}
    assert set(by_model) == {"m", "other"}
    alone = agreement(_contradictions(3, relabel=True), seed=7).models[0]
    assert alone.rdi_shift_ci_low == by_model["m"].rdi_shift_ci_low  # an interval does not depend on other models


def test_cohen_kappa_of_a_perfect_and_a_chance_table():
    import numpy as np

    assert cohen_kappa(np.array([[5, 0], [0, 5]])) == pytest.approx(1.0)
    assert cohen_kappa(np.array([[25, 25], [25, 25]])) == pytest.approx(0.0)
    assert cohen_kappa(np.zeros((2, 2))) is None
