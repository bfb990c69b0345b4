"""The offline rubric judge applies the five criteria of SPEC 3 and names the mismatch."""

import pytest

from lhl_platform.judging.rubric import judge

CAP = ("Except for breaches of Section 10 (Confidentiality), each party's total liability under this Agreement "
       "shall not exceed the fees paid by Licensee in the twelve (12) months preceding the claim.")
PRICE = ("Supplier shall not increase the price of any Product more than once in any calendar year, and no single "
         "increase shall exceed five percent (5%).")


def label(truth, extracted, clause="Cap On Liability"):
    v = judge(clause, truth if isinstance(truth, tuple) else (truth,), extracted)
    return v.verdict.value, v.mismatch_type.value


def test_verbatim_extraction_is_supported():
    assert label(CAP, CAP) == ("supported", "none")


def test_numeric_precision():
    assert label(PRICE, PRICE.replace("five percent (5%)", "ten percent (10%)"), "Price Restrictions") == (
        "contradicted", "numeric")


def test_temporal_precision_for_dates_and_durations():
    assert label("March 4, 2024", "March 14, 2024", "Agreement Date") == ("contradicted", "temporal")
    assert label(CAP, CAP.replace("twelve (12) months", "six (6) months")) == ("contradicted", "temporal")


def test_modality_shall_versus_may():
    assert label(PRICE, PRICE.replace("Supplier shall not", "Supplier may not"), "Price Restrictions") == (
        "contradicted", "obligation")


def test_polarity_dropped_negation():
    assert label(CAP, CAP.replace("shall not exceed", "shall exceed")) == ("contradicted", "obligation")


def test_dropped_carve_out_is_missing_condition():
    dropped = CAP.replace("Except for breaches of Section 10 (Confidentiality), each", "Each")
    assert label(CAP, dropped) == ("contradicted", "missing_condition")


def test_asserted_condition_is_extra_condition():
    added = CAP.rstrip(".") + ", provided that Licensee has given written notice of the claim."
    assert label(CAP, added) == ("contradicted", "extra_condition")


def test_wrong_passage_is_scope():
    assert label(CAP, "This Agreement shall be governed by the laws of the State of Delaware.") == (
        "contradicted", "scope")


def test_quoting_one_of_several_spans_is_supported():
    truth = ("Harbor Peak Software, Inc.", "Millbrook Logistics LLC")
    assert label(truth, "Harbor Peak Software, Inc. ... Millbrook Logistics LLC", "Parties") == ("supported", "none")


@pytest.mark.parametrize("modal", ["may"])
def test_may_is_a_modal_not_a_month(modal):
    assert label("Licensee shall pay the fee.", f"Licensee {modal} pay the fee.", "Minimum Commitment") == (
        "contradicted", "obligation")
    assert label("May 2, 2024", "May 2, 2024", "Agreement Date") == ("supported", "none")
