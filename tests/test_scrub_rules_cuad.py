"""Each injection rule of issue 28 on a real CUAD v1 contract: which names are one party, where definitions are,
what an inconsistent figure may change, where an unused term comes from and where it goes, and when a
capitalised term is wrong. Skipped (visibly) when CUAD v1 is absent."""

import random
import re

import pytest

from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.scrub import inject
from lhl_platform.scrub.document import parse_contract
from lhl_platform.scrub.parties import annotated_parties, parse_annotation, party_entities
from lhl_platform.scrub.style import drafting_style, shift_in_agreement
from tests.conftest import CUAD_DIR

BIOFRONTERA = "BIOFRONTERAAG_04_29_2019-EX-4.17-SUPPLY AGREEMENT"
APOLLO = "Apollo Endosurgery - Manufacturing and Supply Agreement"
ARRAY = "Array BioPharma Inc. - LICENSE, DEVELOPMENT AND COMMERCIALIZATION AGREEMENT"


@pytest.fixture(scope="module")
def cuad():
    if not (CUAD_DIR / "master_clauses.csv").exists():
        pytest.skip(f"CUAD v1 not found at {CUAD_DIR} (set LHL_CUAD_DIR to run CUAD-scale tests)")
    corpus = load_master_layout(CUAD_DIR)
    return {c.contract_id: c.text for c in corpus.contracts}, annotated_parties(corpus.oracle)


def candidates(text, category, parties=None):
    doc = parse_contract(text)
    entities = party_entities(doc, parties)
    return doc, inject.CANDIDATES[category](doc, drafting_style(text), random.Random(0), entities)


def test_the_parties_are_cuads_with_the_contracts_own_names_for_them(cuad):
    texts, parties = cuad
    assert parties[BIOFRONTERA] == (("Cutanea Life Sciences, Inc.", "CUTANEA"),
                                    ("Ferrer Internacional, S.A.", "Ferrer", "Supplier"))
    doc = parse_contract(texts[BIOFRONTERA])
    # `hereinafter referred to as "CUTANEA")` (no opening parenthesis) is a definition; "Ferrer" and/or "Supplier"
    # are one entity in the text itself; Medimetriks, named in the recitals, is no party by CUAD's annotation.
    assert {p.term for p in doc.parties} >= {"CUTANEA", "Ferrer", "Supplier"}
    entities = party_entities(doc, parties[BIOFRONTERA])
    assert entities["Ferrer"] == entities["Supplier"] != entities["CUTANEA"] and "Medimetriks" not in entities
    _, swaps = candidates(texts[BIOFRONTERA], "incorrect_party_references", parties[BIOFRONTERA])
    assert swaps and all({i.fields["wrong"], i.fields["correct"]} & {"CUTANEA"} for i in swaps)


def test_a_collective_entry_of_the_annotation_is_no_party():
    parsed = parse_annotation('Apollo Endosurgery ("APOLLO"); Establishment Labs, S.A ("ESTABLISHMENT"); Apollo '
                              'and Establishment shall hereinafter be individually referred to as a "Party" and '
                              'collectively as the "Parties"')
    assert parsed == (("Apollo Endosurgery", "APOLLO"), ("Establishment Labs, S.A", "ESTABLISHMENT"))


def test_definitions_without_a_space_after_the_number_are_found_at_their_sections(cuad):
    texts, _ = cuad
    found = [(d.term, d.location) for d in parse_contract(texts[APOLLO]).definitions]
    assert ("Party", "P") in found and ("Parties", "P") in found  # "referred to as a "Party" and ... "Parties.""
    assert ("Affiliates", "1.1") in found  # `1.1"Affiliates" of a Party shall mean`
    for term, section in [("Certificate of Conformance", "1.2"), ("Control", "1.3"),
                          ("Current Good Manufacturing Practices", "1.4"), ("Effective Date", "1.5"),
                          ("Facilities", "1.6"), ("Lead Time", "1.7"), ("Lot", "1.8"), ("Product", "1.9"),
                          ("Purchase Order", "1.10"), ("Span of Control", "1.11"), ("Specifications", "1.12")]:
        assert (term, section) in found, (term, section)


def test_an_inconsistent_figure_agrees_in_number_and_leaves_arithmetic_alone(cuad):
    texts, parties = cuad
    sentence = "Supplier shall keep one (1) copy of each batch record for one (1) year after its release."
    copy = sentence.index("one (1) copy")
    year = sentence.index("one (1) year")
    end, new = shift_in_agreement(sentence, copy, copy + len("one (1)"), 0)
    assert sentence[copy:copy] + new + sentence[end:end + 3] == "two (2) copies of"  # never "two (2) copy"
    term = "a one (1) year term"
    assert shift_in_agreement(term, 2, 9, 0) is None  # "a two (2) year term" would read oddly: left alone
    end, new = shift_in_agreement(sentence, year, year + len("one (1)"), 0)
    assert sentence[:year] + new + sentence[end:] == sentence.replace("one (1) year", "two (2) years")
    assert inject._arithmetic("a fee equal to four (4) times $105,000, equal to $420,000, is payable")
    doc, found = candidates(texts[BIOFRONTERA], "inconsistent_language", parties[BIOFRONTERA])
    entities = party_entities(doc, parties[BIOFRONTERA])
    for injection in found:
        edited = doc.text[:injection.start] + injection.replacement + doc.text[injection.end:]
        assert not re.search(r"\b(?:two|three|four) \(\d\) (?:day|month|year|copy)\b[.,;]", edited)
        if injection.start == injection.end:  # a restated obligation: one party's, in its own article
            assert len(inject._actors(doc, injection.replacement, entities)) == 1
            assert injection.fields["location"].split(".")[0] == injection.fields["location_2"].split(".")[0]


def test_unused_terms_come_from_the_contracts_own_phrases_and_sit_among_its_definitions(cuad):
    texts, parties = cuad
    doc, found = candidates(texts[BIOFRONTERA], "unused_defined_terms", parties[BIOFRONTERA])
    assert found
    lowered = doc.text.lower()
    definition_ends = {d.body_end for d in doc.definitions}
    for injection in found:
        term = injection.fields["term"]
        modifier, head = term.lower().split(" ", 1)
        assert re.search(rf"\b{head}s? of {modifier}", lowered), term  # "Recall Cost" from "cost(s) of recall"
        assert injection.start in definition_ends and not inject.after_legend(doc.text, injection.start)
        assert not injection.replacement.lstrip().startswith(("For purposes of", "As used in"))
    assert len({i.fields["term"] for i in found}) == len(found)


def test_a_capitalised_term_is_wrong_only_where_its_defined_meaning_does_not_fit(cuad):
    texts, _ = cuad
    doc = parse_contract(texts[ARRAY])
    law = next(t for t in doc.terms if t in ("Law", "Laws", "Applicable Law"))
    assert doc.names_any(law)  # defined as any law: "other similar laws" are within it
    _, found = candidates(texts[ARRAY], "incorrectly_capitalized_terms")
    assert all(i.fields["term"].lower() not in ("law", "laws") or doc.text[i.start - 9:i.start].strip() == "third"
               for i in found)
    assert sum(i.fields["term"].lower().startswith("agreement") for i in found) <= 1


ARMSTRONG = "ArmstrongFlooringInc_20190107_8-K_EX-10.2_11471795_EX-10.2_Intellectual Property Agreement"


def test_a_defined_term_is_set_against_its_use_only_where_the_definition_states_its_one_figure(cuad):
    """Armstrong's IP agreement defines the Arizona Trademark License Term as "the period commencing on the
    Effective Date and ending twenty-four (24) months thereafter" (1.1(n)): a use of the term in another section
    gets the term restated with another figure, agreeing in number, and the verifier reads the pair as
    inconsistent; a term whose figure may come out otherwise (the later of two, a renewal) is never used."""
    from lhl_platform.scrub.build import _assemble
    from lhl_platform.scrub.figures import defined_figure
    from lhl_platform.scrub.verify import verify_item

    texts, parties = cuad
    text = texts[ARMSTRONG]
    doc, found = candidates(text, "inconsistent_language", parties.get(ARMSTRONG))
    term = "Arizona Trademark License Term"
    (definition,) = doc.terms[term]
    figure = defined_figure(definition)
    assert figure is not None and (figure.kind, figure.value, figure.counts) == ("period", "24", "month")
    uses = [i for i in found if i.subject == f"definition-use:{term}"]
    assert uses
    for use in uses:
        assert use.fields["location_2"] == definition.location != use.fields["location"]
        assert text[use.start - len(term):use.start] == term and use.start == use.end
        number = re.fullmatch(r" of [a-z\-]+ \((\d+)\) months", use.replacement)
        assert number and number.group(1) != "24", use.replacement  # "of forty-eight (48) months"
    from lhl_platform.corpus.cuad import load_master_layout
    from tests.conftest import CUAD_DIR as root

    contract = next(c for c in load_master_layout(root).contracts if c.contract_id == ARMSTRONG)
    item = _assemble(contract, "cuad", [uses[0]])
    assert verify_item(item, contract.text) == []
    # nothing else of the contract is used against a figure its definition leaves open
    for d in doc.definitions:
        fig = defined_figure(d)
        if fig is not None:
            assert not re.search(r"later of|earlier of|renew|extend", fig.text, re.IGNORECASE)
