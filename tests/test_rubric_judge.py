"""The offline rubric judge applies the five criteria and names the mismatch.

It reads legal force: wording that keeps force (number words, plain English, modal synonyms of the
same class, articles, numbering) is supported, and the reason names the criterion that fired.
"""

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
    assert label("Licensee shall pay the fee.", "Licensee may pay the fee.", "Minimum Commitment") == (
        "contradicted", "obligation")
    assert label("Licensor may audit the records.", "Licensor shall audit the records.", "Audit Rights") == (
        "contradicted", "obligation")


def test_may_not_is_a_prohibition_like_shall_not():
    # rubric-v1 called this an obligation mismatch; both sentences forbid the same thing.
    assert label(PRICE, PRICE.replace("Supplier shall not", "Supplier may not"), "Price Restrictions") == (
        "supported", "none")
    assert label(PRICE, PRICE.replace("Supplier shall not", "Supplier may"), "Price Restrictions") == (
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


def test_reason_names_the_criterion_that_fired():
    cases = [
        (PRICE, PRICE.replace("five percent (5%)", "ten percent (10%)"), "numeric precision"),
        (CAP, CAP.replace("twelve (12) months", "six (6) months"), "temporal precision"),
        (CAP, CAP.replace("shall not exceed", "shall exceed"), "polarity"),
        (CAP, CAP.replace("Except for breaches of Section 10 (Confidentiality), each", "Each"), "carve-out"),
        ("Licensee shall pay.", "Licensee may pay.", "modality"),
    ]
    for truth, extracted, criterion in cases:
        assert judge("Cap On Liability", (truth,), extracted).reason.startswith(criterion), criterion


@pytest.mark.parametrize("truth, rewrite", [
    (CAP, CAP.replace("twelve (12) months", "12 months")),  # number words and figures
    (CAP, CAP.replace("twelve (12) months", "twelve months")),
    (PRICE, PRICE.replace("five percent (5%)", "5%")),
    (CAP, CAP.replace("shall not exceed", "must not exceed")),  # a modal synonym of the same force
    (CAP, CAP.replace("months preceding", "months prior to")),  # plain English / legalese
    (CAP, CAP.replace("Section 10", "§ 10")),  # cross-reference numbering
    (CAP, CAP.upper()),  # formatting
    (CAP, "  " + CAP.replace(" ", "\n", 3)),
])
def test_rewrites_that_keep_legal_force_are_supported(truth, rewrite):
    assert label(truth, rewrite) == ("supported", "none")


def test_plain_english_modal_synonyms_articles_and_word_order():
    truth = ("Pursuant to Section 4.2, the Licensee shall have the right to terminate this Agreement prior to "
             "the Renewal Date, in the event that the Licensor fails to pay any and all fees due hereunder.")
    plain = ("Under Section 4.2, Licensee may terminate this Agreement before the Renewal Date, if Licensor "
             "fails to pay all fees due under this Agreement.")
    assert label(truth, plain, "Termination For Convenience") == ("supported", "none")
    assert label("Licensee shall use and copy the Software.", "Licensee shall copy and use the Software.",
                 "License Grant") == ("supported", "none")
    assert label("Neither party shall assign this Agreement.", "No party may assign this Agreement.",
                 "Anti-Assignment") == ("supported", "none")


def test_before_after_all_some_and_party_swap():
    notice = "Licensee shall give notice to Licensor at least sixty (60) days before the end of the Term."
    assert label(notice, notice.replace("before", "after"), "Notice Period To Terminate Renewal") == (
        "contradicted", "temporal")
    assert label("Licensor grants Licensee all rights.", "Licensor grants Licensee some rights.",
                 "License Grant") == ("contradicted", "scope")
    swapped = "Licensor shall give notice to Licensee at least sixty (60) days before the end of the Term."
    assert label(notice, swapped, "Notice Period To Terminate Renewal") == ("contradicted", "other")
