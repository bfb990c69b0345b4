import pytest
from pydantic import ValidationError

from lhl_platform.domain import (
    CATEGORY_OF,
    CLAUSE_TYPES,
    Category,
    Extraction,
    InstanceOutcome,
    MismatchType,
    ModelSpec,
    Outcome,
    Verdict,
    VerdictLabel,
    canonical_clause_type,
    outcome_of,
)


def test_taxonomy_has_41_types_in_four_categories_of_spec_sizes():
    assert len(CLAUSE_TYPES) == 41 == len(set(CLAUSE_TYPES))
    sizes = {cat: sum(1 for c in CATEGORY_OF.values() if c is cat) for cat in Category}
    assert sizes == {Category.NUMERIC: 5, Category.TEMPORAL: 6, Category.FACTUAL: 3, Category.OBLIGATION: 27}


@pytest.mark.parametrize("spelling", ["IP Ownership Assignment", "ip ownership assignment", "Ip Ownership Assignment"])
def test_clause_names_match_case_insensitively(spelling):
    assert canonical_clause_type(spelling) == "Ip Ownership Assignment"


def test_no_solicit_of_variants_and_hyphen_spacing():
    assert canonical_clause_type("No-Solicit of Customers") == "No-Solicit Of Customers"
    assert canonical_clause_type("Affiliate License - Licensor") == "Affiliate License-Licensor"


def test_unknown_clause_type_is_rejected_by_name():
    with pytest.raises(ValueError, match="unknown clause type 'Force Majeure'"):
        canonical_clause_type("Force Majeure")


def test_outcomes_follow_the_confusion_matrix():
    assert outcome_of(True, True) is Outcome.TP
    assert outcome_of(False, True) is Outcome.FP
    assert outcome_of(True, False) is Outcome.FN
    assert outcome_of(False, False) is Outcome.TN


def test_verdict_requires_none_mismatch_exactly_when_supported():
    Verdict(verdict=VerdictLabel.SUPPORTED, mismatch_type=MismatchType.NONE)
    with pytest.raises(ValidationError, match="mismatch_type"):
        Verdict(verdict=VerdictLabel.CONTRADICTED, mismatch_type=MismatchType.NONE)
    with pytest.raises(ValidationError, match="mismatch_type"):
        Verdict(verdict="supported", mismatch_type="scope")


def test_invalid_values_name_the_field():
    with pytest.raises(ValidationError) as err:
        Verdict(verdict="maybe", mismatch_type="none")
    assert "verdict" in str(err.value)
    with pytest.raises(ValidationError) as err:
        Verdict(verdict="contradicted", mismatch_type="polarity")
    assert "mismatch_type" in str(err.value)


@pytest.mark.parametrize("bad", ["a|b", "a,b", "m[1]", "", "-lead", "x" * 65])
def test_model_names_cannot_break_partition_keys(bad):
    with pytest.raises(ValidationError, match="name"):
        ModelSpec(name=bad, provider="offline", model_id="lexical")


def test_extraction_quotes_must_agree_with_presence():
    Extraction(model="m", run=1, contract_id="c", clause_type="Parties", present=True, quotes=("Acme",))
    with pytest.raises(ValidationError, match="quote"):
        Extraction(model="m", run=1, contract_id="c", clause_type="Parties", present=True)
    with pytest.raises(ValidationError, match="run"):
        Extraction(model="m", run=0, contract_id="c", clause_type="Parties", present=False)


def test_imported_outcome_allows_verdict_only_on_tp():
    InstanceOutcome(model="m", run=1, contract_id="c", clause_type="Parties", gt_present=True,
                    predicted_present=True, verdict="contradicted", mismatch_type="scope")
    with pytest.raises(ValidationError, match="only allowed on a TP"):
        InstanceOutcome(model="m", run=1, contract_id="c", clause_type="Parties", gt_present=False,
                        predicted_present=True, verdict="supported")
